#include "app/bench/fusion_bench.hpp"

#include <algorithm>
#include <chrono>

#include "pipeline/chain.hpp"
#include "pipeline/error.hpp"

namespace vf::bench {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

cl_ulong profile(const cl::Event& e, cl_profiling_info what) {
  cl_ulong v = 0;
  clCall("clGetEventProfilingInfo", [&] { e.getProfilingInfo(what, &v); });
  return v;
}

FusionSide timeSide(ClContext& cl, const std::string& chainText, bool fuse, const FrameDesc& desc,
                    const std::vector<cl::Buffer>& inputs, int warmup, int runs) {
  Chain chain = Chain::parse(chainText);
  chain.setFusion(fuse ? Chain::Fusion::On : Chain::Fusion::Off);
  chain.configure(cl, desc);
  FusionSide side;
  for (const auto& p : chain.passes()) side.passes.push_back(p.label);
  cl::CommandQueue q = cl.makeQueue();
  cl::Buffer out = clCall("clCreateBuffer(bench fusion output)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_WRITE,
                      std::max<std::size_t>(chain.output().bytes(), 1));
  });
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
    cl_ulong first = 0, last = 0;
    for (const StageEvents& ev : run.stages) {
      if (!ev.first() || !ev.last()) continue;
      const cl_ulong s = profile(ev.first, CL_PROFILING_COMMAND_START);
      const cl_ulong e = profile(ev.last, CL_PROFILING_COMMAND_END);
      if (!first || s < first) first = s;
      last = std::max(last, e);
    }
    span.push_back(first ? double(last - first) * 1e-6 : 0);
    wall.push_back(w);
    launches.push_back(double(launched));
  }
  clCall("clFinish(bench fusion)", [&] { q.finish(); });
  side.launches = median(launches);
  side.spanMs = median(span);
  side.wallMs = median(wall);
  return side;
}

}  // namespace

FusionComparison compareFusion(ClContext& cl, const std::string& chainText, const FrameDesc& desc,
                               const std::vector<cv::Mat>& frames, int warmup, int runs) {
  cl::CommandQueue q = cl.makeQueue();
  std::vector<cl::Buffer> inputs;
  for (const cv::Mat& f : frames) {
    cl::Buffer b = clCall("clCreateBuffer(bench fusion input)", [&] {
      return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, desc.bytes());
    });
    clCall("clEnqueueWriteBuffer(bench fusion input)",
           [&] { q.enqueueWriteBuffer(b, CL_TRUE, 0, desc.bytes(), f.data); });
    inputs.push_back(b);
  }
  FusionComparison c;
  c.fused = timeSide(cl, chainText, true, desc, inputs, warmup, runs);
  c.unfused = timeSide(cl, chainText, false, desc, inputs, warmup, runs);
  return c;
}

}  // namespace vf::bench
