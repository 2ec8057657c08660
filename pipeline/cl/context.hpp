#pragma once
#include <memory>
#include <string>

#include "pipeline/cl/device.hpp"
#include "pipeline/cl/device_activity.hpp"
#include "pipeline/cl/device_facts.hpp"
#include "pipeline/cl/event_timing.hpp"
#include "pipeline/cl/opencl.hpp"
#include "pipeline/cl/program_cache.hpp"

namespace vf {

// The OpenCL context of one device, its facts, its program cache, a factory for profiling
// queues, and the record of when its commands ran (shared by every engine on the device).
class ClContext {
 public:
  explicit ClContext(const DeviceInfo& device);
  // With the schedules chosen from `facts` instead of the device's own (tests run the GPU
  // schedules on a CPU device this way; the kernels still build for the real device, so
  // facts.nvidiaCc must not claim PTX the device's compiler lacks).
  ClContext(const DeviceInfo& device, const DeviceFacts& facts);
  // Selects with selectDevice(selector) and opens it.
  static std::shared_ptr<ClContext> open(const std::string& selector = "");

  const DeviceInfo& info() const { return info_; }
  const DeviceFacts& facts() const { return facts_; }
  const cl::Device& device() const { return info_.device; }
  const cl::Context& context() const { return context_; }
  ProgramCache& programs() { return *programs_; }
  DeviceActivity& activity() { return *activity_; }

  // A new in-order queue with profiling enabled (every stage's time comes from its event).
  cl::CommandQueue makeQueue() const;

 private:
  DeviceInfo info_;
  DeviceFacts facts_;
  cl::Context context_;
  std::unique_ptr<ProgramCache> programs_;
  std::unique_ptr<DeviceActivity> activity_ = std::make_unique<DeviceActivity>();
};

}  // namespace vf
