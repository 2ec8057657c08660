#include "pipeline/cl/context.hpp"

#include "pipeline/cl/pocl_cache.hpp"
#include "pipeline/error.hpp"

namespace vf {

ClContext::ClContext(const DeviceInfo& device) : ClContext(device, queryDeviceFacts(device)) {}

ClContext::ClContext(const DeviceInfo& device, const DeviceFacts& facts)
    : info_(device), facts_(facts) {
  // PoCL lists its device with a cache it cannot use (a regular file at its name), and then
  // fails every build with an empty log.
  if (facts_.pocl)
    if (std::string why = poclCacheProblem(); !why.empty()) throw RuntimeError(why);
  context_ = clCall("clCreateContext(" + info_.name + ")",
                    [&] { return cl::Context(std::vector<cl::Device>{info_.device}); });
  programs_ = std::make_unique<ProgramCache>(context_, info_);
}

std::shared_ptr<ClContext> ClContext::open(const std::string& selector) {
  return std::make_shared<ClContext>(selectDevice(selector));
}

cl::CommandQueue ClContext::makeQueue() const {
  return clCall("clCreateCommandQueue", [&] {
    return cl::CommandQueue(context_, info_.device, CL_QUEUE_PROFILING_ENABLE);
  });
}

}  // namespace vf
