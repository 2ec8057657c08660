#include "app/bench/fusion_bench.hpp"

#include <algorithm>
#include <chrono>

#include "app/bench/timing.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/event_timing.hpp"
#include "pipeline/error.hpp"
#include "pipeline/percentile.hpp"

namespace vf::bench {

namespace {

FusionSide timeSide(ClContext& cl, const std::string& chainText, bool fuse, const FrameDesc& desc,
                    const std::vector<cl::Buffer>& inputs, int warmup, int runs) {
  Chain chain = Chain::parse(chainText);
  chain.setFusion(fuse ? Chain::Fusion::On : Chain::Fusion::Off);
  chain.configure(cl, desc);
  FusionSide side;
  for (const auto& p : chain.passes()) side.passes.push_back(p.label);
  cl::CommandQueue q = cl.makeQueue();
  cl::Buffer out = chain.outputBuffer(cl);
  std::vector<std::vector<std::uint8_t>> sideOut;
  std::vector<double> span, wall, launches;
  for (int r = 0; r < warmup + runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t before = kernelsLaunched();
    ChainRun run = chain.enqueue(q, inputs[r % inputs.size()], out, {}, &sideOut);
    const std::uint64_t launched = kernelsLaunched() - before;
    if (run.done()) clCall("clWaitForEvents(bench fusion)", [&] { run.done.wait(); });
    const double w =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r < warmup) continue;
    span.push_back(stagesSpanMs(run.stages));
    wall.push_back(w);
    launches.push_back(double(launched));
  }
  std::vector<double> untimed;
  for (int r = 0; r < warmup + runs; ++r) {
    ChainRun run = chain.enqueue(q, inputs[r % inputs.size()], out, {}, &sideOut, false);
    if (!run.done()) continue;
    clCall("clWaitForEvents(bench fusion)", [&] { run.done.wait(); });
    if (r >= warmup) untimed.push_back(stagesSpanMs(run.stages));
  }
  clCall("clFinish(bench fusion)", [&] { q.finish(); });
  side.streamedMs = streamedFrameMs(cl, q, chain, inputs, out, runs, &sideOut);
  for (auto* v : {&launches, &span, &wall, &untimed}) std::sort(v->begin(), v->end());
  side.launches = median(launches);
  side.spanMs = median(span);
  side.wallMs = median(wall);
  side.untimedSpanMs = median(untimed);
  return side;
}

}  // namespace

FusionComparison compareFusion(ClContext& cl, const std::string& chainText, const FrameDesc& desc,
                               const std::vector<cv::Mat>& frames, int warmup, int runs) {
  cl::CommandQueue q = cl.makeQueue();
  // The frames in the chain's row pitch (fused or not, the same).
  Chain probe = Chain::parse(chainText);
  probe.configure(cl, desc);
  std::vector<cl::Buffer> inputs;
  for (const cv::Mat& f : frames) inputs.push_back(probe.inputBuffer(cl, q, f.data));
  FusionComparison c;
  c.fused = timeSide(cl, chainText, true, desc, inputs, warmup, runs);
  c.unfused = timeSide(cl, chainText, false, desc, inputs, warmup, runs);
  return c;
}

}  // namespace vf::bench
