// vidfilter bench: per-stage device times of a chain, next to the same chain done with OpenCV on
// the CPU (cv::Mat) and through OpenCV's T-API (cv::UMat), in one run; optionally a check of
// every stage against OpenCV (--check), and the engine's throughput. The command line and the
// order of the run here; the timings in timing.cpp and peers.cpp, the output in report.cpp.
//
// Links OpenCV core and imgproc only (no videoio/highgui), so `vidfilter-bench` runs on hosts
// that lack OpenCV's video and GUI libraries.
#include "app/bench/bench.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core/utility.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "app/bench/check.hpp"
#include "app/bench/cv_peer.hpp"
#include "app/bench/engine_bench.hpp"
#include "app/bench/enqueue_cost.hpp"
#include "app/bench/fusion_bench.hpp"
#include "app/bench/job_bench.hpp"
#include "app/bench/peers.hpp"
#include "app/bench/report.hpp"
#include "app/bench/result_path.hpp"
#include "app/bench/size_table.hpp"
#include "app/bench/timing.hpp"
#include "app/cli_error.hpp"
#include "app/decimal.hpp"
#include "app/interrupt.hpp"
#include "app/log_pattern.hpp"
#include "app/mat_view.hpp"
#include "app/media/atomic_file.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::bench {

namespace {

struct Options {
  std::string chain;
  std::string size = "1920x1080";
  std::string format = "bgr";
  int frames = 100;
  int warmup = 10;
  int distinct = 4;
  std::string device;
  std::string json;
  bool check = false;
  bool overwrite = false;
  bool noTapi = false;
  bool noEngine = false;
  int cvThreads = -1;
  int slots = 3;
  int engineFrames = 0;  // 0: derived from the frame size
  bool enqueueCost = false;
  bool table = false;
  TableOptions tableOptions;
  std::vector<std::string> chains, sizes, formats;  // --table's lists as written
  bool sizeGiven = false, formatGiven = false;      // --size, --format on the command line
  bool cvThreadsGiven = false, jsonGiven = false, framesGiven = false;
  bool noPeers = false;  // --no-peers (tableOptions.peers = !noPeers)
};

PixelFormat parseFormat(const std::string& f) {
  if (f == "gray") return PixelFormat::Gray8;
  if (f == "bgr") return PixelFormat::BGR8;
  if (f == "bgra") return PixelFormat::BGRA8;
  throw UserError("--format must be gray, bgr or bgra, got " + quote(f));
}

FrameDesc checkedFrame(const Options& o) {
  int w = 0, h = 0;
  if (!parseSize(o.size, &w, &h))
    throw UserError("--size must be WxH (e.g. 1920x1080), got " + quote(o.size));
  if (o.frames < 1) throw UserError("--frames must be at least 1");
  if (o.warmup < 0) throw UserError("--warmup must be 0 or more");
  const FrameDesc d{w, h, parseFormat(o.format)};
  if (double(w) * double(h) * d.channels() > 4.0 * (1 << 30))
    throw UserError("--size " + o.size + " makes frames of more than 4 GiB; give a smaller size");
  if (o.slots < 1 || o.slots > 8)
    throw UserError("--slots must be in [1, 8], got " + std::to_string(o.slots));
  // The distinct frames are held in memory at once: at most 4 GiB of them.
  if (o.distinct < 1 || double(o.distinct) * double(d.bytes()) > 4.0 * (1 << 30))
    throw UserError("--distinct must be at least 1 and hold at most 4 GiB of frames (" +
                    std::to_string((4ull << 30) / d.bytes()) + " of " + o.size + "), got " +
                    std::to_string(o.distinct));
  if (o.cvThreadsGiven && (o.cvThreads < 0 || o.cvThreads > 1024))
    throw UserError("--cv-threads must be in [0, 1024], got " + std::to_string(o.cvThreads));
  if (o.jsonGiven && o.json.empty())
    throw UserError("--json is empty; give a file name, or leave the option out");
  return d;
}

// The elements of a list option (given once or more, each value a `sep`-separated list), each
// required: "gray;;blur" names its empty second element.
std::vector<std::string> listOf(const std::vector<std::string>& values, char sep,
                                const char* option) {
  std::vector<std::string> items;
  for (const std::string& text : values)
    for (std::size_t at = 0, n = 1;; ++n) {
      const std::size_t end = text.find(sep, at);
      items.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
      if (items.back().empty())
        throw UserError(std::string(option) + ": element " + std::to_string(n) + " of " +
                        quote(text) + " is empty; separate the elements with one '" + sep + "'");
      if (end == std::string::npos) break;
      at = end + 1;
    }
  return items;
}

// --table's options, every list element checked.
TableOptions tableOptionsOf(const Options& o) {
  TableOptions t = o.tableOptions;
  t.peers = !o.noPeers;
  t.frames = o.frames;
  t.warmup = o.warmup;
  t.distinct = o.distinct;
  t.json = o.json;
  t.chains =
      o.chains.empty() ? std::vector<std::string>{o.chain} : listOf(o.chains, ';', "--chains");
  t.sizes = o.sizes.empty() ? std::vector<std::string>{o.size} : listOf(o.sizes, ',', "--sizes");
  t.formats =
      o.formats.empty() ? std::vector<std::string>{o.format} : listOf(o.formats, ',', "--formats");
  checkTable(t);
  return t;
}

// Uniform random frames, several distinct ones rotated so caches do not flatter.
std::vector<cv::Mat> randomFrames(const FrameDesc& d, int count) {
  std::vector<cv::Mat> frames;
  for (int k = 0; k < count; ++k) {
    cv::Mat m = app::makeMat(d);
    cv::RNG rng(0x5eed + k);
    rng.fill(m, cv::RNG::UNIFORM, 0, 256);
    frames.push_back(m);
  }
  return frames;
}

// Bytes a stage must read and write (its input and output frames once; the blur's passes also
// their 16-bit intermediate) over its median time.
std::vector<BandwidthRow> bandwidthRows(const Chain& chain, const VfTimes& vt,
                                        const std::vector<StageResult>& stages) {
  std::vector<BandwidthRow> bw;
  FrameDesc cur = chain.input();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const FrameDesc outD = chain.stageOutputs()[i];
    const std::string name = std::to_string(i + 1) + " " + chain.stage(i).name();
    const double inB = double(cur.bytes()),
                 outB = chain.stage(i).passthrough() ? 0.0 : double(outD.bytes());
    if (chain.stage(i).name() == "blur" && !vt.firstMs[i].empty()) {
      // Two passes through a 16-bit intermediate (the cpu kernel, blur.cl): rows, then columns.
      const double mid = 2.0 * double(cur.bytes());
      bw.push_back({name + " pass 1", inB + mid, summarize(vt.firstMs[i]).median});
      bw.push_back({name + " pass 2", mid + outB, summarize(vt.lastMs[i]).median});
    }
    bw.push_back({name, inB + outB, stages[i].vf.median});
    cur = outD;
  }
  return bw;
}

