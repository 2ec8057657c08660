#include "app/bench/job_bench.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <tuple>

#include "app/bench/job_parts.hpp"
#include "app/bench/result_path.hpp"
#include "app/bench/scratch_dir.hpp"
#include "app/cli_error.hpp"
#include "app/decimal.hpp"
#include "app/interrupt.hpp"
#include "app/media/atomic_file.hpp"
#include "app/media/av.hpp"
#include "app/media/demuxer.hpp"
#include "app/media/frame_convert.hpp"
#include "app/media/hwdec.hpp"
#include "app/media/hwdec_mode.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::bench {

namespace {

namespace fs = std::filesystem;

// The same job as ffmpeg filters: gray -> format=gray, blur -> gblur, sobel -> sobel; nothing
// when a stage has no ffmpeg counterpart.
std::optional<std::string> ffmpegFilters(const std::string& chainText, std::string* why) {
  const Chain chain = Chain::parse(chainText);
  std::string vf;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const Stage& s = chain.stage(i);
    std::string f;
    if (s.name() == "gray") {
      f = "format=gray";
    } else if (s.name() == "blur") {
      char sigma[32];
      std::snprintf(sigma, sizeof sigma, "%g", s.params().number("sigma"));
      f = std::string("gblur=sigma=") + sigma;
    } else if (s.name() == "sobel") {
      f = "sobel";
    } else {
      *why = "stage " + s.name() + " has no ffmpeg filter here";
      return std::nullopt;
    }
    vf += (vf.empty() ? "" : ",") + f;
  }
  return vf;
}

