#include "app/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "app/camera_mode.hpp"
#include "app/cli_error.hpp"
#include "app/decimal.hpp"
#include "app/ffmpeg_args.hpp"
#include "app/media/hwdec_mode.hpp"
#include "app/option_values.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

// The raw values CLI11 fills; unset ones stay out of Settings.
struct RawOptions {
  std::vector<std::string> inputs, outputs;
  std::string inputsList, json, shard;
  std::int64_t jobs = 0, shards = 0;
  std::string chain, device, stats, codec, logLevel, config, window;
  std::string ss, to, duration, rate, size, inputPixFmt, inputFormat, pixFmt, preset, bitrate,
      format, audioCodec, hwdec, drop;
  double crf = 0;
  std::int64_t frames = 0, slots = 0, threads = 0;
  bool preview = false, noPreview = false, compare = false, noOverlay = false, progress = false,
       noProgress = false, yes = false, no = false, an = false, quiet = false, exitAtEnd = false,
       noFuse = false, fuse = false;
  std::string cameraSize, cameraFps, cameraFormat;
};

using OptionMap = std::map<std::string, CLI::Option*>;

OptionMap declareOptions(CLI::App& app, RawOptions& o, CommandLine& cl) {
  OptionMap m;
  auto opt = [&](const char* names, auto& var, const char* help, const char* type) {
    CLI::Option* x = app.add_option(names, var, help)->type_name(type);
    using T = std::remove_reference_t<decltype(var)>;
    if constexpr (std::is_integral_v<T>) decimal(x);
    if constexpr (std::is_floating_point_v<T>) decimalReal(x);
    m[x->get_name()] = x;
  };
  auto flag = [&](const char* names, bool& var, const char* help) {
    CLI::Option* x = app.add_flag(names, var, help);
    m[x->get_name()] = x;
  };
  opt("-i,--input", o.inputs,
      "cam0, a video file, -, a URL, an image pattern or a GStreamer "
      "pipeline ending in appsink (repeat for several inputs)",
      "SRC");
  opt("--inputs", o.inputsList,
      "a file listing inputs, one path or URL a line, relative paths from the current directory "
      "(lines starting with # are comments; - reads stdin)",
      "LIST");
  opt("--chain", o.chain, "filter chain, e.g. blur=sigma=2,sobel,hist,brightness (-vf)", "CHAIN");
  opt("-o,--output", o.outputs,
      "video file, image pattern (out/frame_%05d.png), - (stdout) or a "
      "URL (udp://, rtmp://, srt://); one per -i, or a name with {name} or {index}",
      "DST");
  opt("--jobs", o.jobs, "several inputs: how many run at once (default: all, at most 8)", "N");
  opt("--json", o.json, "write a JSON summary of the run (per input: frames, fps, errors)", "FILE");
  opt("--shard", o.shard, "vidfilter batch: take share I of N (from 0) of the inputs", "I/N");
  opt("--shards", o.shards,
      "vidfilter batch: N shares, the index from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID "
      "itself",
      "N");
  opt("--config", o.config, "TOML config file (- reads stdin); command-line options override it",
      "FILE");
  opt("-d,--device", o.device,
      "OpenCL device: P:D, gpu, cpu, part of a name (2+ characters); several: all, or a list "
      "(0:0,0:1)",
      "SEL");
  flag("-y,--overwrite", o.yes, "overwrite existing outputs without asking");
  flag("-n,--no-overwrite", o.no, "never overwrite an existing output (exit instead)");
  opt("-f,--format", o.format,
      "output container (muxer) by name: mp4, matroska, mpegts, "
      "yuv4mpegpipe, ... (default: from the name)",
      "FMT");
  opt("--ss", o.ss, "start at this time of the input (frame-exact)", "TIME");
  opt("-t,--duration", o.duration, "process this much of the input", "TIME");
  opt("--to", o.to, "stop at this time of the input", "TIME");
  opt("--frames", o.frames, "stop after N input frames", "N");
  opt("--codec", o.codec,
      "video encoder: libx264, libx265, libvpx-vp9, libsvtav1, ffv1, "
      "mpeg4, ... (-c:v)",
      "NAME");
  opt("--crf", o.crf, "constant quality (x264/x265 0-51, default 23; vp9/av1 0-63)", "Q");
  opt("--preset", o.preset, "encoder speed preset (x264: ultrafast ... medium ... veryslow)",
      "NAME");
  opt("--bitrate", o.bitrate, "target bitrate instead of constant quality, e.g. 4M (-b:v)", "RATE");
  opt("--pix-fmt", o.pixFmt, "output pixel format (default: yuv420p for H.264/H.265/VP9/AV1)",
      "FMT");
  opt("--audio-codec", o.audioCodec,
      "audio: copy (default, re-encoded where the container "
      "cannot take it) or an encoder name (-c:a)",
      "NAME");
  flag("--an", o.an, "drop the audio (-an)");
  opt("--rate", o.rate, "frame rate of an image sequence or raw input (default 25)", "FPS");
  opt("--size", o.size, "frame size of raw video (on stdin, or a file of raw frames)", "WxH");
  opt("--input-pix-fmt", o.inputPixFmt, "pixel format of raw video (default yuv420p)", "FMT");
  opt("--input-format", o.inputFormat,
      "input container (demuxer) by name where its bytes do not tell it: concat, rawvideo, ... "
      "(-f before -i; default: found from the input)",
      "FMT");
  opt("--hwdec", o.hwdec,
      "hardware decoding: none (default), cuvid (NVIDIA's decoders), cuda (NVDEC through FFmpeg's "
      "decoder), vaapi, or auto (the first of those that works)",
      "DEV");
  opt("--threads", o.threads,
      "decoder threads per input (0, the default: FFmpeg's count, the cores up to 16; "
      "several inputs at once: 4/N of the cores each); also caps the threads that "
      "convert each input's decoded 8-bit YUV frames (default: one per 4 cores an input has, "
      "at most 4)",
      "N");
  opt("--drop", o.drop,
      "live sources: oldest (drop when behind; default when only previewing) "
      "or never (default when recording)",
      "WHEN");
  flag("--preview", o.preview,
       "show the preview window (default: when a display exists and no -o)");
  flag("--no-preview", o.noPreview, "never open a window");
  flag("--compare", o.compare, "preview the original beside (or above) the filtered frame");
  flag("--no-overlay", o.noOverlay, "start the preview without its panel of timings");
  opt("--window", o.window, "the preview window's first size (default: fit the screen)", "WxH");
  flag("--exit-at-end", o.exitAtEnd,
       "close the preview at the end of a file (default: wait for q)");
  opt("--slots", o.slots, "frames in flight (pinned host slots, 1..8; default 2)", "N");
  opt("--stats", o.stats, "write per-frame timings as JSON lines to FILE", "FILE");
  flag("--progress", o.progress, "progress line on stderr (default: when stderr is a terminal)");
  flag("--no-progress", o.noProgress, "no progress line");
  opt("--log-level", o.logLevel, "trace, debug, info, warn, error or off (default info)", "LEVEL");
  flag("--quiet", o.quiet, "warnings and errors only: no progress, no summary");
  // One value per -i and -o, as ffmpeg: `-i a b` is not two inputs.
  for (const char* name : {"--input", "--output"}) m[name]->allow_extra_args(false);
  flag("--no-fuse", o.noFuse,
       "run every stage as its own kernels (default on GPUs: point-wise stages and histograms "
       "fused into shared passes, timed together)");
  flag("--fuse", o.fuse, "fuse point-wise stages and histograms on CPU devices too");
  opt("--camera-size", o.cameraSize, "cameras: ask for this frame size", "WxH");
  opt("--camera-fps", o.cameraFps, "cameras: ask for this frame rate", "FPS");
  opt("--camera-format", o.cameraFormat, "cameras: ask for mjpeg or yuyv", "FMT");
  app.add_flag("--list-cameras", cl.listCameras,
               "list cameras (/dev/video*) with their formats, sizes and rates, then exit");
  app.add_flag("--list-devices", cl.listDevices, "list OpenCL platforms and devices, then exit");
  app.add_flag("--list-stages", cl.listStages, "list stages and their parameters, then exit");
  app.add_flag("-V,--version", cl.version, "print the version, then exit");
  return m;
}

