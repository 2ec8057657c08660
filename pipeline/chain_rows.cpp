// The chain's frames on the device: the rows' pitch (Chain::RowPitch, docs/DESIGN.md "Rows on
// the device"), buffers in that pitch, and one frame run from host rows to host rows.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "pipeline/chain.hpp"
#include "pipeline/error.hpp"

namespace vf {

bool Chain::setRowPitch(RowPitch mode) {
  if (pitchMode_ == mode) return false;
  pitchMode_ = mode;
  configured_ = false;
  return true;
}

bool Chain::padsRows(const ClContext& cl) const {
  if (pitchMode_ == RowPitch::Packed || (pitchMode_ == RowPitch::Auto && cl.facts().cpu))
    return false;
  for (std::size_t i = 0; i < stages_.size(); ++i)
    if (enabled_[i] && !stages_[i]->takesRowPitch()) return false;
  return true;
}

int Chain::pitchPixelsFor(const ClContext& cl, const FrameDesc& in) const {
  return padsRows(cl) ? paddedWidth(in.width) : in.width;
}

cl::Buffer Chain::inputBuffer(ClContext& cl, cl::CommandQueue& queue, const void* frame) const {
  if (!configured_) throw std::logic_error("Chain::inputBuffer before configure");
  cl::Buffer b = clCall("clCreateBuffer(chain input)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(inputBytes(), 1));
  });
  clCall("clEnqueueWriteBufferRect(chain input)", [&] {
    queue.enqueueWriteBufferRect(b, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                 {input_.rowBytes(), std::size_t(input_.height), 1}, inputPitch(),
                                 0, input_.rowBytes(), 0, frame);
  });
  return b;
}

cl::Buffer Chain::outputBuffer(ClContext& cl) const {
  if (!configured_) throw std::logic_error("Chain::outputBuffer before configure");
  return clCall("clCreateBuffer(chain output)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(outputBytes(), 1));
  });
}

ChainRun Chain::runOnce(ClContext& cl, cl::CommandQueue& queue, const FrameView& in,
                        const FrameView& out, std::vector<std::vector<std::uint8_t>>* side) {
  if (!configured_ || in.desc() != input_) configure(cl, in.desc());
  if (out.desc() != output_)
    throw std::invalid_argument("Chain::runOnce: output frame is " + out.desc().str() +
                                ", the chain produces " + output_.str());
  auto makeBuf = [&](std::size_t bytes) {
    return clCall("clCreateBuffer(runOnce)", [&] {
      return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1));
    });
  };
  cl::Buffer dIn = makeBuf(inputBytes()), dOut = makeBuf(outputBytes());
  const std::array<std::size_t, 3> origin{0, 0, 0};
  clCall("clEnqueueWriteBufferRect(runOnce)", [&] {
    queue.enqueueWriteBufferRect(dIn, CL_TRUE, origin, {0, 0, 0},
                                 {input_.rowBytes(), std::size_t(input_.height), 1}, inputPitch(),
                                 0, in.stride, 0, in.data);
  });
  ChainRun run = enqueue(queue, dIn, dOut, {}, side);
  clCall("clEnqueueReadBufferRect(runOnce)", [&] {
    queue.enqueueReadBufferRect(dOut, CL_TRUE, origin, {0, 0, 0},
                                {output_.rowBytes(), std::size_t(output_.height), 1}, outputPitch(),
                                0, out.stride, 0, out.data);
  });
  clCall("clFinish(runOnce)", [&] { queue.finish(); });
  return run;
}

}  // namespace vf
