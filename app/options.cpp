#include "app/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <regex>

namespace vf::app {

void Settings::fillFrom(const Settings& lower) {
  auto take = [](auto& mine, const auto& theirs) {
    if (!mine && theirs) mine = theirs;
  };
  take(input, lower.input);
  take(output, lower.output);
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
}

std::string checkFrames(std::int64_t n) {
  if (n <= 0) return "must be a positive number of frames, got " + std::to_string(n);
  return "";
}

std::string checkSlots(std::int64_t n) {
  if (n < 1 || n > 8)
    return "must be in [1, 8] (frames in flight: 2 = ping-pong, more absorbs jitter), got " +
           std::to_string(n);
  return "";
}

std::string checkLogLevel(const std::string& level) {
  static const char* const kLevels[] = {"trace", "debug", "info", "warn", "error", "off"};
  for (const char* l : kLevels)
    if (level == l) return "";
  return "must be one of trace, debug, info, warn, error, off; got '" + level + "'";
}

std::string checkCodec(const std::string& fourcc) {
  const bool ok = fourcc.size() == 4 && std::all_of(fourcc.begin(), fourcc.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == ' ';
                  });
  if (!ok)
    return "must be a four-character code such as mp4v, avc1, MJPG, FFV1 or XVID; got '" + fourcc +
           "'";
  return "";
}

WindowSize parseWindow(const std::string& size) {
  static const std::regex form("([0-9]{1,5})x([0-9]{1,5})");
  std::smatch m;
  if (!std::regex_match(size, m, form)) return {};
  return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

std::string checkWindow(const std::string& size) {
  const WindowSize w = parseWindow(size);
  if (w.width < 160 || w.height < 120 || w.width > 16384 || w.height > 16384)
    return "must be WIDTHxHEIGHT in pixels, from 160x120 to 16384x16384, e.g. 1280x720; got '" +
           size + "'";
  return "";
}

std::string helpFooter() {
  return R"(
Sources (-i):
  cam0, cam1, ...          a camera by index (live)
  FILE                     a video file (offline: every frame, progress and ETA)
  rtsp://, http://, udp:// a network stream (live)
  '... ! appsink'          a GStreamer pipeline ending in appsink (live)

Outputs (-o):
  out.mp4 | .mov | .m4v    MPEG-4 part 2 (mp4v) by default
  out.avi                  Motion JPEG (MJPG) by default
  out.mkv                  FFV1 (lossless) by default
  out.webm                 VP8 by default
  'out/frame_%05d.png'     one lossless image per frame (png, bmp, tiff, ppm/pgm), from 1
  (none)                   the preview window when a display is available, else no output
  --codec FOURCC overrides the codec; fps and frame size follow the input and the chain.

Chains: stages separated by commas, parameters after '=' separated by ':'
  (vidfilter --list-stages shows every stage and parameter).

Examples:
  vidfilter -i cam0 --chain blur,sobel
  vidfilter -i in.mp4 --chain "blur=sigma=2,sobel,hist,brightness" -o out/edges.mp4
  vidfilter -i in.avi --chain gray,brightness=gain=1.5:bias=-20 -o 'out/frame_%05d.png'
  vidfilter -i 'videotestsrc is-live=true ! videoconvert ! appsink' --chain sobel
  vidfilter --config config/offline.toml --frames 100
  vidfilter bench --chain blur,sobel,hist,brightness --size 3840x2160   (vidfilter bench --help)

Exit status: 0 done; 1 the run failed; 2 bad options, config, chain or path;
  130/143 stopped by SIGINT/SIGTERM (the output file is finalised and plays).
)";
}

namespace {
// CLI11 messages, made into one line that says what to do.
std::string describe(const CLI::ParseError& e) {
  std::string msg = e.what();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  std::smatch m;
  static const std::regex convert("Could not convert: (\\S+) = (.*)");
  static const std::regex extra("The following arguments? (was|were) not expected: (.*)");
  if (std::regex_match(msg, m, convert)) {
    msg = m[1].str() + ": '" + m[2].str() + "' is not a whole number";
  } else if (std::regex_match(msg, m, extra)) {
    const std::string what = m[2].str();
    msg = (what.rfind('-', 0) == 0 ? "unknown option " : "unexpected argument '") + what +
          (what.rfind('-', 0) == 0 ? "" : "' (the input is given as -i SRC)");
  }
  return msg + "; see vidfilter --help";
}
}  // namespace

CommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out) {
  CommandLine cl;
  CLI::App app{"vidfilter: real-time video filtering with OpenCL (cameras, streams, files)",
               "vidfilter"};
  app.footer(helpFooter());
  app.get_formatter()->column_width(30);

  std::string input, output, chain, device, stats, codec, logLevel, config;
  std::int64_t frames = 0, slots = 0;
  bool preview = false, compare = false, progress = false;

  auto* oInput =
      app.add_option("-i,--input", input,
                     "cam0, a video file, a URL, or a GStreamer pipeline ending in appsink")
          ->type_name("SRC");
  auto* oChain =
      app.add_option("-c,--chain", chain, "filter chain, e.g. blur=sigma=2,sobel,hist,brightness")
          ->type_name("CHAIN");
  auto* oOutput = app.add_option("-o,--output", output,
                                 "video file (.mp4 .mkv .avi .mov .webm) or image pattern "
                                 "(out/frame_%05d.png)")
                      ->type_name("DST");
  app.add_option("--config", config, "TOML config file; command-line options override it")
      ->type_name("FILE");
  auto* oDevice =
      app.add_option("-d,--device", device, "OpenCL device: P:D, gpu, cpu, or part of a name")
          ->type_name("SEL");
  bool noPreview = false, noProgress = false, noOverlay = false, exitAtEnd = false;
  std::string window;
  auto* oPreview = app.add_flag(
      "--preview", preview, "show the preview window (default: when a display exists and no -o)");
  auto* oNoPreview = app.add_flag("--no-preview", noPreview, "never open a window");
  auto* oCompare = app.add_flag("--compare", compare,
                                "preview the original beside (or above) the filtered frame");
  auto* oNoOverlay =
      app.add_flag("--no-overlay", noOverlay, "start the preview without its panel of timings");
  auto* oWindow = app.add_option("--window", window,
                                 "the preview window's first size (default: fit the screen)")
                      ->type_name("WxH");
  auto* oExitAtEnd = app.add_flag("--exit-at-end", exitAtEnd,
                                  "close the preview at the end of a file (default: wait for q)");
  auto* oFrames =
      app.add_option("-n,--frames", frames, "stop after N input frames")->type_name("N");
  auto* oSlots =
      app.add_option("--slots", slots, "frames in flight (pinned host slots, 1..8; default 2)")
          ->type_name("N");
  auto* oStats = app.add_option("--stats", stats, "write per-frame timings as JSON lines to FILE")
                     ->type_name("FILE");
  auto* oCodec = app.add_option("--codec", codec,
                                "output video codec: mp4v, avc1, MJPG, FFV1, XVID, VP80, ...")
                     ->type_name("FOURCC");
  auto* oProgress = app.add_flag("--progress", progress,
                                 "progress line on stderr (default: when stderr is a terminal)");
  auto* oNoProgress = app.add_flag("--no-progress", noProgress, "no progress line");
  auto* oLog = app.add_option("--log-level", logLevel,
                              "trace, debug, info, warn, error or off (default info)")
                   ->type_name("LEVEL");
  app.add_flag("--list-devices", cl.listDevices, "list OpenCL platforms and devices, then exit");
  app.add_flag("--list-stages", cl.listStages, "list stages and their parameters, then exit");
  app.add_flag("-V,--version", cl.version, "print the version, then exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    cl.exitNow = true;
    return cl;
  } catch (const CLI::ParseError& e) {
    throw UsageError(describe(e));
  }

  Settings& s = cl.settings;
  if (oInput->count()) s.input = input;
  if (oChain->count()) s.chain = chain;
  if (oOutput->count()) s.output = output;
  if (oDevice->count()) s.device = device;
  if (oPreview->count() && oNoPreview->count())
    throw UsageError("--preview and --no-preview contradict each other; give one");
  if (oProgress->count() && oNoProgress->count())
    throw UsageError("--progress and --no-progress contradict each other; give one");
  if (oPreview->count()) s.preview = true;
  if (oNoPreview->count()) s.preview = false;
  if (oCompare->count()) s.compare = compare;
  if (oNoOverlay->count()) s.overlay = false;
  if (oExitAtEnd->count()) s.exitAtEnd = true;
  if (oWindow->count()) {
    if (auto why = checkWindow(window); !why.empty()) throw UsageError("--window " + why);
    s.window = window;
  }
  if (oStats->count()) s.statsPath = stats;
  if (oProgress->count()) s.progress = true;
  if (oNoProgress->count()) s.progress = false;
  if (oFrames->count()) {
    if (auto why = checkFrames(frames); !why.empty()) throw UsageError("--frames " + why);
    s.frames = frames;
  }
  if (oSlots->count()) {
    if (auto why = checkSlots(slots); !why.empty()) throw UsageError("--slots " + why);
    s.slots = static_cast<int>(slots);
  }
  if (oCodec->count()) {
    if (auto why = checkCodec(codec); !why.empty()) throw UsageError("--codec " + why);
    s.codec = codec;
  }
  if (oLog->count()) {
    if (auto why = checkLogLevel(logLevel); !why.empty()) throw UsageError("--log-level " + why);
    s.logLevel = logLevel;
  }
  if (s.input && s.input->empty())
    throw UsageError("--input is empty; give a file, cam0, a URL or a GStreamer pipeline");
  if (s.chain && s.chain->find_first_not_of(" \t") == std::string::npos)
    throw UsageError(
        "--chain is empty; give at least one stage, e.g. --chain blur,sobel "
        "(vidfilter --list-stages lists them)");
  if (s.output && s.output->empty())
    throw UsageError("--output is empty; give a file name or leave the option out");
  cl.configPath = config;
  return cl;
}

}  // namespace vf::app
