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

// Device time of frames through a chain in ms: from the earliest START of `from`'s first
// commands to the latest END of `to`'s last ones (`from`, `to`: one frame's items with `first` and
// `last` events, as StageEvents; the same frame for its own time). Stages without a time are left
// out; 0 when either side has none.
template <class Stages>
double framesSpanMs(const Stages& from, const Stages& to) {
  cl_ulong first = 0, last = 0;
  bool haveFirst = false, haveLast = false;
  for (const auto& ev : from) {
    cl_ulong t = 0;
    if (!profilingTime(ev.first, CL_PROFILING_COMMAND_START, t)) continue;
    first = haveFirst ? std::min(first, t) : t;
    haveFirst = true;
  }
  for (const auto& ev : to) {
    cl_ulong t = 0;
    if (!profilingTime(ev.last, CL_PROFILING_COMMAND_END, t)) continue;
    last = haveLast ? std::max(last, t) : t;
    haveLast = true;
  }
  return haveFirst && haveLast && last > first ? double(last - first) * 1e-6 : 0.0;
}

// Device time of one frame through a chain in ms (framesSpanMs of the frame alone).
template <class Stages>
double stagesSpanMs(const Stages& stages) {
  return framesSpanMs(stages, stages);
}

}  // namespace vf
