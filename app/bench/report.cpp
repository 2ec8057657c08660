#include "app/bench/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/core/utility.hpp>

namespace vf::bench {
namespace {

using Json = nlohmann::ordered_json;

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

// A stage in a fused pass: the pass's label on its first stage, "(fused above)" on the others.
std::string timingSuffix(const StageResult& s) {
  if (s.timing.empty()) return " (fused above)";
  return s.timing != s.spec.name ? " [" + s.timing + "]" : "";
}

std::size_t nameWidth(const Results& r) {
  std::size_t w = 24;
  for (const auto& s : r.stages) w = std::max(w, s.spec.text.size() + timingSuffix(s).size() + 3);
  return w;
}

double ratio(double vf, double peer) { return peer > 0 ? vf / peer : NAN; }

Json summaryJson(const Summary& s) {
  return Json{{"median_ms", s.median},
              {"p99_ms", s.p99},
              {"mean_ms", s.mean},
              {"min_ms", s.min},
              {"runs", s.n}};
}

Json methodJson(const Results& r) {
  return Json{{"device", r.device.name},
              {"device_index", r.device.index()},
              {"platform", r.device.platform},
              {"driver", r.device.driverVersion},
              {"device_version", r.device.version},
              {"opencv_version", CV_VERSION},
              {"opencv_threads", cv::getNumThreads()},
              {"tapi_device", r.tapi.on ? Json(r.tapi.device) : Json()},
              {"tapi_note", r.tapi.note},
              {"warmup", r.warmup},
              {"frames", r.frames},
              {"distinct_frames", r.distinct},
              {"statistic", "median and p99 (nearest rank) of the timed runs, ms"}};
}

Json stagesJson(const Results& r) {
  Json a = Json::array();
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const StageResult& s = r.stages[i];
    a.push_back(Json{
        {"index", i},
        {"name", s.spec.name},
        {"text", s.spec.text},
        {"opencv", s.spec.describe()},
        {"enabled", s.enabled},
        {"vidfilter", summaryJson(s.vf)},
        {"opencv_cpu", summaryJson(s.cpu)},
        {"opencv_tapi", r.tapiTimed ? summaryJson(s.tapi) : Json()},
        {"ratio_vs_cpu", ratio(s.vf.median, s.cpu.median)},
        {"ratio_vs_tapi", r.tapiTimed ? ratio(s.vf.median, s.tapi.median) : NAN},
    });
  }
  return a;
}

Json engineJson(const Results& r) {
  if (!r.engine) return Json();
  const EngineBenchResult& e = *r.engine;
  return Json{{"frames", e.frames},
              {"slots", r.slots},
              {"engine_fps", e.engineFps},
              {"engine_gbps", e.engineGBps},
              {"engine_submit_ms", e.submitMs},
              {"serial_fps", e.serialFps},
              {"serial_gbps", e.serialGBps},
              {"latency_ms", e.latencyMs}};
}

Json checkJson(const Results& r) {
  if (!r.check) return Json();
  Json rows = Json::array();
  for (const CheckRow& c : r.check->rows)
    rows.push_back(Json{{"stage", c.stage},
                        {"what", c.what},
                        {"max_diff", c.maxDiff},
                        {"limit", c.limit},
                        {"frames", c.frames},
                        {"passed", c.passed()}});
  return Json{{"ran", true},
              {"stages", rows},
              {"chain_max_diff", r.check->chainDiff},
              {"passed", r.check->passed()}};
}

}  // namespace

void printMethod(const Results& r) {
  const DeviceInfo& dev = r.device;
  std::printf("vidfilter bench: %s on %dx%d %s frames\n", r.chain.c_str(), r.frame.width,
              r.frame.height, formatName(r.frame.format));
  std::printf("method:\n");
  std::printf("  device       %s [%s] (%s, driver %s), %s\n", dev.name.c_str(), dev.index().c_str(),
              dev.platform.c_str(), dev.driverVersion.c_str(), dev.version.c_str());
  std::printf("  OpenCV       %s, %d threads (CPU peer, cv::Mat)\n", CV_VERSION,
              cv::getNumThreads());
  std::printf("  T-API        %s\n", r.tapi.note.c_str());
  std::printf(
      "  frames       %d distinct random frames rotated; %d warm-up runs excluded, then %d timed "
      "runs\n",
      r.distinct, r.warmup, r.frames);
  std::printf(
      "  vidfilter    data resident on the device (uploaded once); chain.enqueue per frame, host "
      "waits on its done event; stage time = device profiling (first START .. last END)\n");
  std::printf(
      "  OpenCV CPU   the same operations on cv::Mat, host clock per call; outputs reused\n");
  if (r.tapi.on)
    std::printf(
        "  T-API        the same calls on cv::UMat, data resident; per stage: cv::ocl::finish() "
        "after the stage; chain: one finish() per frame\n");
  std::printf("  statistic    median and p99 (nearest rank) of the timed runs, in ms\n");
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const StageResult& s = r.stages[i];
    std::printf("  stage %zu      %s -> OpenCV %s\n", i + 1, s.spec.text.c_str(),
                s.spec.describe().c_str());
    if (!s.schedule.empty()) std::printf("               schedule: %s\n", s.schedule.c_str());
  }
  std::fflush(stdout);
}

