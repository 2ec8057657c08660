// vidfilter bench: per-stage device times of a chain, next to the same chain done with OpenCV on
// the CPU (cv::Mat) and through OpenCV's T-API (cv::UMat), in one run; optionally a check of
// every stage against OpenCV (--check), and the engine's throughput.
//
// Links OpenCV core and imgproc only (no videoio/highgui), so `vidfilter-bench` runs on hosts
// that lack OpenCV's video and GUI libraries.
#include "app/bench/bench.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <opencv2/core/ocl.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <sstream>

#include "app/bench/cv_peer.hpp"
#include "app/bench/engine_bench.hpp"
#include "app/bench/enqueue_cost.hpp"
#include "app/bench/fusion_bench.hpp"
#include "app/bench/job_bench.hpp"
#include "app/bench/size_table.hpp"
#include "app/cli_error.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/text_file.hpp"

namespace vf::bench {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Median and p99 (nearest rank) of a set of times.
struct Summary {
  double median = 0, p99 = 0, mean = 0, min = 0;
  std::size_t n = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.p99 = v[std::min(n - 1, static_cast<std::size_t>(std::ceil(0.99 * n)) - 1)];
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / n;
  s.min = v.front();
  return s;
}

// Minimal JSON writer: enough for numbers, strings, objects and arrays.
class Json {
 public:
  Json& key(const std::string& k) {
    comma();
    str(k);
    os_ << ':';
    afterKey_ = true;
    return *this;
  }
  Json& open(char c) {
    comma();
    os_ << c;
    first_ = true;
    return *this;
  }
  Json& close(char c) {
    os_ << c;
    first_ = false;
    return *this;
  }
  Json& value(double v) {
    comma();
    if (std::isfinite(v))
      os_ << v;
    else
      os_ << "null";
    return *this;
  }
  Json& value(long long v) {
    comma();
    os_ << v;
    return *this;
  }
  Json& value(bool v) {
    comma();
    os_ << (v ? "true" : "false");
    return *this;
  }
  Json& value(const std::string& v) {
    comma();
    str(v);
    return *this;
  }
  Json& null() {
    comma();
    os_ << "null";
    return *this;
  }
  Json& summary(const Summary& s) {
    open('{');
    key("median_ms").value(s.median);
    key("p99_ms").value(s.p99);
    key("mean_ms").value(s.mean);
    key("min_ms").value(s.min);
    key("runs").value(static_cast<long long>(s.n));
    return close('}');
  }
  std::string text() const { return os_.str() + "\n"; }

 private:
  void comma() {
    if (afterKey_) {
      afterKey_ = false;
      return;
    }
    if (!first_) os_ << ',';
    first_ = false;
  }
  void str(const std::string& s) {
    os_ << '"';
    for (char c : s) {
      if (c == '"' || c == '\\')
        os_ << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        os_ << buf;
      } else
        os_ << c;
    }
    os_ << '"';
  }
  std::ostringstream os_;
  bool first_ = true, afterKey_ = false;
};

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
  bool noTapi = false;
  bool noEngine = false;
  int cvThreads = -1;
  int slots = 3;
  int engineFrames = 0;  // 0: derived from the frame size
  bool enqueueCost = false;
  bool table = false;
  TableOptions tableOptions;
};

PixelFormat parseFormat(const std::string& f) {
  if (f == "gray") return PixelFormat::Gray8;
  if (f == "bgr") return PixelFormat::BGR8;
  if (f == "bgra") return PixelFormat::BGRA8;
  throw UserError("--format must be gray, bgr or bgra, got " + quote(f));
}

int cvTypeOf(PixelFormat f) {
  return f == PixelFormat::Gray8 ? CV_8UC1 : f == PixelFormat::BGR8 ? CV_8UC3 : CV_8UC4;
}

FrameView viewOf(const cv::Mat& m) {
  const PixelFormat f = m.channels() == 1   ? PixelFormat::Gray8
                        : m.channels() == 3 ? PixelFormat::BGR8
                                            : PixelFormat::BGRA8;
  return {m.data, m.cols, m.rows, m.step[0], f};
}

int maxAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  if (a.size() != b.size() || a.type() != b.type()) return 256;
  cv::Mat d;
  cv::absdiff(a, b, d);
  double mx = 0;
  cv::minMaxLoc(d.reshape(1), nullptr, &mx);
  return static_cast<int>(mx);
}

cl_ulong profile(const cl::Event& e, cl_profiling_info what) {
  cl_ulong v = 0;
  clCall("clGetEventProfilingInfo", [&] { e.getProfilingInfo(what, &v); });
  return v;
}

// ---- vidfilter: data resident on the device, the chain enqueued N times -----------------------

struct VfTimes {
  std::vector<std::vector<double>> stageMs;  // [stage][run]
  // For stages of two kernels or more (blur: rows, columns): the first and the last command.
  std::vector<std::vector<double>> firstMs, lastMs;  // [stage][run]
  std::vector<double> copyMs;  // clEnqueueCopyBuffer of one input frame, device to device
  std::vector<double> spanMs;  // first stage START .. last stage END
  std::vector<double> wallMs;  // host: enqueue .. done event complete
};

VfTimes timeVidfilter(ClContext& cl, Chain& chain, const std::vector<cv::Mat>& frames,
                      const Options& o) {
  cl::CommandQueue q = cl.makeQueue();
  const FrameDesc in = chain.input(), out = chain.output();
  std::vector<cl::Buffer> dIn;
  for (const cv::Mat& f : frames) {
    cl::Buffer b = clCall("clCreateBuffer(bench input)",
                          [&] { return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, in.bytes()); });
    clCall("clEnqueueWriteBuffer(bench input)",
           [&] { q.enqueueWriteBuffer(b, CL_TRUE, 0, in.bytes(), f.data); });
    dIn.push_back(b);
  }
  cl::Buffer dOut = clCall("clCreateBuffer(bench output)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, out.bytes());
  });
  std::vector<std::vector<std::uint8_t>> side;
  VfTimes t;
  t.stageMs.resize(chain.size());
  t.firstMs.resize(chain.size());
  t.lastMs.resize(chain.size());
  // The bandwidth ceiling, in the same run: a device-to-device copy of one input frame.
  cl::Buffer copyDst = clCall("clCreateBuffer(bench copy)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, in.bytes());
  });
  for (int r = 0; r < o.warmup + o.frames; ++r) {
    cl::Event e;
    clCall("clEnqueueCopyBuffer(bench)", [&] {
      q.enqueueCopyBuffer(dIn[r % dIn.size()], copyDst, 0, 0, in.bytes(), nullptr, &e);
      e.wait();
    });
    if (r >= o.warmup) t.copyMs.push_back(eventMs(e));
  }
  for (int r = 0; r < o.warmup + o.frames; ++r) {
    const auto t0 = Clock::now();
    ChainRun run = chain.enqueue(q, dIn[r % dIn.size()], dOut, {}, &side);
    if (run.done()) clCall("clWaitForEvents(bench)", [&] { run.done.wait(); });
    const double wall = msSince(t0);
    if (r < o.warmup) continue;
    t.wallMs.push_back(wall);
    cl_ulong first = 0, last = 0;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      const StageEvents& ev = run.stages[i];
      if (!ev.first() || !ev.last()) {
        t.stageMs[i].push_back(0);
        continue;
      }
      const cl_ulong s = profile(ev.first, CL_PROFILING_COMMAND_START);
      const cl_ulong e = profile(ev.last, CL_PROFILING_COMMAND_END);
      t.stageMs[i].push_back((e - s) * 1e-6);
      if (ev.first() != ev.last()) {
        t.firstMs[i].push_back(eventMs(ev.first));
        t.lastMs[i].push_back(eventMs(ev.last));
      }
      if (!first || s < first) first = s;
      last = std::max(last, e);
    }
    t.spanMs.push_back(first ? (last - first) * 1e-6 : 0);
  }
  clCall("clFinish(bench)", [&] { q.finish(); });
  return t;
}

// ---- OpenCV peers --------------------------------------------------------------------------

struct PeerTimes {
  std::vector<std::vector<double>> stageMs;  // [stage][run]
  std::vector<double> chainMs;               // whole chain per frame
};