std::vector<CvStageSpec> specsOf(const Results& r) {
  std::vector<CvStageSpec> specs;
  for (const StageResult& s : r.stages) specs.push_back(s.spec);
  return specs;
}

// The chain on the device and through OpenCV's peers, summarized into `r`.
void timeChain(ClContext& cl, Chain& chain, const std::vector<cv::Mat>& frames, const Runs& runs,
               Results& r) {
  const VfTimes vt = timeVidfilter(cl, chain, frames, runs);
  const std::vector<CvStageSpec> specs = specsOf(r);
  const PeerTimes ct = timeCpu(specs, frames, runs);
  std::optional<PeerTimes> tt;
  if (r.tapi.on) tt = timeTapi(specs, frames, runs);
  r.tapiTimed = tt.has_value();
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    r.stages[i].vf = summarize(vt.stageMs[i]);
    r.stages[i].cpu = summarize(ct.stageMs[i]);
    if (tt) r.stages[i].tapi = summarize(tt->stageMs[i]);
  }
  r.span = summarize(vt.spanMs);
  r.wall = summarize(vt.wallMs);
  r.cpuChain = summarize(ct.chainMs);
  if (tt) r.tapiChain = summarize(tt->chainMs);
  r.copy = summarize(vt.copyMs);
  r.bandwidth = bandwidthRows(chain, vt, r.stages);
}

Results describeRun(ClContext& cl, const Chain& chain, const Options& o) {
  Results r;
  r.chain = chain.str();
  r.chainText = o.chain;
  r.frame = chain.input();
  r.device = cl.info();
  r.warmup = o.warmup;
  r.frames = o.frames;
  r.distinct = o.distinct;
  r.slots = o.slots;
  const std::vector<std::string> timing = chain.timingNames();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const CvStageSpec peer = cvSpecOf(chain.stage(i));
    checkPeerTakes(peer, i == 0 ? chain.input() : chain.stageOutputs()[i - 1]);
    r.stages.push_back({peer, chain.stage(i).schedule(), chain.enabled(i), {}, {}, {}, timing[i]});
  }
  return r;
}

