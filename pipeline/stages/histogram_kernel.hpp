#pragma once
// The histogram kernel (kernels/hist.cl) with its host side: program, schedule, the device
// histogram buffers, and the per-frame accumulate. Shared by the hist stage and by
// brightness=auto when no hist stage runs before it on the same frame.
//
// One command per frame, no separate clear: the histogram is double-buffered. Frame k (counted
// from configure) accumulates into buffer k % 2 and the same launch zeroes buffer (k + 1) % 2,
// the one frame k + 1 accumulates into. Both start zeroed (created from zeros at configure).
// This is correct as long as every frame is enqueued on one in-order queue and every reader of
// frame k's histogram (a later stage of the chain, the side-output read-back) is enqueued on
// that queue before frame k + 1's launch, which zeroes frame k's buffer (the one frame k + 1
// does not count into).
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/cl/opencl.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/stage.hpp"

namespace vf {

// Work distribution of the histogram kernel; 0 / empty = chosen for the device at configure.
struct HistogramSchedule {
  int groups = 0;      // work-groups (each keeps its sub-histograms in local memory)
  int local = 0;       // work-items per work-group (1 on CPU devices: no local atomics needed)
  int copies = 0;      // sub-histograms per work-group, a power of two (see kernels/hist.cl)
  std::string spread;  // local > 1: which copy a work-item uses: "warp" or "lane"
  int unroll = 0;      // chunks a work-item loads before counting them (0: 1 on CPUs, 4 on GPUs)
};

class HistogramKernel {
 public:
  static constexpr int kBins = 256;

  // Builds the program for frames like `in`, their rows pitchPixels pixels apart (0: packed),
  // and allocates the two zeroed histograms (channels x 256 uint each, channel-major). Throws
  // UserError when the device cannot run the requested local size.
  void configure(ClContext& cl, const FrameDesc& in, const HistogramSchedule& schedule = {},
                 int pitchPixels = 0);

  // For one frame in `frame`: one kernel that counts every byte into the next histogram buffer
  // (which becomes buffer()) and zeroes the other one. first == last. Nothing is read back.
  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& frame,
                      const std::vector<cl::Event>& wait);

  // For a fused pass that counts this frame itself (pipeline/fusion.hpp): the buffer to count
  // into (zeroed) and the one to zero, exactly as enqueue() would use them; from then on
  // buffer() is the first. Call it once per frame, when the pass is enqueued.
  struct Targets {
    cl::Buffer count, clear;
  };
  Targets advance() {
    const int next = 1 - current_;
    current_ = next;
    return {hist_[next], hist_[1 - next]};
  }

  // The histogram of the frame enqueued last (before any enqueue: a zeroed buffer). Read it
  // with commands enqueued after that frame on the same queue, before the next frame's launch.
  const cl::Buffer& buffer() const { return hist_[current_]; }
  std::size_t bytes() const { return std::size_t(channels_) * kBins * sizeof(cl_uint); }
  int groups() const { return groups_; }  // as resolved at configure
  int local() const { return local_; }
  int copies() const { return copies_; }
  // The copies the schedule asked for (0: the device's default), for a kernel that counts in an
  // epilogue (pipeline/epilogue.hpp) with a schedule of its own.
  int requestedCopies() const { return requestedCopies_; }
  const std::string& spread() const { return spread_; }
  int unroll() const { return unroll_; }

 private:
  cl::Kernel kernel_;
  cl::Buffer hist_[2];
  int current_ = 1;  // the first enqueue accumulates into hist_[0]
  int channels_ = 1;
  int bytesPerFrame_ = 0;
  int groups_ = 1;
  int local_ = 1;
  int copies_ = 1;
  int requestedCopies_ = 0;
  std::string spread_;
  int unroll_ = 1;
};

}  // namespace vf
