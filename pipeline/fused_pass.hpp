#pragma once
// One fused pass (pipeline/fusion.hpp): a kernel generated at configure time from its stages'
// PointFn sources that reads each pixel once, applies the functions in chain order, counts the
// histograms of its counter stages at their places in that order (into the counter's own
// buffers, HistogramKernel::advance, so its side output and what it publishes are unchanged),
// and writes the pixel once.
//
// Schedule: a work-item takes 16 pixels at a time, loaded and stored as whole 16-byte vectors
// (the last partial chunk pixel by pixel); on CPUs the 16 pixels go through the functions
// together, their channels split into 16-lane vectors (the stages' own CPU kernels do the same).
// Without counters, one chunk per work-item. With counters, as the hist stage: one work-item per
// group on CPUs, each counting a contiguous block of chunks with plain increments into its group's
// local histogram; 256 per group on GPUs, a grid-stride loop with local atomics; each group adds
// its local counts to the frame's histogram at the end.
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/stage.hpp"

namespace vf {

class FusedPass {
 public:
  // `stages`: the pass's stages, configured, in chain order; `in`: the frame the first one
  // reads, its rows (and the output's) pitchPixels pixels apart (0: packed). Builds the kernel.
  // Throws std::logic_error when a stage is neither point-wise nor a counter (the planner never
  // makes such a pass).
  void configure(ClContext& cl, const std::vector<Stage*>& stages, const FrameDesc& in,
                 int pitchPixels = 0);

  // The pass for one frame: the first stage's prelude when its function starts the pass
  // (brightness=auto's levels, reading `in`), then the kernel, reading `in`, writing `out`.
  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait);

  const std::string& source() const { return source_; }  // the generated OpenCL C
  std::string schedule() const;                          // "pass=gray+hist local=1 groups=2"

 private:
  struct Counter {
    HistogramKernel* hist;
    int channels;
  };
  std::vector<Stage*> stages_;
  std::vector<Stage*> functions_;  // stages with a PointFn, in order
  std::vector<cl_uint> firstArg_;  // kernel argument index of each function's parameters
  std::vector<Counter> counters_;  // in chain order
  cl_uint firstCounterArg_ = 5;
  std::string source_, label_;
  cl::Kernel kernel_;
  FrameDesc in_;
  int local_ = 1, groups_ = 1;
  bool blocked_ = false;  // counters on a CPU: a contiguous block of pixels per work-item
};

// The kernel source for functions and counters in the order `stages` gives them (exposed for
// tests). `cpu`: 16 pixels through the functions at once as channel lanes, and with `local` 1
// counters count by contiguous blocks into `copies` sub-histograms each, rather than a pixel at
// a time and a grid stride with local atomics.
std::string fusedPassSource(const std::vector<Stage*>& stages, int inChannels, int local, bool cpu,
                            int copies = 1);

}  // namespace vf