int run(const Options& o) {
  const FrameDesc desc = checkedFrame(o);
  checkResultPath(
      o.json, {},
      o.chains.empty() ? std::vector<std::string>{o.chain} : listOf(o.chains, ';', "--chains"),
      o.overwrite);
  if (o.cvThreadsGiven) cv::setNumThreads(o.cvThreads);
  // What the user wrote is checked before the device opens (exit 2).
  // Options another mode would silently ignore.
  if (o.enqueueCost && (!o.chain.empty() || o.table || !o.chains.empty()))
    throw UserError(
        "--enqueue-cost times single OpenCL calls, no chain; leave out --chain, --chains and "
        "--table, or time the chain without --enqueue-cost");
  if (o.enqueueCost && (o.jsonGiven || o.sizeGiven || o.formatGiven || o.framesGiven))
    throw UserError(
        "--enqueue-cost times single OpenCL calls (2000 of each) and prints a table; leave out "
        "--json, --size, --format and --frames");
  if (o.check && (o.enqueueCost || o.table))
    throw UserError(
        std::string("--check checks one chain on one frame size (--chain, --size); ") +
        (o.enqueueCost ? "--enqueue-cost runs no chain" : "--table times many and checks none") +
        ": leave out --check, or check each chain with --chain and --size");
  // One of each given with its list: the list alone would be timed.
  for (const auto& [one, list, given] :
       {std::tuple{"--chain", "--chains", !o.chain.empty() && !o.chains.empty()},
        std::tuple{"--size", "--sizes", o.sizeGiven && !o.sizes.empty()},
        std::tuple{"--format", "--formats", o.formatGiven && !o.formats.empty()}})
    if (given)
      throw UserError(std::string(one) + " and " + list + " both given; put every value in " +
                      list + " (--table times the lists)");
  if (!o.table && (!o.chains.empty() || !o.sizes.empty() || !o.formats.empty()))
    throw UserError(
        "--chains, --sizes and --formats are lists for --table; add --table, or give one "
        "--chain, --size and --format");
  if (!o.table && (o.noPeers || o.tableOptions.packedRows))
    throw UserError(std::string(o.noPeers ? "--no-peers" : "--packed-rows") +
                    " is for --table; add --table, or leave it out");
  const TableOptions table = o.table ? tableOptionsOf(o) : TableOptions{};
  const bool timesChain = !o.enqueueCost && !o.table;
  if (timesChain && o.chain.empty())
    throw UserError("--chain is required (e.g. --chain blur,sobel)");
  Chain chain = timesChain ? Chain::parse(o.chain) : Chain();
  app::rememberSigquit();
  auto cl = ClContext::open(o.device);
  app::keepSigquitDefault();  // SIGQUIT quits, whatever the CPU device's compiler installed
  if (o.enqueueCost) return benchEnqueueCost(*cl);
  if (o.table) return runTable(*cl, table);
  chain.configure(*cl, desc);
  Results r = describeRun(*cl, chain, o);
  r.tapi = setUpTapi(r.device, o.noTapi);
  const std::vector<cv::Mat> frames = randomFrames(desc, o.distinct);

  printMethod(r);
  timeChain(*cl, chain, frames, Runs{o.warmup, o.frames}, r);
  printTimes(r);
  r.fusion = compareFusion(*cl, o.chain, desc, frames, o.warmup, o.frames);
  printFusion(r);
  if (!o.noEngine) {
    // Enough frames for a steady state, bounded for slow devices: ~2 GB of frames moved.
    const int n = o.engineFrames > 0
                      ? o.engineFrames
                      : static_cast<int>(std::clamp<double>(2e9 / double(desc.bytes()), 50, 2000));
    r.engine = benchEngine(*cl, o.chain, desc.width, desc.height, desc.format, n, o.slots);
  }
  printEngine(r);
  if (o.check) {
    r.check = runCheck(*cl, o.chain, specsOf(r), frames);
    printCheck(r);
  }
  if (!o.json.empty()) media::writeTextAtomically(o.json, toJson(r).dump() + "\n", "--json");
  return !r.check || r.check->passed() ? 0 : 3;
}

}  // namespace

