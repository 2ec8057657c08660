#pragma once
// Runs several inputs in one process on one device: each input its own source, chain, engine
// (slots and queues) and output, several at once; their frames interleave on the device, each
// keeps its order and its own statistics. A failing input ends alone with its error; Ctrl-C
// stops every running input (each output finished and playable) and starts no other.
#include <memory>
#include <string>
#include <vector>

#include "app/job_report.hpp"
#include "app/options.hpp"
#include "app/sinks.hpp"
#include "app/sources.hpp"
#include "pipeline/cl/context.hpp"

namespace vf::app {

// One input as planned and checked: how to read it and where its frames go.
struct PlannedJob {
  JobSpec spec;
  SourceSpec source;
  OutputSpec output;      // kind None: the frames are discarded
  std::string writePath;  // batch: the temporary name renamed to spec.output when complete
  std::string problem;    // found while planning (an input not found): fails without running
  bool skip = false;      // batch: the output exists, complete
};

// Sees each input start and end, and gets its frames besides its output (the preview of
// several inputs, app/tile_preview.hpp). Called from the inputs' worker threads.
class JobWatcher {
 public:
  virtual ~JobWatcher() = default;
  // Input k is open: `source` as opened, `chain` (configured) makes its frames. The sink
  // returned (null: none) gets each frame after the output; it may hold the input (pause) or
  // stop it.
  virtual FrameSink* started(std::size_t k, const CaptureSource& source, const Chain& chain) = 0;
  // Input k ended as `r` says (also one that never started: skipped, or a problem found while
  // planning).
  virtual void ended(std::size_t k, const JobResult& r) = 0;
};

struct RunnerOptions {
  int atOnce = 1;
  bool progress = false;          // the live progress line on stderr
  JobWatcher* watcher = nullptr;  // every frame timed when set (the preview shows device times)
};

// Runs every job (at most `atOnce` at a time, in list order) and returns their results in the
// same order. // Worker i runs its jobs on device i modulo the number of devices.
std::vector<JobResult> runPlannedJobs(const std::vector<std::shared_ptr<ClContext>>& devices,
                                      const Settings& s, const std::vector<PlannedJob>& jobs,
                                      const RunnerOptions& o);

}  // namespace vf::app