PeerTimes timeCpu(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                  const Options& o) {
  PeerTimes t;
  t.stageMs.resize(specs.size());
  std::vector<CvScratch<cv::Mat>> scratch(specs.size());
  std::vector<cv::Mat> outs(specs.size());
  for (int r = 0; r < o.warmup + o.frames; ++r) {
    const cv::Mat* cur = &frames[r % frames.size()];
    const auto c0 = Clock::now();
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto s0 = Clock::now();
      cvApply(specs[i], *cur, outs[i], scratch[i]);
      if (r >= o.warmup) t.stageMs[i].push_back(msSince(s0));
      cur = &outs[i];
    }
    if (r >= o.warmup) t.chainMs.push_back(msSince(c0));
  }
  return t;
}

// Two passes: per stage, each stage between two cv::ocl::finish() (so its own time is seen);
// whole chain, all stages queued back to back and one finish() at the end of the frame (what a
// T-API user's loop costs). Data uploaded once, as for vidfilter.
PeerTimes timeTapi(const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames,
                   const Options& o) {
  PeerTimes t;
  t.stageMs.resize(specs.size());
  std::vector<cv::UMat> uframes(frames.size());
  for (std::size_t k = 0; k < frames.size(); ++k) frames[k].copyTo(uframes[k]);
  cv::ocl::finish();
  std::vector<CvScratch<cv::UMat>> scratch(specs.size());
  std::vector<cv::UMat> outs(specs.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (int r = 0; r < o.warmup + o.frames; ++r) {
      const cv::UMat* cur = &uframes[r % uframes.size()];
      const auto c0 = Clock::now();
      for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto s0 = Clock::now();
        cvApply(specs[i], *cur, outs[i], scratch[i]);
        if (pass == 0) {
          cv::ocl::finish();
          if (r >= o.warmup) t.stageMs[i].push_back(msSince(s0));
        }
        cur = &outs[i];
      }
      if (pass == 1) {
        cv::ocl::finish();
        if (r >= o.warmup) t.chainMs.push_back(msSince(c0));
      }
    }
  }
  return t;
}

// ---- --check: each stage alone against its OpenCV equivalent, on the benchmark frames --------

struct CheckRow {
  std::string stage;
  int maxDiff = 0;
  int limit = 1;
  int frames = 0;
  std::string what;  // "frame" or "histogram"
};

std::vector<CheckRow> runCheck(ClContext& cl, const std::string& chainText,
                               const std::vector<CvStageSpec>& specs,
                               const std::vector<cv::Mat>& frames, int* chainDiff) {
  cl::CommandQueue q = cl.makeQueue();
  std::vector<CheckRow> rows;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    rows.push_back({specs[i].text, 0, 1, 0, "frame"});
    if (specs[i].name == "hist") rows.push_back({specs[i].text, 0, 0, 0, "histogram"});
  }
  *chainDiff = 0;
  // The stage's input is the OpenCV chain's output before it, so each stage is judged alone
  // (differences do not compound along the chain).
  for (const cv::Mat& frame : frames) {
    cv::Mat cur = frame;
    std::size_t row = 0;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      CvScratch<cv::Mat> s;
      cv::Mat ref;
      cvApply(specs[i], cur, ref, s);
      ref = ref.clone();
      Chain alone = Chain::parse(chainText);
      for (std::size_t j = 0; j < alone.size(); ++j) alone.setEnabled(j, j == i);
      alone.configure(cl, viewOf(cur).desc());
      cv::Mat got(alone.output().height, alone.output().width, cvTypeOf(alone.output().format));
      got.setTo(cv::Scalar::all(0x5A));  // poisoned: a pixel never written shows up
      std::vector<std::vector<std::uint8_t>> side;
      alone.runOnce(cl, q, viewOf(cur), viewOf(got), &side);
      CheckRow& fr = rows[row++];
      fr.maxDiff = std::max(fr.maxDiff, maxAbsDiff(got, ref));
      ++fr.frames;
      if (specs[i].name == "hist") {
        CheckRow& hr = rows[row++];
        const std::vector<std::uint32_t> want = histCounts(s);
        int d = 0;
        if (side.empty() || side[0].size() != want.size() * 4) {
          d = 1 << 30;
        } else {
          const auto* have = reinterpret_cast<const std::uint32_t*>(side[0].data());
          for (std::size_t b = 0; b < want.size(); ++b)
            d = std::max<long long>(d, std::llabs(static_cast<long long>(have[b]) - want[b]));
        }
        hr.maxDiff = std::max(hr.maxDiff, d);
        ++hr.frames;
      }
      cur = ref;
    }
    // The whole chain against the whole OpenCV chain (information: differences may compound).
    Chain whole = Chain::parse(chainText);
    whole.configure(cl, viewOf(frame).desc());
    cv::Mat got(whole.output().height, whole.output().width, cvTypeOf(whole.output().format));
    whole.runOnce(cl, q, viewOf(frame), viewOf(got));
    *chainDiff = std::max(*chainDiff, maxAbsDiff(got, cur));
  }
  return rows;
}

