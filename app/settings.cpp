// Settings: the command line over the config file (fillFrom), and the checks of the values both
// share (frames, slots, jobs, log level, window size).
#include <algorithm>
#include <regex>

#include "app/option_values.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

std::string Settings::withOrigin(const std::string& message) const {
  for (const auto& [option, where] : origins)
    if (message.rfind(option + " ", 0) == 0 || message.rfind(option + ":", 0) == 0) {
      const auto colon = where.rfind(": ");  // "file:line:col: key" -> "key at file:line:col"
      const auto line = std::min(message.find('\n'), message.size());  // the first line's end
      return message.substr(0, line) + " (" + where.substr(colon + 2) + " at " +
             where.substr(0, colon) + ")" + message.substr(line);
    }
  return message;
}

void Settings::fillFrom(const Settings& lower) {
  auto take = [](auto& mine, const auto& theirs) {
    if (!mine && theirs) mine = theirs;
  };
  // The origins of the values taken from `lower` (before they are taken).
  auto origin = [&](const char* option, bool taken) {
    if (const auto o = lower.origins.find(option); taken && o != lower.origins.end())
      origins[option] = o->second;
  };
  origin("--device", !device && lower.device);
  origin("--codec", !codec && lower.codec);
  origin("-f", !format && lower.format);
  origin("--pix-fmt", !pixFmt && lower.pixFmt);
  origin("--preset", !preset && lower.preset);
  origin("--crf", !crf && lower.crf);
  origin("-b:v", !bitrate && lower.bitrate);
  origin("-c:a", !audioCodec && lower.audioCodec);
  origin("--stats", !statsPath && lower.statsPath);
  origin("--json", !jsonPath && lower.jsonPath);
  origin("--ss", !start && lower.start);
  origin("--to", !to && lower.to);
  origin("-t", !duration && lower.duration);
  origin("input", !inputs && !inputsList && !input && lower.input);
  origin("--inputs", !input && !inputs && !inputsList && lower.inputsList);
  origin("output", !outputs && !output && lower.output);
  // --quiet here and a log level only below (a config's log_level): --quiet's level wins.
  const bool quietOverLevel = quiet.value_or(false) && !logLevel && lower.logLevel;
  take(chain, lower.chain);
  take(device, lower.device);
  take(statsPath, lower.statsPath);
  take(codec, lower.codec);
  take(logLevel, lower.logLevel);
  take(snapshotDir, lower.snapshotDir);
  take(title, lower.title);
  take(window, lower.window);
  take(exitAtEnd, lower.exitAtEnd);
  take(preview, lower.preview);
  take(compare, lower.compare);
  take(overlay, lower.overlay);
  take(progress, lower.progress);
  take(frames, lower.frames);
  take(slots, lower.slots);
  take(threads, lower.threads);
  take(start, lower.start);
  take(to, lower.to);
  take(duration, lower.duration);
  take(rate, lower.rate);
  take(crf, lower.crf);
  take(size, lower.size);
  take(inputPixFmt, lower.inputPixFmt);
  take(inputFormat, lower.inputFormat);
  take(pixFmt, lower.pixFmt);
  take(preset, lower.preset);
  take(format, lower.format);
  take(audioCodec, lower.audioCodec);
  take(hwdec, lower.hwdec);
  take(drop, lower.drop);
  take(bitrate, lower.bitrate);
  take(overwrite, lower.overwrite);
  take(audio, lower.audio);
  take(quiet, lower.quiet);
  take(cameraSize, lower.cameraSize);
  take(cameraFps, lower.cameraFps);
  take(cameraFormat, lower.cameraFormat);
  // Inputs and outputs listed on the command line replace the file's one.
  if (!inputs && !inputsList) take(input, lower.input);
  if (!input && !inputs) take(inputsList, lower.inputsList);
  if (!outputs) take(output, lower.output);
  take(jsonPath, lower.jsonPath);
  take(jobs, lower.jobs);
  take(fuse, lower.fuse);
  // -t and --to say the same thing: the command line's one wins over the file's other.
  if (duration && to && !lower.duration) to.reset();
  if (duration && to && !lower.to) duration.reset();
  if (crf && bitrate && !lower.crf) bitrate.reset();
  if (crf && bitrate && !lower.bitrate) crf.reset();
  // So do --quiet (no progress line) and --progress.
  const bool both = quiet.value_or(false) && progress.value_or(false);
  if (both && !lower.quiet) progress.reset();
  if (both && !lower.progress) quiet.reset();
  if (quietOverLevel) logLevel.reset();
}

std::string checkFrames(std::int64_t n) {
  if (n <= 0) return "must be a positive number of frames, got " + std::to_string(n);
  return "";
}

std::string checkThreads(std::int64_t n) {
  if (n < 0 || n > 256)
    return "must be in [0, 256] (decoder threads per input; 0: FFmpeg's count, the cores up "
           "to 16, or 4/N of the cores each for N inputs at once), got " +
           std::to_string(n);
  return "";
}

std::string checkSlots(std::int64_t n) {
  if (n < 1 || n > 8)
    return "must be in [1, 8] (frames in flight: 2 = ping-pong, more absorbs jitter), got " +
           std::to_string(n);
  return "";
}

std::string checkJobs(std::int64_t n) {
  if (n < 1 || n > 64)
    return "must be in [1, 64] (inputs processed at once), got " + std::to_string(n);
  return "";
}

std::string checkLogLevel(const std::string& level) {
  static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error", "off"};
  for (const char* l : kLevels)
    if (level == l) return "";
  return "must be one of trace, debug, info, warn, error, off; got " + quote(level);
}

std::string checkCodec(const std::string& name) { return checkName(name); }

WindowSize parseWindow(const std::string& size) {
  static const std::regex form("([0-9]{1,5})x([0-9]{1,5})");
  std::smatch m;
  if (!std::regex_match(size, m, form)) return {};
  return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

std::string checkWindow(const std::string& size) {
  const WindowSize w = parseWindow(size);
  if (w.width < 160 || w.height < 120 || w.width > 16384 || w.height > 16384)
    return "must be WIDTHxHEIGHT in pixels, from 160x120 to 16384x16384, e.g. 1280x720; got " +
           quote(size);
  return "";
}

}  // namespace vf::app
