#pragma once
// The histogram kernel (kernels/hist.cl) with its host side: program, schedule, the device
// histogram buffer, and the per-frame clear + accumulate. Shared by the hist stage and by
// brightness=auto when no hist stage runs before it on the same frame.
#include <cstddef>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/cl/opencl.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/stage.hpp"

namespace vf {

// Work distribution of the histogram kernel; 0 = chosen for the device at configure time.
struct HistogramSchedule {
  int groups = 0;  // work-groups (each keeps one sub-histogram in local memory)
  int local = 0;   // work-items per work-group (1 on CPU devices: no local atomics needed)
};

class HistogramKernel {
 public:
  static constexpr int kBins = 256;

  // Builds the program for frames like `in` and allocates the histogram (channels x 256 uint,
  // channel-major). Throws UserError when the device cannot run the requested local size.
  void configure(ClContext& cl, const FrameDesc& in, const HistogramSchedule& schedule = {});

  // For one frame in `frame`: clears the histogram (first event), then counts every byte and
  // merges the sub-histograms into it (last event). Nothing is read back.
  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& frame,
                      const std::vector<cl::Event>& wait);

  const cl::Buffer& buffer() const { return hist_; }
  std::size_t bytes() const { return std::size_t(channels_) * kBins * sizeof(cl_uint); }
  int groups() const { return groups_; }  // as resolved at configure
  int local() const { return local_; }

 private:
  cl::Kernel kernel_;
  cl::Buffer hist_;
  int channels_ = 1;
  int bytesPerFrame_ = 0;
  int groups_ = 1;
  int local_ = 1;
};

}  // namespace vf
