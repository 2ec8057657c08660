#include "pipeline/cl/event_timing.hpp"

namespace vf {

bool profilingTime(const cl::Event& e, cl_profiling_info what, cl_ulong& ns) {
  if (!e()) return false;
  try {
    e.getProfilingInfo(what, &ns);
    return true;
  } catch (const cl::Error&) {
    return false;  // CL_PROFILING_INFO_NOT_AVAILABLE: a queue without profiling, or no time yet
  }
}

double spanMs(const cl::Event& first, const cl::Event& last) {
  cl_ulong a = 0, b = 0;
  if (!profilingTime(first, CL_PROFILING_COMMAND_START, a) ||
      !profilingTime(last, CL_PROFILING_COMMAND_END, b) || b < a)
    return 0.0;
  return double(b - a) * 1e-6;
}

}  // namespace vf
