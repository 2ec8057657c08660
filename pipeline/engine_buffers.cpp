#include "pipeline/engine_buffers.hpp"

#include <atomic>
#include <stdexcept>
#include <utility>

#include "pipeline/error.hpp"

namespace vf {

namespace {
std::atomic<long> gBuffers{0};
std::atomic<long> gEvents{0};
}  // namespace

EngineObjectCounts engineObjectCounts() { return {gBuffers.load(), gEvents.load()}; }

namespace detail {
void countEngineBuffers(long delta) { gBuffers.fetch_add(delta); }
void countEngineEvents(long delta) { gEvents.fetch_add(delta); }
}  // namespace detail

// --- PinnedBuffer ---------------------------------------------------------------------------

PinnedBuffer::~PinnedBuffer() { release(); }

PinnedBuffer::PinnedBuffer(PinnedBuffer&& o) noexcept
    : buffer_(std::move(o.buffer_)),
      queue_(std::move(o.queue_)),
      ptr_(std::exchange(o.ptr_, nullptr)),
      capacity_(std::exchange(o.capacity_, 0)),
      mapped_(std::exchange(o.mapped_, false)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    buffer_ = std::move(o.buffer_);
    queue_ = std::move(o.queue_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

void PinnedBuffer::reserve(const cl::Context& context, const cl::CommandQueue& mapQueue,
                           std::size_t bytes) {
  if (bytes <= capacity_ && buffer_()) {
    if (!mapped_) throw std::logic_error("PinnedBuffer::reserve while the device owns the buffer");
    return;
  }
  release();
  cl::Buffer buf = clCall("clCreateBuffer(pinned slot, CL_MEM_ALLOC_HOST_PTR)", [&] {
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
  });
  cl::CommandQueue q = mapQueue;
  void* p = clCall("clEnqueueMapBuffer(pinned slot)", [&] {
    return q.enqueueMapBuffer(buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
  });
  buffer_ = std::move(buf);
  queue_ = std::move(q);
  ptr_ = static_cast<std::uint8_t*>(p);
  capacity_ = bytes;
  mapped_ = true;
  detail::countEngineBuffers(+1);
}

cl::Event PinnedBuffer::unmap(cl::CommandQueue& queue, const std::vector<cl::Event>* wait) {
  if (!mapped_) throw std::logic_error("PinnedBuffer::unmap: not mapped");
  cl::Event done;
  clCall("clEnqueueUnmapMemObject(slot)",
         [&] { queue.enqueueUnmapMemObject(buffer_, ptr_, wait, &done); });
  mapped_ = false;
  return done;
}

cl::Event PinnedBuffer::map(cl::CommandQueue& queue, cl_map_flags flags,
                            const std::vector<cl::Event>& wait) {
  if (mapped_) throw std::logic_error("PinnedBuffer::map: already mapped");
  cl::Event done;
  void* p = clCall("clEnqueueMapBuffer(slot)", [&] {
    return queue.enqueueMapBuffer(buffer_, CL_FALSE, flags, 0, capacity_, &wait, &done);
  });
  ptr_ = static_cast<std::uint8_t*>(p);
  mapped_ = true;
  return done;
}

void PinnedBuffer::release() noexcept {
  if (!buffer_()) return;
  if (mapped_) {
    try {
      cl::Event done;
      queue_.enqueueUnmapMemObject(buffer_, ptr_, nullptr, &done);
      done.wait();
    } catch (...) {
      // Destruction cannot report; the buffer is released below either way.
    }
  }
  buffer_ = cl::Buffer();
  queue_ = cl::CommandQueue();
  ptr_ = nullptr;
  capacity_ = 0;
  mapped_ = false;
  detail::countEngineBuffers(-1);
}

// --- DeviceBuffer ---------------------------------------------------------------------------

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : buffer_(std::move(o.buffer_)), capacity_(std::exchange(o.capacity_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    buffer_ = std::move(o.buffer_);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

void DeviceBuffer::reserve(const cl::Context& context, std::size_t bytes) {
  if (bytes <= capacity_ && buffer_()) return;
  release();
  buffer_ = clCall("clCreateBuffer(engine slot)",
                   [&] { return cl::Buffer(context, CL_MEM_READ_WRITE, bytes); });
  capacity_ = bytes;
  detail::countEngineBuffers(+1);
}

void DeviceBuffer::release() noexcept {
  if (!buffer_()) return;
  buffer_ = cl::Buffer();
  capacity_ = 0;
  detail::countEngineBuffers(-1);
}

}  // namespace vf
