#include "app/bench/timing.hpp"

#include <algorithm>
#include <numeric>

#include "pipeline/cl/error.hpp"
#include "pipeline/cl/event_timing.hpp"
#include "pipeline/percentile.hpp"

namespace vf::bench {

Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = median(v);
  s.p99 = percentile(v, 0.99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  s.min = v.front();
  return s;
}

namespace {

cl::Buffer deviceBuffer(ClContext& cl, std::size_t bytes, const char* what) {
  return clCall(what, [&] { return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, bytes); });
}

// The bandwidth ceiling, in the same run: a device-to-device copy of one input frame.
std::vector<double> timeCopies(ClContext& cl, cl::CommandQueue& q,
                               const std::vector<cl::Buffer>& in, std::size_t bytes,
                               const Runs& runs) {
  cl::Buffer dst = deviceBuffer(cl, bytes, "clCreateBuffer(bench copy)");
  std::vector<double> ms;
  for (int r = 0; r < runs.warmup + runs.frames; ++r) {
    cl::Event e;
    clCall("clEnqueueCopyBuffer(bench)", [&] {
      q.enqueueCopyBuffer(in[r % in.size()], dst, 0, 0, bytes, nullptr, &e);
      e.wait();
    });
    if (r >= runs.warmup) ms.push_back(eventMs(e));
  }
  return ms;
}

// One timed run's device times into `t`.
void record(const ChainRun& run, VfTimes& t) {
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const StageEvents& ev = run.stages[i];
    t.stageMs[i].push_back(spanMs(ev.first, ev.last));
    if (ev.first() && ev.last() && ev.first() != ev.last()) {
      t.firstMs[i].push_back(eventMs(ev.first));
      t.lastMs[i].push_back(eventMs(ev.last));
    }
  }
  t.spanMs.push_back(stagesSpanMs(run.stages));
}

}  // namespace

VfTimes timeVidfilter(ClContext& cl, Chain& chain, const std::vector<cv::Mat>& frames,
                      const Runs& runs) {
  cl::CommandQueue q = cl.makeQueue();
  const FrameDesc in = chain.input();
  std::vector<cl::Buffer> dIn;
  for (const cv::Mat& f : frames) dIn.push_back(chain.inputBuffer(cl, q, f.data));
  cl::Buffer dOut = chain.outputBuffer(cl);
  VfTimes t;
  t.stageMs.resize(chain.size());
  t.firstMs.resize(chain.size());
  t.lastMs.resize(chain.size());
  t.copyMs = timeCopies(cl, q, dIn, in.bytes(), runs);
  std::vector<std::vector<std::uint8_t>> side;
  for (int r = 0; r < runs.warmup + runs.frames; ++r) {
    const auto t0 = Clock::now();
    ChainRun run = chain.enqueue(q, dIn[r % dIn.size()], dOut, {}, &side);
    if (run.done()) clCall("clWaitForEvents(bench)", [&] { run.done.wait(); });
    const double wall = msSince(t0);
    if (r < runs.warmup) continue;
    t.wallMs.push_back(wall);
    record(run, t);
  }
  clCall("clFinish(bench)", [&] { q.finish(); });
  return t;
}

double streamedFrameMs(ClContext& cl, cl::CommandQueue& q, Chain& chain,
                       const std::vector<cl::Buffer>& inputs, const cl::Buffer& out, int frames,
                       std::vector<std::vector<std::uint8_t>>* side) {
  if (frames <= 0 || inputs.empty()) return 0;
  std::vector<ChainRun> runs;
  cl::UserEvent gate(cl.context());
  for (int k = 0; k < frames; ++k)
    runs.push_back(chain.enqueue(q, inputs[std::size_t(k) % inputs.size()], out,
                                 k == 0 ? std::vector<cl::Event>{gate} : std::vector<cl::Event>{},
                                 side, false));
  clCall("clSetUserEventStatus(bench streamed)", [&] { gate.setStatus(CL_COMPLETE); });
  clCall("clFinish(bench streamed)", [&] { q.finish(); });
  return framesSpanMs(runs.front().stages, runs.back().stages) / frames;
}

}  // namespace vf::bench