void printTimes(const Results& r) {
  const std::size_t nameW = nameWidth(r);
  const bool tt = r.tapiTimed;
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
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const StageResult& s = r.stages[i];
    row(std::to_string(i + 1) + " " + s.spec.text + timingSuffix(s), s.vf, s.cpu, s.tapi);
  }
  row("chain (device span)", r.span, r.cpuChain, r.tapiChain);
  row("chain (host wall/frame)", r.wall, r.cpuChain, r.tapiChain);
  std::printf(
      "(ms; vf/peer < 1: vidfilter faster. Chain rows: OpenCV CPU = all stages per frame on the "
      "host clock; T-API = all stages + one finish() per frame)\n");

  const double copyGBps = r.copyGBps();
  std::printf(
      "\nbandwidth (device memory; copy = clEnqueueCopyBuffer of one %s frame, read + write)\n",
      r.frame.str().c_str());
  std::printf("  copy                     %s ms  %8.1f GB/s  100%%\n", fmtMs(r.copy.median).c_str(),
              copyGBps);
  for (const auto& b : r.bandwidth)
    std::printf("  %s %s ms  %8.1f GB/s  %5.1f%%\n", pad(b.name, 24).c_str(), fmtMs(b.ms).c_str(),
                b.gbps(), copyGBps > 0 ? 100.0 * b.gbps() / copyGBps : 0.0);
}

void printEngine(const Results& r) {
  if (!r.engine) {
    std::printf("\nengine: skipped (--no-engine)\n");
    return;
  }
  const EngineBenchResult& e = *r.engine;
  std::printf(
      "\nengine (host %s frames in, the chain, host frames out; %d frames, %d slots)\n"
      "  engine   %.1f fps  %.2f GB/s  (submit thread: %.3f ms/frame enqueueing, median)\n"
      "  serial   %.1f fps  %.2f GB/s   (blocking upload, chain, blocking download per frame)\n"
      "  latency  %.3f ms (one frame alone, median)\n",
      formatName(r.frame.format), e.frames, r.slots, e.engineFps, e.engineGBps, e.submitMs,
      e.serialFps, e.serialGBps, e.latencyMs);
}

void printCheck(const Results& r) {
  if (!r.check) return;
  const std::size_t nameW = nameWidth(r);
  std::printf("\ncheck: each stage alone vs OpenCV CPU on the %d benchmark frames\n", r.distinct);
  for (const CheckRow& c : r.check->rows)
    std::printf("  %s %s max diff %d (limit %d) %s\n", pad(c.stage, nameW).c_str(),
                pad(c.what, 10).c_str(), c.maxDiff, c.limit, c.passed() ? "ok" : "FAILED");
  std::printf(
      "  whole chain vs the whole OpenCV chain: max diff %d (information: differences "
      "may compound along the chain)\n",
      r.check->chainDiff);
  std::printf("check: %s\n", r.check->passed() ? "passed" : "FAILED");
}

void printFusion(const Results& r) {
  if (!r.fusion) return;
  std::printf("\nfusion (the same chain fused and unfused (--no-fuse), same frames, same run)\n");
  for (const FusionSide* f : {&r.fusion->fused, &r.fusion->unfused}) {
    std::string passes;
    for (const auto& p : f->passes) passes += (passes.empty() ? "" : " | ") + p;
    std::printf(
        "  %-8s %s ms device span (%s untimed, %s a frame streamed)  %s ms host wall  %4.0f "
        "launches  passes: %s\n",
        f == &r.fusion->fused ? "fused" : "unfused", fmtMs(f->spanMs).c_str(),
        fmtMs(f->untimedSpanMs).c_str(), fmtMs(f->streamedMs).c_str(), fmtMs(f->wallMs).c_str(),
        f->launches, passes.c_str());
  }
  std::printf(
      "  (untimed: enqueued as the engine's untimed frames, events on the first and the last "
      "pass only; streamed: the timed runs' frames enqueued back to back, the span of all of them "
      "over their count)\n");
}

namespace {

Json fusionJson(const Results& r) {
  if (!r.fusion) return Json();
  Json j = Json::object();
  for (const FusionSide* f : {&r.fusion->fused, &r.fusion->unfused})
    j[f == &r.fusion->fused ? "fused" : "unfused"] =
        Json{{"passes", f->passes},
             {"launches", f->launches},
             {"device_span_median_ms", f->spanMs},
             {"untimed_span_median_ms", f->untimedSpanMs},
             {"streamed_ms_per_frame", f->streamedMs},
             {"host_wall_median_ms", f->wallMs}};
  return j;
}

}  // namespace

Json toJson(const Results& r) {
  Json bandwidth = Json::array();
  for (const auto& b : r.bandwidth)
    bandwidth.push_back(
        Json{{"what", b.name}, {"bytes", b.bytes}, {"median_ms", b.ms}, {"gbps", b.gbps()}});
  return Json{
      {"chain", r.chain},
      {"chain_text", r.chainText},
      {"width", r.frame.width},
      {"height", r.frame.height},
      {"format", formatName(r.frame.format)},
      {"method", methodJson(r)},
      {"stages", stagesJson(r)},
      {"copy_ms", summaryJson(r.copy)},
      {"copy_gbps", r.copyGBps()},
      {"bandwidth", bandwidth},
      {"chain_total",
       Json{{"vidfilter_device_span", summaryJson(r.span)},
            {"vidfilter_wall", summaryJson(r.wall)},
            {"opencv_cpu", summaryJson(r.cpuChain)},
            {"opencv_tapi", r.tapiTimed ? summaryJson(r.tapiChain) : Json()},
            {"ratio_vs_cpu", ratio(r.wall.median, r.cpuChain.median)},
            {"ratio_vs_tapi", r.tapiTimed ? ratio(r.wall.median, r.tapiChain.median) : NAN}}},
      {"fusion", fusionJson(r)},
      {"engine", engineJson(r)},
      {"check", checkJson(r)},
  };
}

}  // namespace vf::bench
