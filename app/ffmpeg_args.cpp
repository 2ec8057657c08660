#include "app/ffmpeg_args.hpp"

#include <cctype>
#include <map>

#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

// ffmpeg's log level (-v, -loglevel) as --log-level's; other words as written (--log-level
// names them if they are none of its own).
std::string logLevelOf(std::string level) {
  // ffmpeg's flags before the level (repeat+, level+), and its numbers.
  for (std::size_t plus; (plus = level.find('+')) != std::string::npos;) level.erase(0, plus + 1);
  static const std::map<std::string, std::string> numbers = {
      {"-8", "quiet"}, {"0", "panic"},    {"8", "fatal"},  {"16", "error"}, {"24", "warning"},
      {"32", "info"},  {"40", "verbose"}, {"48", "debug"}, {"56", "trace"}};
  if (const auto n = numbers.find(level); n != numbers.end()) level = n->second;
  static const std::map<std::string, std::string> levels = {
      {"quiet", "off"},     {"panic", "error"},  {"fatal", "error"},
      {"error", "error"},   {"warning", "warn"}, {"info", "info"},
      {"verbose", "debug"}, {"debug", "debug"},  {"trace", "trace"}};
  const auto it = levels.find(level);
  return it == levels.end() ? level : it->second;
}

}  // namespace

