#include "app/cl_hint.hpp"

#include <cstdlib>

#include "pipeline/cl/opencl.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

std::string clHint(int code) {
  switch (code) {
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE:
      return "; the device ran out of memory or resources: try fewer --slots, a smaller frame, "
             "or another --device (--list-devices)";
    case CL_INVALID_KERNEL_NAME:
      if (const char* dir = std::getenv("VIDFILTER_KERNEL_DIR"); dir && *dir)
        return "; a kernel vidfilter needs is missing from the .cl files in "
               "VIDFILTER_KERNEL_DIR=" +
               printable(dir) + " (a renamed or removed kernel function?)";
      return "";
    default:
      return "";
  }
}

}  // namespace vf::app