int benchMain(int argc, char** argv) {
  // Logs on stderr, as the program's (stdout carries the tables).
  spdlog::set_default_logger(spdlog::stderr_color_mt("vidfilter-bench"));
  app::setLogPattern("vidfilter bench: %^%l%$: %*");
  for (int i = 1; i < argc; ++i)  // a file job: its own benchmark (app/bench/job_bench.cpp)
    if (std::string(argv[i]) == "--input" || std::string(argv[i]).rfind("--input=", 0) == 0)
      return jobBenchMain(argc, argv);
  CLI::App app{
      "vidfilter bench: per-stage device time of a chain next to OpenCV on the CPU and through "
      "its T-API, in one run",
      "vidfilter bench"};
  app.footer(
      "Examples:\n"
      "  vidfilter bench --chain blur,sobel,hist,brightness --size 3840x2160\n"
      "  vidfilter bench --chain gray,blur,sobel,hist,brightness --size 1920x1080 --check "
      "--json out.json\n"
      "  vidfilter bench --input video.mp4 --chain blur,sobel   (a file job: decode, chain, "
      "encode, against ffmpeg; its options: vidfilter bench --input x --help)\n"
      "Exit status: 0 ok, 1 error, 2 usage, 3 --check found a stage off by more than its limit "
      "(0 for the exact stages and histograms, 1 where float rounding may move a level).");
  Options o;
  app.add_option("--chain", o.chain, "the chain, e.g. blur=sigma=2,sobel (required)");
  app.add_option("--size", o.size, "frame size WxH")->capture_default_str();
  app.add_option("--format", o.format, "input format: gray, bgr or bgra")->capture_default_str();
  app::decimal(app.add_option("--frames", o.frames, "timed runs"))->capture_default_str();
  app::decimal(app.add_option("--warmup", o.warmup, "untimed runs first"))->capture_default_str();
  app::decimal(app.add_option("--distinct", o.distinct, "distinct random frames, rotated"))
      ->capture_default_str();
  app.add_option("--device", o.device, "OpenCL device: P:D, gpu, cpu or a name substring");
  app.add_option("--json", o.json,
                 "write every number to this JSON file (--table: a JSON object per row, one a "
                 "line, as each row is done)");
  app.add_flag("-y,--overwrite", o.overwrite, "replace an existing --json file");
  app.add_flag("--check", o.check,
               "compare each stage with OpenCV CPU on the benchmark frames (exit 3 when off)");
  app.add_flag("--no-tapi", o.noTapi, "skip the OpenCV T-API peer");
  app.add_flag("--no-engine", o.noEngine, "skip the engine throughput run");
  app::decimal(
      app.add_option("--cv-threads", o.cvThreads, "OpenCV CPU threads (default: OpenCV's choice)"));
  app::decimal(app.add_option("--slots", o.slots, "engine: pinned slots"))->capture_default_str();
  app::decimal(
      app.add_option("--engine-frames", o.engineFrames, "engine: frames (default: from the size)"))
      ->check([](const std::string& v) -> std::string {
        char* end = nullptr;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        return end != v.c_str() && *end == '\0' && n < 1
                   ? "must be at least 1; leave it out for a count from the frame size"
                   : "";
      });
  app.add_flag("--enqueue-cost", o.enqueueCost,
               "instead: host time per OpenCL call of the kinds the engine makes (no --chain)");
  app.add_flag("--table", o.table,
               "instead: the device time of each chain on each size and format, against the copy "
               "of the same frame and an aligned peer (no OpenCV peers, no engine)");
  app.add_option("--chains", o.chains, "--table: chains, separated by ';'");
  app.add_option("--sizes", o.sizes, "--table: sizes WxH, separated by ','");
  app.add_option("--formats", o.formats, "--table: formats, separated by ','");
  app.add_flag("--no-peers", o.noPeers,
               "--table: skip the aligned peer of widths not a multiple of 64");
  app.add_flag("--packed-rows", o.tableOptions.packedRows,
               "--table: the frames' rows packed on the device, never padded to whole "
               "multiples of 64 pixels");
  // Exit statuses as vidfilter's: 2 for what the user wrote, 1 for a failed run.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "vidfilter bench: %s\n",
                 app::describeParseError(app, e, {"vidfilter bench --help", ""}).c_str());
    return 2;
  }
  o.sizeGiven = app.count("--size") > 0;
  o.formatGiven = app.count("--format") > 0;
  o.cvThreadsGiven = app.count("--cv-threads") > 0;
  o.jsonGiven = app.count("--json") > 0;
  o.framesGiven = app.count("--frames") > 0;
  try {
    return run(o);
  } catch (const UserError& e) {  // options, the chain (ChainError keeps its caret lines)
    std::fprintf(stderr, "vidfilter bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vidfilter bench: %s\n", e.what());
  }
  return 1;
}

}  // namespace vf::bench