bool given(const OptionMap& m, const char* name) { return m.at(name)->count() > 0; }

// `check`'s complaint about option `name`'s value `v`, naming the value as it was typed: CLI11
// reads a number past int64's range as the range's end.
void checkCount(const OptionMap& m, const char* name, std::int64_t v,
                std::string (*check)(std::int64_t)) {
  std::string why = check(v);
  if (why.empty()) return;
  const std::string parsed = std::to_string(v);
  const auto& typed = m.at(name)->results();
  if (!typed.empty() && typed.back() != parsed && why.size() >= parsed.size() &&
      why.compare(why.size() - parsed.size(), parsed.size(), parsed) == 0)
    why = why.substr(0, why.size() - parsed.size()) + printable(typed.back(), 40);
  throw UsageError(std::string(name) + " " + why);
}

template <class T>
T checked(std::optional<T> v, const std::string& option, const std::string& why) {
  if (!v) throw UsageError(option + " " + why);
  return *v;
}

void takeMedia(const OptionMap& m, const RawOptions& o, Settings& s) {
  std::string why;
  if (given(m, "--ss")) s.start = checked(parseTime(o.ss, &why), "--ss", why);
  if (given(m, "--duration")) s.duration = checked(parseTime(o.duration, &why), "-t", why);
  if (given(m, "--to")) s.to = checked(parseTime(o.to, &why), "--to", why);
  if (given(m, "--rate")) s.rate = checked(parseRate(o.rate, &why), "--rate", why);
  if (given(m, "--bitrate")) s.bitrate = checked(parseBitrate(o.bitrate, &why), "--bitrate", why);
  if (given(m, "--size")) {
    if (!checkSize(o.size, &why)) throw UsageError("--size " + why);
    s.size = o.size;
  }
  const std::pair<const char*, std::optional<std::string>*> names[] = {
      {"--codec", &s.codec},
      {"--preset", &s.preset},
      {"--pix-fmt", &s.pixFmt},
      {"--format", &s.format},
      {"--audio-codec", &s.audioCodec},
      {"--input-pix-fmt", &s.inputPixFmt},
      {"--input-format", &s.inputFormat}};
  const std::string* values[] = {&o.codec,      &o.preset,      &o.pixFmt,     &o.format,
                                 &o.audioCodec, &o.inputPixFmt, &o.inputFormat};
  for (std::size_t i = 0; i < std::size(names); ++i) {
    if (!given(m, names[i].first)) continue;
    const bool pixFmt = values[i] == &o.inputPixFmt;
    if (auto w = pixFmt ? checkInputPixFmt(*values[i]) : checkName(*values[i]); !w.empty())
      throw UsageError(std::string(names[i].first) + " " + w);
    *names[i].second = *values[i];
  }
  if (given(m, "--crf")) {
    if (auto w = checkCrf(o.crf); !w.empty()) throw UsageError("--crf " + w);
    s.crf = o.crf;
  }
  if (given(m, "--hwdec")) {
    if (auto w = media::checkHwdecMode(o.hwdec); !w.empty()) throw UsageError("--hwdec " + w);
    s.hwdec = o.hwdec;
  }
  if (given(m, "--drop")) {
    if (auto w = checkDrop(o.drop); !w.empty()) throw UsageError("--drop " + w);
    s.drop = o.drop;
  }
  if (given(m, "--overwrite") && given(m, "--no-overwrite"))
    throw UsageError("-y and -n contradict each other; give one");
  if (given(m, "--overwrite")) s.overwrite = true;
  if (given(m, "--no-overwrite")) s.overwrite = false;
  if (given(m, "--an")) s.audio = false;
  if (given(m, "--quiet")) s.quiet = true;
  if (given(m, "--fuse") && given(m, "--no-fuse"))
    throw UsageError("--fuse and --no-fuse contradict each other; give one");
  if (given(m, "--fuse")) s.fuse = true;
  if (given(m, "--no-fuse")) s.fuse = false;
  if (s.duration && s.to) throw UsageError("-t and --to both say where to stop; give one");
  if (s.crf && s.bitrate) throw UsageError("--crf and --bitrate contradict each other; give one");
}

