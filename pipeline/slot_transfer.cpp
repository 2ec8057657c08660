#include "pipeline/slot_transfer.hpp"

#include <algorithm>

#include "pipeline/error.hpp"

namespace vf {
namespace {

// Pinned host memory <-> the slot's device buffers, by non-blocking writes and reads.
class CopyTransfer : public SlotTransfer {
 public:
  explicit CopyTransfer(const ClContext& cl) : context_(cl.context()) {}

  // Rows further apart on the device than on the host (s.inPitch, s.outPitch: the chain's
  // padded rows) move by rectangle: one command either way.
  cl::Event upload(Slot& s, cl::CommandQueue& queue) override {
    const std::size_t row = s.in.rowBytes(), pitch = std::max(s.inPitch, row);
    s.devIn.reserve(context_, pitch * std::size_t(s.in.height));
    cl::Event done;
    if (pitch == row) {
      clCall("clEnqueueWriteBuffer(upload)", [&] {
        queue.enqueueWriteBuffer(s.devIn.buffer(), CL_FALSE, 0, s.in.bytes(), s.hostIn.data(),
                                 nullptr, &done);
      });
    } else {
      clCall("clEnqueueWriteBufferRect(upload)", [&] {
        queue.enqueueWriteBufferRect(s.devIn.buffer(), CL_FALSE, {0, 0, 0}, {0, 0, 0},
                                     {row, std::size_t(s.in.height), 1}, pitch, 0, row, 0,
                                     s.hostIn.data(), nullptr, &done);
      });
    }
    return done;
  }

  void prepareOutput(Slot& s, cl::CommandQueue&) override {
    s.devOut.reserve(context_, std::max(s.outPitch, s.out.rowBytes()) * std::size_t(s.out.height));
  }

  const cl::Buffer& chainInput(const Slot& s) const override { return s.devIn.buffer(); }
  const cl::Buffer& chainOutput(const Slot& s) const override { return s.devOut.buffer(); }

  cl::Event download(Slot& s, cl::CommandQueue& queue,
                     const std::vector<cl::Event>& after) override {
    const std::size_t row = s.out.rowBytes(), pitch = std::max(s.outPitch, row);
    cl::Event done;
    if (pitch == row) {
      clCall("clEnqueueReadBuffer(download)", [&] {
        queue.enqueueReadBuffer(s.devOut.buffer(), CL_FALSE, 0, s.out.bytes(), s.hostOut.data(),
                                &after, &done);
      });
    } else {
      clCall("clEnqueueReadBufferRect(download)", [&] {
        queue.enqueueReadBufferRect(s.devOut.buffer(), CL_FALSE, {0, 0, 0}, {0, 0, 0},
                                    {row, std::size_t(s.out.height), 1}, pitch, 0, row, 0,
                                    s.hostOut.data(), &after, &done);
      });
    }
    return done;
  }

  void undoUpload(Slot& s, cl::CommandQueue&) override { s.upload.wait(); }

  bool zeroCopy() const override { return false; }

 private:
  cl::Context context_;
};

// The kernels read and write the slot's own pinned buffers: unmapping hands a buffer to the
// device, mapping it hands it back. On a device sharing host memory neither copies anything.
class MapTransfer : public SlotTransfer {
 public:
  cl::Event upload(Slot& s, cl::CommandQueue& queue) override { return s.hostIn.unmap(queue); }

  // On the compute queue, so it is in order before the chain writes the buffer.
  void prepareOutput(Slot& s, cl::CommandQueue& compute) override { s.hostOut.unmap(compute); }

  const cl::Buffer& chainInput(const Slot& s) const override { return s.hostIn.buffer(); }
  const cl::Buffer& chainOutput(const Slot& s) const override { return s.hostOut.buffer(); }

  // Both buffers mapped back after the chain; D is the output's map, the last command on the
  // in-order queue.
  cl::Event download(Slot& s, cl::CommandQueue& queue,
                     const std::vector<cl::Event>& after) override {
    s.hostIn.map(queue, CL_MAP_READ | CL_MAP_WRITE, after);
    return s.hostOut.map(queue, CL_MAP_READ | CL_MAP_WRITE, after);
  }

  void undoUpload(Slot& s, cl::CommandQueue& mapQueue) override {
    s.upload.wait();
    if (!s.hostIn.mapped()) s.hostIn.map(mapQueue, CL_MAP_READ | CL_MAP_WRITE, {s.upload}).wait();
  }

  bool zeroCopy() const override { return true; }
};

}  // namespace

std::unique_ptr<SlotTransfer> makeSlotTransfer(bool zeroCopy, const ClContext& cl) {
  if (zeroCopy) return std::make_unique<MapTransfer>();
  return std::make_unique<CopyTransfer>(cl);
}

}  // namespace vf
