#pragma once
// How a slot's frame moves between its pinned host memory and the kernels
// (EngineOptions::Transfer), as one strategy the engine calls at each step of a frame:
//
//   Copy  a discrete GPU: non-blocking writes and reads between the pinned slot and the slot's
//         device buffers, on their own queues.
//   Map   a device that works in host memory (PoCL, integrated GPUs): the kernels use the
//         pinned slot buffers themselves, handed to the device by unmap and back by map, so no
//         byte is copied.
//
// Each call runs on the thread that owns the slot at that step (the engine's threading
// contract, pipeline/engine.cpp).
#include <memory>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/slot_ring.hpp"

namespace vf {

class SlotTransfer {
 public:
  virtual ~SlotTransfer() = default;

  // Enqueues the upload of s.in (s.hostIn's bytes) on `queue` and returns its event U (not
  // flushed).
  virtual cl::Event upload(Slot& s, cl::CommandQueue& queue) = 0;
  // Before the chain: makes the output side ready for s.out's bytes, in `compute`'s order.
  virtual void prepareOutput(Slot& s, cl::CommandQueue& compute) = 0;
  // The buffers the chain reads and writes for this slot (after upload and prepareOutput).
  virtual const cl::Buffer& chainInput(const Slot& s) const = 0;
  virtual const cl::Buffer& chainOutput(const Slot& s) const = 0;
  // After the chain (`after`): hands the output, and the input, back to the host on `queue`;
  // returns D, the event after which s.hostOut holds the result (not flushed).
  virtual cl::Event download(Slot& s, cl::CommandQueue& queue,
                             const std::vector<cl::Event>& after) = 0;
  // A frame uploaded and then discarded: waits for its upload and takes the input back, on
  // `mapQueue` where it must be mapped.
  virtual void undoUpload(Slot& s, cl::CommandQueue& mapQueue) = 0;
  // Whether the kernels work in the slots' own buffers (Map).
  virtual bool zeroCopy() const = 0;
};

std::unique_ptr<SlotTransfer> makeSlotTransfer(bool zeroCopy, const ClContext& cl);

}  // namespace vf
