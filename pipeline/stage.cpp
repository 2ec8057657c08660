#include "pipeline/stage.hpp"

#include "pipeline/cl/error.hpp"

namespace vf {

cl::Event launchKernel(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                       const cl::NDRange& local, const std::vector<cl::Event>& wait) {
  cl::Event ev;
  std::string name;
  try {
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local,
                               wait.empty() ? nullptr : &wait, &ev);
  } catch (const cl::Error& e) {
    try {
      name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
    } catch (const cl::Error&) {
      name = "?";
    }
    throw ClError(e.err(), "clEnqueueNDRangeKernel(" + name + ")");
  }
  return ev;
}

}  // namespace vf
