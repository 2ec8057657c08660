#pragma once
// Device times from OpenCL event profiling (queues made with CL_QUEUE_PROFILING_ENABLE, as
// ClContext::makeQueue does). A null event, or one whose profiling the driver does not report,
// counts as no time, never as an error: timing never stops a frame.
#include "pipeline/cl/opencl.hpp"

namespace vf {

// The event's CL_PROFILING_COMMAND_QUEUED/START/END in ns; false when unavailable.
bool profilingTime(const cl::Event& e, cl_profiling_info what, cl_ulong& ns);

// Device time from the start of `first` to the end of `last` in ms (0 if unavailable).
double spanMs(const cl::Event& first, const cl::Event& last);

// Device time of a completed event in ms (END - START); 0 if unavailable.
inline double eventMs(const cl::Event& e) { return spanMs(e, e); }

}  // namespace vf