// -i and -o once: `input` and `output`, as always; repeated: `inputs` and `outputs`.
void takeInputs(const OptionMap& m, const RawOptions& o, Settings& s) {
  for (const auto& i : o.inputs)
    if (i.empty())
      throw UsageError("--input is empty; give a file, cam0, a URL or a GStreamer pipeline");
  for (const auto& out : o.outputs)
    if (out.empty())
      throw UsageError("--output is empty; give a file name or leave the option out");
  if (o.inputs.size() == 1 && !given(m, "--inputs")) s.input = o.inputs[0];
  if (o.inputs.size() > 1 || (given(m, "--inputs") && !o.inputs.empty())) s.inputs = o.inputs;
  if (o.outputs.size() == 1 && !s.inputs && !given(m, "--inputs")) s.output = o.outputs[0];
  if (o.outputs.size() > 1 || ((s.inputs || given(m, "--inputs")) && !o.outputs.empty()))
    s.outputs = o.outputs;
  if (given(m, "--inputs")) {
    if (o.inputsList.empty()) throw UsageError("--inputs is empty; give a file listing inputs");
    s.inputsList = o.inputsList;
  }
  if (given(m, "--json")) {
    if (o.json.empty()) throw UsageError("--json is empty; give a file name (- for stdout)");
    s.jsonPath = o.json;
  }
  if (given(m, "--jobs")) {
    checkCount(m, "--jobs", o.jobs, checkJobs);
    s.jobs = static_cast<int>(o.jobs);
  }
}

