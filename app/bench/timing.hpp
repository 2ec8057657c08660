#pragma once
// vidfilter's side of `vidfilter bench`: the chain enqueued on frames resident on the device, each
// stage timed by the device's profiling; a device-to-device copy of one frame as the bandwidth
// ceiling; and the statistic every figure of the benchmark reports.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <opencv2/core.hpp>
#include <vector>

#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"

namespace vf::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Median, p99 (nearest rank), mean and minimum of a set of times.
struct Summary {
  double median = 0, p99 = 0, mean = 0, min = 0;
  std::size_t n = 0;
};
Summary summarize(std::vector<double> times);

// How many runs: `warmup` untimed, then `frames` timed.
struct Runs {
  int warmup = 10;
  int frames = 100;
};

struct VfTimes {
  std::vector<std::vector<double>> stageMs;  // [stage][run]
  // For stages of two kernels or more (blur: rows, columns): the first and the last command.
  std::vector<std::vector<double>> firstMs, lastMs;  // [stage][run]
  std::vector<double> copyMs;  // clEnqueueCopyBuffer of one input frame, device to device
  std::vector<double> spanMs;  // first stage START .. last stage END
  std::vector<double> wallMs;  // host: enqueue .. done event complete
};

// Device time per frame with `frames` runs of `chain` enqueued back to back on `q` (inputs
// rotated, events on the first and last pass as the engine's untimed frames, side outputs read
// into `side` when given), held behind a user event until all are enqueued so that the device
// runs them one after another, not at the pace the host enqueues them: the span from the first
// frame's first START to the last frame's last END over `frames` (0 if unavailable).
double streamedFrameMs(ClContext& cl, cl::CommandQueue& q, Chain& chain,
                       const std::vector<cl::Buffer>& inputs, const cl::Buffer& out, int frames,
                       std::vector<std::vector<std::uint8_t>>* side = nullptr);

// `frames` (the chain's input size and format) uploaded once, then copied and run through the
// configured `chain` in turn.
VfTimes timeVidfilter(ClContext& cl, Chain& chain, const std::vector<cv::Mat>& frames,
                      const Runs& runs);

}  // namespace vf::bench
