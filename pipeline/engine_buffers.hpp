#pragma once
// Memory the streaming engine owns per slot: pinned (page-locked) host buffers that stay mapped
// for their whole life, and device buffers, both grown on demand and never shrunk. Plus the
// counters the leak test reads.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pipeline/cl/opencl.hpp"

namespace vf {

// OpenCL objects the engine holds right now, over all engines of the process: buffers it
// allocated (pinned host and device) and events it keeps for frames in flight. For leak tests:
// both must return to their earlier values when an engine is destroyed, and stay bounded
// (by the slot count) while it runs.
struct EngineObjectCounts {
  long buffers = 0;
  long events = 0;
};
EngineObjectCounts engineObjectCounts();

namespace detail {
void countEngineBuffers(long delta);
void countEngineEvents(long delta);
}  // namespace detail

// A host buffer the device copies from and to at full speed. Allocated with
// CL_MEM_ALLOC_HOST_PTR (the driver pins it; NVIDIA moves pinned memory at ~4x the rate of
// pageable memory) and mapped once: the mapped pointer is what the engine hands to sources and
// sinks and what it passes to non-blocking reads and writes of its device buffers. Unmapped
// when destroyed or grown.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  // Makes capacity() >= bytes, reallocating (contents lost) when smaller. `mapQueue` maps and
  // later unmaps; it must not be a queue whose commands the map would have to wait behind.
  void reserve(const cl::Context& context, const cl::CommandQueue& mapQueue, std::size_t bytes);
  // The mapped host pointer (nullptr while the device owns the buffer, see unmap()).
  std::uint8_t* data() const { return mapped_ ? ptr_ : nullptr; }
  std::size_t capacity() const { return capacity_; }
  const cl::Buffer& buffer() const { return buffer_; }
  bool mapped() const { return mapped_; }

  // Zero-copy hand-over on devices that share host memory: unmap() gives the buffer to the
  // device (kernels may use buffer() once the returned event completes), map() takes it back
  // (data() is valid once the returned event completes). Both are non-blocking.
  cl::Event unmap(cl::CommandQueue& queue, const std::vector<cl::Event>* wait = nullptr);
  cl::Event map(cl::CommandQueue& queue, cl_map_flags flags, const std::vector<cl::Event>& wait);
  void reset() noexcept { release(); }  // frees the buffer (unmapping it first if mapped)

 private:
  void release() noexcept;
  cl::Buffer buffer_;
  cl::CommandQueue queue_;
  std::uint8_t* ptr_ = nullptr;
  std::size_t capacity_ = 0;
  bool mapped_ = false;
};

// A device buffer that grows on demand (counted like the pinned ones).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void reserve(const cl::Context& context, std::size_t bytes);
  const cl::Buffer& buffer() const { return buffer_; }
  std::size_t capacity() const { return capacity_; }

 private:
  void release() noexcept;
  cl::Buffer buffer_;
  std::size_t capacity_ = 0;
};

}  // namespace vf
