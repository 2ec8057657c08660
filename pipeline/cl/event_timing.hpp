#pragma once
// Device times from OpenCL event profiling (queues made with CL_QUEUE_PROFILING_ENABLE, as
// ClContext::makeQueue does). A null event, or one whose profiling the driver does not report,
// counts as no time, never as an error: timing never stops a frame.
#include <algorithm>

#include "pipeline/cl/opencl.hpp"

namespace vf {

// The event's CL_PROFILING_COMMAND_QUEUED/START/END in ns; false when unavailable.
bool profilingTime(const cl::Event& e, cl_profiling_info what, cl_ulong& ns);

// Device time from the start of `first` to the end of `last` in ms (0 if unavailable).
double spanMs(const cl::Event& first, const cl::Event& last);

// Device time of a completed event in ms (END - START); 0 if unavailable.
inline double eventMs(const cl::Event& e) { return spanMs(e, e); }

// Device time of one frame through a chain in ms: from the earliest START of the stages' first
// commands to the latest END of their last ones (`stages`: items with `first` and `last` events,
// as StageEvents). Stages without a time are left out; 0 when none has one.
template <class Stages>
double stagesSpanMs(const Stages& stages) {
  cl_ulong first = 0, last = 0;
  bool any = false;
  for (const auto& ev : stages) {
    cl_ulong s = 0, e = 0;
    if (!profilingTime(ev.first, CL_PROFILING_COMMAND_START, s) ||
        !profilingTime(ev.last, CL_PROFILING_COMMAND_END, e))
      continue;
    first = any ? std::min(first, s) : s;
    last = any ? std::max(last, e) : e;
    any = true;
  }
  return any && last > first ? double(last - first) * 1e-6 : 0.0;
}

}  // namespace vf