void takeCamera(const OptionMap& m, const RawOptions& o, Settings& s) {
  std::string why;
  if (given(m, "--camera-size")) {
    checked(parseCameraSize(o.cameraSize, &why), "--camera-size", why);
    s.cameraSize = o.cameraSize;
  }
  if (given(m, "--camera-fps"))
    s.cameraFps = checked(parseCameraFps(o.cameraFps, &why), "--camera-fps", why);
  if (given(m, "--camera-format"))
    s.cameraFormat = checked(parseCameraFormat(o.cameraFormat, &why), "--camera-format", why);
}

void takeRest(const OptionMap& m, const RawOptions& o, Settings& s) {
  takeInputs(m, o, s);
  if (given(m, "--chain")) s.chain = o.chain;
  if (given(m, "--device")) s.device = o.device;
  if (given(m, "--preview") && given(m, "--no-preview"))
    throw UsageError("--preview and --no-preview contradict each other; give one");
  if (given(m, "--progress") && given(m, "--no-progress"))
    throw UsageError("--progress and --no-progress contradict each other; give one");
  if (given(m, "--quiet") && given(m, "--progress"))
    throw UsageError("--quiet (no progress line) and --progress contradict each other; give one");
  if (given(m, "--preview")) s.preview = true;
  if (given(m, "--no-preview")) s.preview = false;
  if (given(m, "--compare")) s.compare = o.compare;
  if (given(m, "--no-overlay")) s.overlay = false;
  if (given(m, "--exit-at-end")) s.exitAtEnd = true;
  if (given(m, "--window")) {
    if (auto why = checkWindow(o.window); !why.empty()) throw UsageError("--window " + why);
    s.window = o.window;
  }
  if (given(m, "--stats")) s.statsPath = o.stats;
  if (given(m, "--progress")) s.progress = true;
  if (given(m, "--no-progress")) s.progress = false;
  if (given(m, "--frames")) {
    checkCount(m, "--frames", o.frames, checkFrames);
    s.frames = o.frames;
  }
  if (given(m, "--slots")) {
    checkCount(m, "--slots", o.slots, checkSlots);
    s.slots = static_cast<int>(o.slots);
  }
  if (given(m, "--threads")) {
    checkCount(m, "--threads", o.threads, checkThreads);
    s.threads = static_cast<int>(o.threads);
  }
  if (given(m, "--log-level")) {
    if (auto why = checkLogLevel(o.logLevel); !why.empty()) throw UsageError("--log-level " + why);
    s.logLevel = o.logLevel;
  }
  if (s.input && s.input->empty())
    throw UsageError("--input is empty; give a file, cam0, a URL or a GStreamer pipeline");
  if (s.chain && s.chain->find_first_not_of(" \t") == std::string::npos)
    throw UsageError(
        "--chain is empty; give at least one stage, e.g. --chain blur,sobel "
        "(vidfilter --list-stages lists them)");
  if (s.output && s.output->empty())
    throw UsageError("--output is empty; give a file name or leave the option out");
  // Any other option given an empty value ('' from a script's unset variable).
  for (const auto& [name, opt] : m)
    if (opt->get_items_expected_min() > 0)
      for (const std::string& v : opt->results())
        if (v.empty())
          throw UsageError(name +
                           " is empty; give a value (vidfilter --help says which) or leave "
                           "the option out");
}

