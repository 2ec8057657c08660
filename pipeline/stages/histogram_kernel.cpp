#include "pipeline/stages/histogram_kernel.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"

namespace vf {
namespace {

// Bytes one work-item reads per loop step in hist.cl (16, or 48 for 3 channels).
int chunkBytes(int channels) { return channels == 3 ? 48 : 16; }

// Why these defaults:
// - CPU (PoCL): a work-group is run by one thread as a loop over its work-items, and a local
//   atomic is a locked instruction, over ten times the cost of a plain increment; with one
//   work-item per group the sub-histogram has a single writer and plain increments do. One
//   group per compute unit (more only add merges), 4 copies by pixel (see hist.cl: consecutive
//   equal pixels do not wait on one another's increments).
// - GPU: 256 work-items share one sub-histogram (local atomics, fast on-chip), one group per
//   compute unit, so the merge is only units x bins global atomics; more groups per unit and
//   more copies measured no faster. A work-item loads 4 chunks before counting them (unroll),
//   so their load latencies overlap instead of adding up.
HistogramSchedule resolve(const DeviceFacts& dev, HistogramSchedule s) {
  const bool cpu = dev.cpu;
  const int units = static_cast<int>(dev.computeUnits);
  if (s.local <= 0) s.local = cpu ? 1 : 256;
  if (s.groups <= 0) s.groups = units;
  if (s.copies <= 0) s.copies = s.local == 1 ? 4 : 1;
  if (s.spread.empty()) s.spread = "lane";
  if (s.unroll <= 0) s.unroll = cpu ? 1 : 4;
  return s;
}

}  // namespace

void HistogramKernel::configure(ClContext& cl, const FrameDesc& in,
                                const HistogramSchedule& requested, int pitchPixels) {
  const std::size_t pitch = std::size_t(std::max(pitchPixels, in.width)) * in.channels();
  if (pitch * std::size_t(in.height) > std::size_t(INT_MAX))
    throw UserError("hist: frame of " + std::to_string(in.bytes()) + " bytes is too large");
  channels_ = in.channels();
  bytesPerFrame_ = static_cast<int>(in.bytes());
  requestedCopies_ = requested.copies;
  const HistogramSchedule s = resolve(cl.facts(), requested);
  if (std::size_t(s.local) > cl.facts().maxWorkGroupSize)
    throw UserError("hist: local=" + std::to_string(s.local) + " exceeds the device's largest " +
                    "work-group (" + std::to_string(cl.facts().maxWorkGroupSize) + ")");
  local_ = s.local;
  // No more groups than there is work for (every group still clears and merges its bins).
  const int chunks = bytesPerFrame_ / chunkBytes(channels_);
  const int useful = std::max(1, (chunks + local_ - 1) / local_);
  groups_ = std::min(s.groups, useful);

  // Only as many sub-histograms as local memory holds (halved until they fit).
  int copies = s.copies;
  while (copies > 1 && std::uint64_t(copies) * bytes() > cl.facts().localMemBytes) copies /= 2;
  copies_ = copies;
  spread_ = local_ == 1 ? "pixel" : s.spread;
  const int spreadId = local_ == 1 ? 0 : (copies == 1 || s.spread == "warp" ? 1 : 2);
  unroll_ = s.unroll;
  const std::string opts = BuildOptions()
                               .define("CHANNELS", channels_)
                               .define("LOCAL", local_)
                               .define("COPIES", copies)
                               .define("SPREAD", spreadId)
                               .define("UNROLL", s.unroll)
                               .str();
  kernel_ = clCall("clCreateKernel(hist_accumulate)", [&] {
    return cl::Kernel(cl.programs().build("hist.cl", opts), "hist_accumulate");
  });
  const auto kernelMax = clCall("clGetKernelWorkGroupInfo(hist_accumulate)", [&] {
    return kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl.device());
  });
  if (std::size_t(local_) > kernelMax)
    throw UserError("hist: local=" + std::to_string(local_) +
                    " exceeds what the kernel can run "
                    "on this device (" +
                    std::to_string(kernelMax) + ")");
  // Both histograms start zeroed (no queue at configure: created from zeros); from then on
  // each launch zeroes the buffer the next launch accumulates into.
  std::vector<cl_uint> zeros(bytes() / sizeof(cl_uint), 0u);
  for (auto& h : hist_)
    h = clCall("clCreateBuffer(histogram)", [&] {
      return cl::Buffer(cl.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes(),
                        zeros.data());
    });
  current_ = 1;
  // Packed rows as one row of the whole frame; padded ones row by row.
  const bool packed = pitch == in.rowBytes();
  kernel_.setArg(1, packed ? bytesPerFrame_ : static_cast<cl_int>(in.rowBytes()));
  kernel_.setArg(2, packed ? 1 : in.height);
  kernel_.setArg(3, packed ? bytesPerFrame_ : static_cast<cl_int>(pitch));
}

StageEvents HistogramKernel::enqueue(cl::CommandQueue& queue, const cl::Buffer& frame,
                                     const std::vector<cl::Event>& wait) {
  const int next = 1 - current_;
  kernel_.setArg(0, frame);
  kernel_.setArg(4, hist_[next]);
  kernel_.setArg(5, hist_[current_]);
  const cl::Event e = launchKernel(queue, kernel_, cl::NDRange(std::size_t(groups_) * local_),
                                   cl::NDRange(local_), wait);
  current_ = next;  // only once enqueued: a failed launch changed nothing
  return {e, e};
}

}  // namespace vf