std::string fmtMs(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.3f" : v < 100 ? "%.2f" : "%.1f", v);
  return buf;
}

std::string fmtRatio(double vf, double peer) {
  if (!(peer > 0) || !(vf > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", vf / peer);
  return buf;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

int run(const Options& o) {
  int w = 0, h = 0;
  char x = 0;
  std::istringstream ss(o.size);
  if (!(ss >> w >> x >> h) || (x != 'x' && x != 'X') || w <= 0 || h <= 0)
    throw UserError("--size must be WxH (e.g. 1920x1080), got " + quote(o.size));
  if (o.frames < 1) throw UserError("--frames must be at least 1");
  if (o.warmup < 0) throw UserError("--warmup must be 0 or more");
  if (o.distinct < 1) throw UserError("--distinct must be at least 1");
  const PixelFormat format = parseFormat(o.format);
  if (o.cvThreads >= 0) cv::setNumThreads(o.cvThreads);

  auto cl = ClContext::open(o.device);
  if (o.enqueueCost) return benchEnqueueCost(*cl);
  if (o.table) {
    TableOptions t = o.tableOptions;
    t.frames = o.frames;
    t.warmup = o.warmup;
    t.distinct = o.distinct;
    t.json = o.json;
    if (t.chains.empty()) t.chains = {o.chain};
    if (t.sizes.empty()) t.sizes = {o.size};
    if (t.formats.empty()) t.formats = {o.format};
    return runTable(*cl, t);
  }
  if (o.chain.empty()) throw UserError("--chain is required (e.g. --chain blur,sobel)");
  Chain chain = Chain::parse(o.chain);
  const FrameDesc desc{w, h, format};
  chain.configure(*cl, desc);
  std::vector<CvStageSpec> specs;
  for (std::size_t i = 0; i < chain.size(); ++i) specs.push_back(cvSpecOf(chain.stage(i)));

  // Synthetic frames: uniform random, several distinct ones rotated so caches do not flatter.
  std::vector<cv::Mat> frames;
  for (int k = 0; k < o.distinct; ++k) {
    cv::Mat m(h, w, cvTypeOf(format));
    cv::RNG rng(0x5eed + k);
    rng.fill(m, cv::RNG::UNIFORM, 0, 256);
    frames.push_back(m);
  }

  // T-API on the same device as vidfilter: OpenCV picks a GPU by default and ignores CPU
  // devices (PoCL), so name the device for it, unless the user set OPENCV_OPENCL_DEVICE.
  const DeviceInfo& dev = cl->info();
  std::string tapiSelector;
  if (!o.noTapi) {
    if (const char* env = std::getenv("OPENCV_OPENCL_DEVICE")) {
      tapiSelector = std::string(env) + " (from the environment)";
    } else if (dev.platform.find(':') == std::string::npos &&
               dev.name.find(':') == std::string::npos) {
      const std::string sel = dev.platform + ":" + dev.typeName() + ":" + dev.name;
      ::setenv("OPENCV_OPENCL_DEVICE", sel.c_str(), 1);
      tapiSelector = sel;
    }
  }
  bool tapi = !o.noTapi && cv::ocl::haveOpenCL();
  std::string tapiDevice;
  if (tapi) {
    cv::ocl::setUseOpenCL(true);
    tapi = cv::ocl::useOpenCL();
    if (tapi) {
      const cv::ocl::Device& d = cv::ocl::Device::getDefault();
      tapiDevice = d.name() + " (" + d.version() + ")" +
                   (tapiSelector.empty() ? "" : ", OPENCV_OPENCL_DEVICE=" + tapiSelector);
      if (d.name().empty()) tapi = false;
    }
  }
  const std::string tapiNote =
      o.noTapi ? "skipped (--no-tapi)"
      : tapi   ? tapiDevice
               : "no OpenCL device available to OpenCV (cv::ocl::useOpenCL() is false); T-API "
                 "columns left out";

  std::printf("vidfilter bench: %s on %dx%d %s frames\n", chain.str().c_str(), w, h,
              formatName(format));
  std::printf("method:\n");
  std::printf("  device       %s [%s] (%s, driver %s), %s\n", dev.name.c_str(), dev.index().c_str(),
              dev.platform.c_str(), dev.driverVersion.c_str(), dev.version.c_str());
  std::printf("  OpenCV       %s, %d threads (CPU peer, cv::Mat)\n", CV_VERSION,
              cv::getNumThreads());
  std::printf("  T-API        %s\n", tapiNote.c_str());
  std::printf(
      "  frames       %d distinct random frames rotated; %d warm-up runs excluded, then %d timed "
      "runs\n",
      o.distinct, o.warmup, o.frames);
  std::printf(
      "  vidfilter    data resident on the device (uploaded once); chain.enqueue per frame, host "
      "waits on its done event; stage time = device profiling (first START .. last END)\n");
  std::printf(
      "  OpenCV CPU   the same operations on cv::Mat, host clock per call; outputs reused\n");
  if (tapi)
    std::printf(
        "  T-API        the same calls on cv::UMat, data resident; per stage: cv::ocl::finish() "
        "after the stage; chain: one finish() per frame\n");
  std::printf("  statistic    median and p99 (nearest rank) of the timed runs, in ms\n");
  for (std::size_t i = 0; i < specs.size(); ++i) {
    std::printf("  stage %zu      %s -> OpenCV %s\n", i + 1, specs[i].text.c_str(),
                specs[i].describe().c_str());
    if (i < chain.size() && !chain.stage(i).schedule().empty())
      std::printf("               schedule: %s\n", chain.stage(i).schedule().c_str());
  }
  std::fflush(stdout);

  const VfTimes vt = timeVidfilter(*cl, chain, frames, o);
  const PeerTimes ct = timeCpu(specs, frames, o);
  std::optional<PeerTimes> tt;
  if (tapi) tt = timeTapi(specs, frames, o);

  std::vector<Summary> vs, cs, ts;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    vs.push_back(summarize(vt.stageMs[i]));
    cs.push_back(summarize(ct.stageMs[i]));
    ts.push_back(tt ? summarize(tt->stageMs[i]) : Summary{});
  }
  const Summary vSpan = summarize(vt.spanMs), vWall = summarize(vt.wallMs),
                cChain = summarize(ct.chainMs), tChain = tt ? summarize(tt->chainMs) : Summary{};

  std::size_t nameW = 24;
  for (const auto& sp : specs) nameW = std::max(nameW, sp.text.size() + 3);
  std::printf("\n%s %s %s %s %s %s\n", pad("stage", nameW).c_str(),
              pad("vidfilter p50 / p99", 21).c_str(), pad("OpenCV CPU p50", 15).c_str(),
              pad("T-API p50", 12).c_str(), pad("vf/CPU", 7).c_str(), "vf/T-API");
  auto row = [&](const std::string& name, const Summary& v, const Summary& c, const Summary& t) {
    std::printf("%s %s %s %s %s %s\n", pad(name, nameW).c_str(),
                pad(fmtMs(v.median) + " / " + fmtMs(v.p99), 21).c_str(),
                pad(fmtMs(c.median), 15).c_str(), pad(tt ? fmtMs(t.median) : "-", 12).c_str(),
                pad(fmtRatio(v.median, c.median), 7).c_str(),
                tt ? fmtRatio(v.median, t.median).c_str() : "-");
  };
  // A fused pass's time is on its first stage's row (its label), none on the others'.
  const std::vector<std::string> timing = chain.timingNames();
  for (std::size_t i = 0; i < specs.size(); ++i)
    row(std::to_string(i + 1) + " " + specs[i].text +
            (timing[i].empty()                    ? " (fused above)"
             : timing[i] != chain.stage(i).name() ? " [" + timing[i] + "]"
                                                  : ""),
        vs[i], cs[i], ts[i]);
  row("chain (device span)", vSpan, cChain, tChain);
  row("chain (host wall/frame)", vWall, cChain, tChain);
  std::printf(
      "(ms; vf/peer < 1: vidfilter faster. Chain rows: OpenCV CPU = all stages per frame on the "
      "host clock; T-API = all stages + one finish() per frame)\n");

  // Bandwidth: bytes a stage must read and write (its input and output frames once; the
  // blur's passes also their 16-bit intermediate) over its median time, against the copy.
  const Summary copy = summarize(vt.copyMs);
  const double copyGBps = copy.median > 0 ? 2.0 * desc.bytes() / (copy.median * 1e6) : 0;
  std::printf(
      "\nbandwidth (device memory; copy = clEnqueueCopyBuffer of one %s frame, read + write)\n",
      desc.str().c_str());
  std::printf("  copy                     %s ms  %8.1f GB/s  100%%\n", fmtMs(copy.median).c_str(),
              copyGBps);
  struct BwRow {
    std::string name;
    double bytes, ms;
  };
  std::vector<BwRow> bw;
  {
    FrameDesc cur = desc;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      const FrameDesc outD = chain.stageOutputs()[i];
      const std::string name = std::to_string(i + 1) + " " + chain.stage(i).name();
      const double inB = double(cur.bytes()),
                   outB = chain.stage(i).passthrough() ? 0.0 : double(outD.bytes());
      if (chain.stage(i).name() == "blur" && !vt.firstMs[i].empty()) {
        // Two passes through a 16-bit intermediate (the cpu kernel, blur.cl): rows, then
        // columns.
        const double mid = 2.0 * double(cur.bytes());
        bw.push_back({name + " pass 1", inB + mid, summarize(vt.firstMs[i]).median});
        bw.push_back({name + " pass 2", mid + outB, summarize(vt.lastMs[i]).median});
      }
      bw.push_back({name, inB + outB, vs[i].median});
      cur = outD;
    }
  }
  for (const auto& r : bw) {
    const double gbps = r.ms > 0 ? r.bytes / (r.ms * 1e6) : 0;
    std::printf("  %s %s ms  %8.1f GB/s  %5.1f%%\n", pad(r.name, 24).c_str(), fmtMs(r.ms).c_str(),
                gbps, copyGBps > 0 ? 100.0 * gbps / copyGBps : 0.0);
  }

  // The same chain fused and unfused, same frames, same run.
  const FusionComparison fusion = compareFusion(*cl, o.chain, desc, frames, o.warmup, o.frames);
  std::printf("\nfusion (the same chain fused and unfused (--no-fuse), same frames, same run)\n");
  for (const auto* f : {&fusion.fused, &fusion.unfused}) {
    std::string passes;
    for (const auto& p : f->passes) passes += (passes.empty() ? "" : " | ") + p;
    std::printf("  %-8s %s ms device span  %s ms host wall  %4.0f launches  passes: %s\n",
                f == &fusion.fused ? "fused" : "unfused", fmtMs(f->spanMs).c_str(),
                fmtMs(f->wallMs).c_str(), f->launches, passes.c_str());
  }

  // Engine throughput: host frames in, the chain, host frames out.
  Json js;
  js.open('{');
  js.key("chain").value(chain.str());
  js.key("chain_text").value(o.chain);
  js.key("width").value(static_cast<long long>(w));
  js.key("height").value(static_cast<long long>(h));
  js.key("format").value(std::string(formatName(format)));
  js.key("method").open('{');
  js.key("device").value(dev.name);
  js.key("device_index").value(dev.index());
  js.key("platform").value(dev.platform);
  js.key("driver").value(dev.driverVersion);
  js.key("device_version").value(dev.version);
  js.key("opencv_version").value(std::string(CV_VERSION));
  js.key("opencv_threads").value(static_cast<long long>(cv::getNumThreads()));
  js.key("tapi_device");
  if (tapi)
    js.value(tapiDevice);
  else
    js.null();
  js.key("tapi_note").value(tapiNote);
  js.key("warmup").value(static_cast<long long>(o.warmup));
  js.key("frames").value(static_cast<long long>(o.frames));
  js.key("distinct_frames").value(static_cast<long long>(o.distinct));
  js.key("statistic").value(std::string("median and p99 (nearest rank) of the timed runs, ms"));
  js.close('}');
  js.key("stages").open('[');
  for (std::size_t i = 0; i < specs.size(); ++i) {
    js.open('{');
    js.key("index").value(static_cast<long long>(i));
    js.key("name").value(specs[i].name);
    js.key("text").value(specs[i].text);
    js.key("opencv").value(specs[i].describe());
    js.key("enabled").value(chain.enabled(i));
    js.key("vidfilter").summary(vs[i]);
    js.key("opencv_cpu").summary(cs[i]);
    js.key("opencv_tapi");
    if (tt)
      js.summary(ts[i]);
    else
      js.null();
    js.key("ratio_vs_cpu").value(cs[i].median > 0 ? vs[i].median / cs[i].median : NAN);
    js.key("ratio_vs_tapi").value(tt && ts[i].median > 0 ? vs[i].median / ts[i].median : NAN);
    js.close('}');
  }
  js.close(']');
  js.key("copy_ms").summary(copy);
  js.key("copy_gbps").value(copyGBps);
  js.key("bandwidth").open('[');
  for (const auto& r : bw) {
    js.open('{');
    js.key("what").value(r.name);
    js.key("bytes").value(r.bytes);
    js.key("median_ms").value(r.ms);
    js.key("gbps").value(r.ms > 0 ? r.bytes / (r.ms * 1e6) : 0.0);
    js.close('}');
  }
  js.close(']');
  js.key("chain_total").open('{');
  js.key("vidfilter_device_span").summary(vSpan);
  js.key("vidfilter_wall").summary(vWall);
  js.key("opencv_cpu").summary(cChain);
  js.key("opencv_tapi");
  if (tt)
    js.summary(tChain);
  else
    js.null();
  js.key("ratio_vs_cpu").value(cChain.median > 0 ? vWall.median / cChain.median : NAN);
  js.key("ratio_vs_tapi").value(tt && tChain.median > 0 ? vWall.median / tChain.median : NAN);
  js.close('}');

  js.key("fusion").open('{');
  for (const auto* f : {&fusion.fused, &fusion.unfused}) {
    js.key(f == &fusion.fused ? "fused" : "unfused").open('{');
    js.key("passes").open('[');
    for (const auto& p : f->passes) js.value(p);
    js.close(']');
    js.key("launches").value(f->launches);
    js.key("device_span_median_ms").value(f->spanMs);
    js.key("host_wall_median_ms").value(f->wallMs);
    js.close('}');
  }
  js.close('}');

  js.key("engine");
  if (o.noEngine) {
    std::printf("\nengine: skipped (--no-engine)\n");
    js.null();
  } else {
    // Enough frames for a steady state, bounded for slow devices: ~2 GB of frames moved.
    const int n = o.engineFrames > 0
                      ? o.engineFrames
                      : static_cast<int>(std::clamp<double>(2e9 / double(desc.bytes()), 50, 2000));
    const EngineBenchResult e = benchEngine(*cl, o.chain, w, h, format, n, o.slots);
    std::printf(
        "\nengine (host %s frames in, the chain, host frames out; %d frames, %d slots)\n"
        "  engine   %.1f fps  %.2f GB/s  (submit thread: %.3f ms/frame enqueueing, median)\n"
        "  serial   %.1f fps  %.2f GB/s   (blocking upload, chain, blocking download per frame)\n"
        "  latency  %.3f ms (one frame alone, median)\n",
        formatName(format), e.frames, o.slots, e.engineFps, e.engineGBps, e.submitMs, e.serialFps,
        e.serialGBps, e.latencyMs);
    js.open('{');
    js.key("frames").value(static_cast<long long>(e.frames));
    js.key("slots").value(static_cast<long long>(o.slots));
    js.key("engine_fps").value(e.engineFps);
    js.key("engine_gbps").value(e.engineGBps);
    js.key("engine_submit_ms").value(e.submitMs);
    js.key("serial_fps").value(e.serialFps);
    js.key("serial_gbps").value(e.serialGBps);
    js.key("latency_ms").value(e.latencyMs);
    js.close('}');
  }

  bool passed = true;
  js.key("check");
  if (o.check) {
    int chainDiff = 0;
    const auto rows = runCheck(*cl, o.chain, specs, frames, &chainDiff);
    std::printf("\ncheck: each stage alone vs OpenCV CPU on the %zu benchmark frames\n",
                frames.size());
    js.open('{');
    js.key("ran").value(true);
    js.key("stages").open('[');
    for (const auto& r : rows) {
      const bool ok = r.maxDiff <= r.limit;
      passed &= ok;
      std::printf("  %s %s max diff %d (limit %d) %s\n", pad(r.stage, nameW).c_str(),
                  pad(r.what, 10).c_str(), r.maxDiff, r.limit, ok ? "ok" : "FAILED");
      js.open('{');
      js.key("stage").value(r.stage);
      js.key("what").value(r.what);
      js.key("max_diff").value(static_cast<long long>(r.maxDiff));
      js.key("limit").value(static_cast<long long>(r.limit));
      js.key("frames").value(static_cast<long long>(r.frames));
      js.key("passed").value(ok);
      js.close('}');
    }
    js.close(']');
    std::printf(
        "  whole chain vs the whole OpenCV chain: max diff %d (information: differences "
        "may compound along the chain)\n",
        chainDiff);
    std::printf("check: %s\n", passed ? "passed" : "FAILED");
    js.key("chain_max_diff").value(static_cast<long long>(chainDiff));
    js.key("passed").value(passed);
    js.close('}');
  } else {
    js.null();
  }
  js.close('}');

  if (!o.json.empty()) {
    TextFile f;
    f.open(o.json, "the JSON file");
    f.writeLine(js.text());
    f.close();
  }
  return passed ? 0 : 3;
}

}  // namespace

