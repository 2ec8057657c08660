#pragma once
// What equalize and threshold share (kernels/lut.cl): this frame's histogram on the device (an
// upstream hist stage's when the chain publishes one, else counted here), and the per-channel
// 256-entry table applied to every byte. Nothing is read back to the host.
#include <string>
#include <vector>

#include "pipeline/stage.hpp"
#include "pipeline/stages/histogram_kernel.hpp"

namespace vf {

// This frame's histogram, channel-major, channels x 256 uint.
class FrameHistogram {
 public:
  void configure(StageContext& ctx, const FrameDesc& in);
  // Counts the frame when no upstream stage did (else enqueues nothing: first, last null).
  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& frame,
                      const std::vector<cl::Event>& wait);
  cl::Buffer buffer() const;  // this frame's, after enqueue
  bool own() const { return !upstream_; }

 private:
  HistogramKernel hist_;
  PublishedBuffer upstream_;
};

// dst = lut[channel][src], tables of `tableChannels` channels (a bgra frame's alpha passes).
class LutApply {
 public:
  void configure(ClContext& cl, const FrameDesc& in, int tableChannels);
  const cl::Program& program() const { return program_; }
  cl::Event enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                    const cl::Buffer& lut, const std::vector<cl::Event>& wait);
  // Runs `build` (one 256-item group per table, after `wait`) to fill `lut`, then applies it;
  // `ev` gets the table's event as its first when it has none, and the apply's as its last.
  void buildAndApply(cl::CommandQueue& q, cl::Kernel& build, int tables, const cl::Buffer& in,
                     const cl::Buffer& out, const cl::Buffer& lut,
                     const std::vector<cl::Event>& wait, StageEvents& ev);
  std::string schedule() const;

 private:
  cl::Program program_;
  cl::Kernel kernel_;
  FrameDesc in_;
  std::size_t items_ = 0, local_ = 64;
};

// Drops null events (launchKernel takes them, the chain's callers may pass them).
std::vector<cl::Event> liveEvents(const std::vector<cl::Event>& wait);

}  // namespace vf