std::vector<std::string> translateFfmpegSpellings(const std::vector<std::string>& args) {
  static const std::map<std::string, std::string> anywhere = {{"-vf", "--chain"},
                                                              {"-filter:v", "--chain"},
                                                              {"-ss", "--ss"},
                                                              {"-to", "--to"},
                                                              {"-an", "--an"},
                                                              {"-crf", "--crf"},
                                                              {"-preset", "--preset"},
                                                              {"-b:v", "--bitrate"},
                                                              {"-c:v", "--codec"},
                                                              {"-vcodec", "--codec"},
                                                              {"-codec:v", "--codec"},
                                                              {"-c:a", "--audio-codec"},
                                                              {"-acodec", "--audio-codec"},
                                                              {"-codec:a", "--audio-codec"},
                                                              {"-hwaccel", "--hwdec"},
                                                              {"-frames:v", "--frames"},
                                                              {"-vframes", "--frames"}};
  static const std::map<std::string, std::string> beforeInput = {
      {"-s", "--size"},         {"-video_size", "--size"},       {"-r", "--rate"},
      {"-framerate", "--rate"}, {"-pix_fmt", "--input-pix-fmt"}, {"-threads", "--threads"}};
  std::vector<std::string> out;
  bool inputSeen = false;
  // ffmpeg's input options come before the -i they are for: before the last -i they are still
  // input options (the next input's), after it the output's.
  std::size_t lastInput = 0;
  int inputs = 0;
  for (std::size_t i = 0; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "-i" || args[i] == "--input" || args[i].rfind("--input=", 0) == 0) {
      lastInput = i;
      ++inputs;
    }
  const bool anyInput = inputs > 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {  // everything after is an argument as written
      out.insert(out.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    if (a == "-i" || a == "--input" || a.rfind("--input=", 0) == 0) inputSeen = true;
    if (a == "-c" || a == "-codec")
      throw UsageError(
          a +
          " is ffmpeg's codec option for every stream; here -c:v NAME (or --codec) sets the "
          "video encoder, -c:a NAME the audio's, and the chain is --chain or -vf");
    if (a == "-q" || a.rfind("-q:", 0) == 0 || a == "-qscale" || a.rfind("-qscale:", 0) == 0)
      throw UsageError(a +
                       " is ffmpeg's fixed quality scale; here the encoder's quality is -crf N "
                       "(x264, x265, VP9, AV1) or -b:v RATE, and --quiet keeps the output to "
                       "warnings and errors");
    // After the last input ffmpeg's -s and -r are the output's size and rate.
    const bool afterInputs = inputSeen && i > lastInput;
    if (afterInputs && (a == "-s" || a == "-video_size"))
      throw UsageError(a +
                       " after the input is ffmpeg's output size; here the chain sets it: add "
                       "resize=WxH to --chain (e.g. --chain blur,resize=640x480). Before -i, " +
                       a + " is the frame size of raw input (--size)");
    if (afterInputs && (a == "-r" || a == "-framerate"))
      throw UsageError(a +
                       " after the input is ffmpeg's output frame rate; vidfilter keeps the "
                       "input's timing (to change it, convert with ffmpeg -r before or after). "
                       "Before -i, " +
                       a + " is the rate of raw input or an image sequence (--rate)");
    // Before an -i ffmpeg's -ss, -t, -to, -s, -r and -pix_fmt are that input's alone; vidfilter's
    // are every input's, so among several inputs they would trim or read the others too.
    static const std::map<std::string, std::string> perInput = {
        {"-ss", "--ss"},           {"-t", "-t"},
        {"-to", "--to"},           {"-s", "--size"},
        {"-video_size", "--size"}, {"-r", "--rate"},
        {"-framerate", "--rate"},  {"-pix_fmt", "--input-pix-fmt"}};
    if (auto p = perInput.find(a); p != perInput.end() && inputs > 1 && i < lastInput)
      throw UsageError(a +
                       " before -i is one input's in ffmpeg, and vidfilter's applies to every "
                       "input: with several inputs give " +
                       p->second + " once where all take it, or run them separately");
    if (a == "-hide_banner") continue;             // vidfilter prints no banner
    if (a == "-f" && anyInput && i < lastInput) {  // -f FMT -i SRC: the input's format
      if (inputs > 1)
        throw UsageError(
            "-f before -i names one input's format, and vidfilter takes one for every input: "
            "with several inputs give --input-format FMT where all are that format, leave it out "
            "(formats are found from the inputs), or run them separately");
      out.push_back("--input-format");
    } else if ((a == "-v" || a == "-loglevel") && i + 1 == args.size()) {
      throw UsageError(a +
                       " needs a level (quiet, error, warning, info, verbose, debug), as in "
                       "ffmpeg; vidfilter's own is --log-level");
    } else if ((a == "-v" || a == "-loglevel") && i + 1 < args.size()) {
      // Below info ffmpeg prints no progress line either.
      const std::string level = logLevelOf(args[++i]);
      out.insert(out.end(), {"--log-level", level});
      if (level == "warn" || level == "error" || level == "off") out.push_back("--quiet");
    } else if (auto it = anywhere.find(a); it != anywhere.end()) {
      out.push_back(it->second);
    } else if (auto b = beforeInput.find(a); b != beforeInput.end() && !afterInputs) {
      out.push_back(b->second);
    } else if (a == "-pix_fmt") {
      out.push_back("--pix-fmt");
    } else {
      out.push_back(a);
      // An option's value is never translated ("-i -vf.mp4" reads a file named -vf.mp4).
      if ((a == "-i" || a == "-o" || a == "--input" || a == "--output") && i + 1 < args.size())
        out.push_back(args[++i]);
    }
  }
  return out;
}

void rejectSingleDashWords(const std::vector<std::string>& args,
                           const std::function<bool(const std::string&)>& takesValue,
                           const std::function<bool(const std::string&)>& exists) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return;  // everything after is an argument as written
    const bool option = a.size() >= 2 && a[0] == '-' &&
                        (a[1] == '-' || std::isalpha(static_cast<unsigned char>(a[1])));
    if (!option) continue;  // an argument: a path, "-", a negative number
    if (a[1] == '-' || a.size() == 2) {
      if (a.find('=') == std::string::npos && takesValue(a)) ++i;  // its value, as written
      continue;
    }
    // ffmpeg's words whose double-dash spelling means something else here.
    if (a == "-progress")
      throw UsageError(
          "unknown option '-progress': ffmpeg's -progress URL is its machine-readable report; "
          "vidfilter's --progress is a switch for the progress line on stderr, and --json FILE "
          "writes a report of the run");
    if (a == "-stats")
      throw UsageError(
          "unknown option '-stats': ffmpeg's -stats is its progress line, which vidfilter prints "
          "with --progress (by default on a terminal); --stats FILE writes per-frame timings");
    const std::string dashed = "-" + a;
    throw UsageError("unknown option " + quote(a) +
                     (exists(dashed)
                          ? ": vidfilter spells it " + dashed
                          : ": vidfilter's own options take two dashes and its one-letter "
                            "options stand alone (-i SRC, -o DST, -y); the ffmpeg spellings "
                            "it understands are at the end of vidfilter --help"));
  }
}

}  // namespace vf::app