int benchMain(int argc, char** argv) {
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
      "Exit status: 0 ok, 1 error, 2 usage, 3 --check found a stage off by more than 1 level "
      "(histograms: any difference).");
  Options o;
  app.add_option("--chain", o.chain, "the chain, e.g. blur=sigma=2,sobel (required)");
  app.add_option("--size", o.size, "frame size WxH")->capture_default_str();
  app.add_option("--format", o.format, "input format: gray, bgr or bgra")->capture_default_str();
  app.add_option("--frames", o.frames, "timed runs")->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed runs first")->capture_default_str();
  app.add_option("--distinct", o.distinct, "distinct random frames, rotated")
      ->capture_default_str();
  app.add_option("--device", o.device, "OpenCL device: P:D, gpu, cpu or a name substring");
  app.add_option("--json", o.json, "write every number to this JSON file");
  app.add_flag("--check", o.check,
               "compare each stage with OpenCV CPU on the benchmark frames (exit 3 when off)");
  app.add_flag("--no-tapi", o.noTapi, "skip the OpenCV T-API peer");
  app.add_flag("--no-engine", o.noEngine, "skip the engine throughput run");
  app.add_option("--cv-threads", o.cvThreads, "OpenCV CPU threads (default: OpenCV's choice)");
  app.add_option("--slots", o.slots, "engine: pinned slots")->capture_default_str();
  app.add_option("--engine-frames", o.engineFrames, "engine: frames (default: from the size)");
  app.add_flag("--enqueue-cost", o.enqueueCost,
               "instead: host time per OpenCL call of the kinds the engine makes (no --chain)");
  app.add_flag("--table", o.table,
               "instead: the device time of each chain on each size and format, against the copy "
               "of the same frame and an aligned peer (no OpenCV peers, no engine)");
  app.add_option("--chains", o.tableOptions.chains, "--table: chains, separated by ';'")
      ->delimiter(';');
  app.add_option("--sizes", o.tableOptions.sizes, "--table: sizes WxH, separated by ','")
      ->delimiter(',');
  app.add_option("--formats", o.tableOptions.formats, "--table: formats, separated by ','")
      ->delimiter(',');
  app.add_flag("!--no-peers", o.tableOptions.peers,
               "--table: skip the aligned peer of widths not a multiple of 64");
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