// Runs a command (no shell) and returns its wall time, or nothing when it fails.
std::optional<double> timeCommand(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ScratchDirectory::setChild(pid);
  int status = 0;
  pid_t reaped = 0;
  do {  // a signal interrupts the wait (no SA_RESTART): wait on until the command has ended
    reaped = ::waitpid(pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  ScratchDirectory::setChild(0);
  if (reaped != pid) return std::nullopt;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Options {
  JobSetup setup;
  std::string device, json, preset, pixFmt, codec = "libx264";
  double crf = -1;  // read when --crf is given
  bool overwrite = false;
  bool noFfmpeg = false;
  bool noHwPeer = false;  // hardware decoding fell back: the ffmpeg peer decodes in software
};

// What the user wrote is shown through printable(): a name's control characters never reach
// the terminal.
std::string describeSetup(const Options& o, const std::string& device) {
  const auto& e = o.setup.encoder;
  return "input " + printable(o.setup.input) + ", chain " + printable(o.setup.chain) + ", " +
         std::to_string(o.setup.frames) + " frames, encoder " + printable(e.codec) +
         (e.preset.empty() ? "" : " preset " + printable(e.preset)) +
         (e.crf ? " crf " + std::to_string(static_cast<int>(*e.crf)) : "") +
         (e.pixFmt.empty() ? "" : " " + printable(e.pixFmt)) + ", device " + device + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " cores";
}

void printRow(const PartResult& r) {
  std::printf("  %-50s %7d %9.3f %9.1f\n", r.name.c_str(), r.frames, r.seconds, r.fps());
}

// `s` as one word a POSIX shell reads back as it is: the printed command can be pasted (an
// input named "a b;rm x.mp4" stays one argument).
std::string shellWord(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./:=,+@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> ffmpegArgs(const Options& o, const std::string& vf,
                                    const std::string& out) {
  const auto& e = o.setup.encoder;
  std::vector<std::string> a = {"ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-y"};
  if (o.noHwPeer) {                       // the program decoded in software: so does its peer
  } else if (o.setup.hwdec == "cuvid") {  // NVIDIA's decoder for the input's codec, as vidfilter's
    media::DemuxRequest in;
    in.url = in.shown = o.setup.input;
    const media::Demuxer d(in);
    std::string why;
    if (const AVCodec* c = media::cuvidDecoder(d.video()->codecpar->codec_id, &why))
      a.insert(a.end(), {"-c:v", c->name});
  } else if (o.setup.hwdec != "none") {
    a.insert(a.end(), {"-hwaccel", o.setup.hwdec});
  }
  a.insert(a.end(), {"-i", o.setup.input, "-frames:v", std::to_string(o.setup.frames), "-an", "-vf",
                     vf, "-c:v", e.codec, "-pix_fmt", e.pixFmt.empty() ? "yuv420p" : e.pixFmt});
  if (!e.preset.empty()) a.insert(a.end(), {"-preset", e.preset});
  if (e.crf) a.insert(a.end(), {"-crf", std::to_string(*e.crf)});
  a.push_back(out);
  return a;
}

// The same job through the ffmpeg command, when its filters can say the chain; else `why` not.
std::optional<PartResult> ffmpegPeer(const Options& o, const fs::path& dir, std::string* why,
                                     std::string* command) {
  if (o.noFfmpeg) {
    *why = "--no-ffmpeg";
    return std::nullopt;
  }
  const auto vf = ffmpegFilters(o.setup.chain, why);
  if (!vf) return std::nullopt;
  const auto args = ffmpegArgs(o, *vf, (dir / "ffmpeg.mkv").string());
  for (const auto& a : args) *command += (command->empty() ? "" : " ") + shellWord(a);
  if (auto t = timeCommand(args)) return PartResult{"ffmpeg -vf " + *vf, o.setup.frames, *t};
  *why = "the ffmpeg command failed or is not installed";
  return std::nullopt;
}

void writeJson(const std::string& path, const std::string& setup,
               const std::vector<PartResult>& parts, double overlap) {
  nlohmann::ordered_json partsJson = nlohmann::ordered_json::array();
  for (const auto& p : parts)
    partsJson.push_back(
        {{"name", p.name}, {"frames", p.frames}, {"seconds", p.seconds}, {"fps", p.fps()}});
  const nlohmann::ordered_json j{{"setup", setup}, {"parts", partsJson}, {"overlap", overlap}};
  media::writeTextAtomically(path, j.dump() + "\n", "--json");
}

int run(Options& o) {
  o.setup.encoder.codec = o.codec;
  o.setup.encoder.preset = o.preset;
  o.setup.encoder.pixFmt = o.pixFmt;
  const ScratchDirectory scratch;
  const fs::path& dir = scratch.path();
  std::error_code ec;
  if (!fs::is_regular_file(o.setup.input, ec))
    throw app::UsageError("--input " + quote(o.setup.input) +
                          (fs::exists(o.setup.input, ec) ? " is not a file" : " does not exist") +
                          "; give a video file");
  checkResultPath(o.json, {o.setup.input}, {o.setup.chain}, o.overwrite);
  auto cl = ClContext::open(o.device);
  app::keepSigquitDefault();  // SIGQUIT quits, whatever the CPU device's compiler installed
  std::printf("vidfilter bench --input: %s\n", describeSetup(o, cl->info().name).c_str());
  std::printf(
      "method: each part alone on the same frames, then the whole job as vidfilter -i -o runs "
      "it (decode threads, the engine, the encoder's own thread, all at once), then the same job "
      "through the ffmpeg command; wall time from the first frame to the output closed (opening "
      "and kernel builds left out; the ffmpeg command's whole run); output files in %s\n",
      dir.c_str());

  std::vector<PartResult> parts;
  ResidentFrames decoded, filtered;
  parts.push_back(decodeOnly(o.setup, "none", &decoded));
  std::optional<PartResult> oneThread;  // the conversion's threads against one, same frames
  if (o.setup.convertThreads > 1 && !chainStartsWithGray(o.setup.chain)) {
    JobSetup one = o.setup;
    one.convertThreads = 1;
    oneThread = decodeOnly(one, "none", nullptr);
  }
  if (o.setup.hwdec != "none") {
    parts.push_back(decodeOnly(o.setup, o.setup.hwdec, nullptr));
    if (parts.back().hwFellBack) o.noHwPeer = true;  // ffmpeg would fail the same way
  }
  if (parts[0].frames < o.setup.frames) {
    std::printf("note: %s holds %d frames, fewer than --frames %d: every part times those %d\n",
                quote(o.setup.input).c_str(), parts[0].frames, o.setup.frames, parts[0].frames);
    o.setup.frames = parts[0].frames;
  }
  parts.push_back(chainOnly(o.setup, cl, decoded, &filtered));
  parts.push_back(encodeOnly(o.setup, filtered, (dir / "encode_only.mkv").string()));
  const PartResult slowest = *std::min_element(parts.begin(), parts.end(),
                                               [](auto& a, auto& b) { return a.fps() < b.fps(); });
  if (oneThread) parts.insert(parts.begin() + 1, *oneThread);  // not a part of the job
  const PartResult whole = wholeJob(o.setup, cl, "none", (dir / "whole.mkv").string());
  parts.push_back(whole);
  std::optional<PartResult> hwWhole;
  if (o.setup.hwdec != "none") {
    hwWhole = wholeJob(o.setup, cl, o.setup.hwdec, (dir / "whole_hw.mkv").string());
    parts.push_back(*hwWhole);
  }
  std::string why, command;
  const std::optional<PartResult> peer = ffmpegPeer(o, dir, &why, &command);
  if (peer) parts.push_back(*peer);
  scratch.holdIfStopped();  // a stop ends the run with no results, the command's failure none

  std::printf("  %-50s %7s %9s %9s\n", "part", "frames", "seconds", "fps");
  for (const auto& p : parts) printRow(p);
  std::printf("whole job / slowest part alone (%s): %.2f (overlap: 1.00 would be perfect)\n",
              slowest.name.c_str(), whole.fps() / slowest.fps());
  if (peer)
    std::printf("whole job / ffmpeg: %.2fx\nffmpeg command: %s\n", whole.fps() / peer->fps(),
                command.c_str());
  else
    std::printf("ffmpeg peer: not run (%s)\n", why.c_str());
  if (!o.json.empty())
    writeJson(o.json, describeSetup(o, cl->info().name), parts, whole.fps() / slowest.fps());
  return 0;
}

}  // namespace

int jobBenchMain(int argc, char** argv) {
  CLI::App app{
      "vidfilter bench --input: a file job end to end, each part alone, and the same "
      "job through ffmpeg",
      "vidfilter bench"};
  app.footer(
      "Example (1080p H.264 in and out):\n"
      "  ffmpeg -i vtest.avi -vf scale=1920:1080 -c:v libx264 -crf 18 in1080.mp4\n"
      "  vidfilter bench --input in1080.mp4 --chain gray,blur,sobel --frames 300\n"
      "  vidfilter bench --input in1080.mp4 --hwdec cuvid    (software and NVDEC in one run)\n"
      "Exit status: 0 ok, 1 error, 2 usage, 128 + the signal when stopped by one (the scratch "
      "files removed).");
  Options o;
  o.setup.convertThreads = media::convertThreadsEach(1, 0);
  o.setup.chain = "gray,blur,sobel";
  app.add_option("--input", o.setup.input, "the video file (required)")->required();
  app.add_option("--chain", o.setup.chain, "the chain")->capture_default_str();
  app::decimal(app.add_option("--frames", o.setup.frames, "frames per part"))
      ->capture_default_str();
  app::decimal(app.add_option("--resident", o.setup.resident, "distinct frames held in memory"))
      ->capture_default_str();
  app.add_option("--codec", o.codec, "video encoder")->capture_default_str();
  CLI::Option* crf =
      app.add_option("--crf", o.crf, "encoder constant quality (default: the encoder's)")
          ->type_name("NUMBER");
  app.add_option("--preset", o.preset, "encoder preset (default: the encoder's)");
  app.add_option("--pix-fmt", o.pixFmt, "output pixel format (default yuv420p)");
  app.add_option("--hwdec", o.setup.hwdec, "also decode on cuvid, cuda or vaapi (both in one run)")
      ->capture_default_str()
      ->check([](const std::string& v) { return media::checkHwdecMode(v); });
  app::decimal(app.add_option("--slots", o.setup.slots, "engine slots"))->capture_default_str();
  app.add_option("--device", o.device, "OpenCL device: P:D, gpu, cpu or a name substring");
  app.add_option("--json", o.json, "write the numbers to this JSON file");
  app.add_flag("-y,--overwrite", o.overwrite, "replace an existing --json file");
  app.add_flag("--no-ffmpeg", o.noFfmpeg, "skip the ffmpeg command");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "vidfilter bench: %s\n",
                 app::describeParseError(app, e, {"vidfilter bench --input x --help", ""}).c_str());
    return 2;
  }
  if (crf->count() > 0) {
    if (const std::string why = app::checkCrf(o.crf); !why.empty()) {
      std::fprintf(stderr, "vidfilter bench: --crf %s; got %s\n", why.c_str(),
                   quote(crf->results().empty() ? "" : crf->results().back()).c_str());
      return 2;
    }
    o.setup.encoder.crf = o.crf;
  }
  for (const auto& [name, value, most] : {std::tuple{"--frames", o.setup.frames, INT_MAX},
                                          std::tuple{"--resident", o.setup.resident, INT_MAX},
                                          std::tuple{"--slots", o.setup.slots, 8}})
    if (value < 1 || value > most) {
      std::fprintf(stderr, "vidfilter bench: %s must be %s; got %d\n", name,
                   most == 8 ? "in [1, 8]" : "at least 1", value);
      return 2;
    }
  spdlog::set_level(spdlog::level::warn);
  media::routeLogs();
  try {
    return run(o);
  } catch (const UserError& e) {
    std::fprintf(stderr, "vidfilter bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vidfilter bench: %s\n", e.what());
  }
  return 1;
}

}  // namespace vf::bench