void takeShard(const OptionMap& m, const RawOptions& o, CommandLine& cl) {
  for (const char* name : {"--shard", "--shards"})
    if (given(m, name) && !cl.batch)
      throw UsageError(std::string(name) +
                       " shares a list of inputs between the tasks of a job array: it belongs "
                       "to vidfilter batch --inputs LIST " +
                       name + " ...");
  if (given(m, "--shard") && given(m, "--shards"))
    throw UsageError("--shard I/N and --shards N both say how to share; give one");
  if (given(m, "--shard")) cl.shard = o.shard;
  if (given(m, "--shards")) {
    if (o.shards < 1 || o.shards > 1000000)
      throw UsageError("--shards must be a positive number of shares, got " +
                       std::to_string(o.shards));
    cl.shards = static_cast<int>(o.shards);
  }
}

}  // namespace

CommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out) {
  CommandLine cl;
  CLI::App app{"vidfilter: real-time video filtering with OpenCL (cameras, streams, files)",
               "vidfilter"};
  app.footer(helpFooter());
  app.get_formatter()->column_width(30);
  RawOptions o;
  const OptionMap m = declareOptions(app, o, cl);

  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "batch") {
    cl.batch = true;
    args.erase(args.begin());
  }
  args = translateFfmpegSpellings(args);
  rejectSingleDashWords(
      args,
      [&](const std::string& name) {
        const CLI::Option* opt = app.get_option_no_throw(name);
        return opt && opt->get_items_expected_min() > 0;  // a flag's next word is its own
      },
      [&](const std::string& name) { return app.get_option_no_throw(name) != nullptr; });
  // --name= with nothing after '=': CLI11 would take the next word as its value. A switch with
  // any value (--overwrite=false): CLI11 would read the value, and the switch count as given.
  for (const std::string& a : args) {
    if (a == "--") break;
    const std::size_t eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const std::string name = a.substr(0, eq);
    const CLI::Option* opt = app.get_option_no_throw(name);
    if (!opt) continue;
    if (opt->get_items_expected_min() == 0)
      throw UsageError(name + " is a switch and takes no value; write " + name +
                       " alone, or leave it out");
    if (eq + 1 == a.size())
      throw UsageError(a + " has no value after '='; give one (" + a + "VALUE)");
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    if (cl.batch) {  // its own usage line in place of the main program's
      std::string help = app.help();
      const std::size_t usage = help.find("Usage: vidfilter [OPTIONS]\n");
      if (usage != std::string::npos) help.erase(usage, help.find('\n', usage) + 1 - usage);
      out << batchHelpHeader() << help;
    } else {
      out << app.help();
    }
    cl.exitNow = true;
    return cl;
  } catch (const CLI::ParseError& e) {
    // A stray word beside an input and no output is most often the output, written as ffmpeg
    // takes it; without an input, the input.
    const bool hasInput = m.at("--input")->count() > 0, hasOutput = m.at("--output")->count() > 0;
    throw UsageError(describeParseError(
        app, e,
        {"vidfilter --help", !hasInput ? " (the input is given as -i SRC)"
                             : !hasOutput
                                 ? " (the output is given as -o OUT)"
                                 : " (the input is given as -i SRC, the output as -o OUT)"}));
  }
  takeRest(m, o, cl.settings);
  takeMedia(m, o, cl.settings);
  takeShard(m, o, cl);
  takeCamera(m, o, cl.settings);
  cl.configPath = o.config;
  return cl;
}

}  // namespace vf::app
