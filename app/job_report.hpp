#pragma once
// What a run with several inputs tells at its end: a table with one line per input (frames,
// fps, device time, what happened) on stderr, and the same as a JSON document (--json) for
// batch tools.
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "app/job_list.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

enum class JobStatus { Waiting, Done, Skipped, Failed, Stopped };
const char* statusName(JobStatus s);  // "waiting", "done", "skipped", "failed", "stopped"

struct JobResult {
  JobSpec spec;
  JobStatus status = JobStatus::Waiting;
  std::string error;        // why it failed, or why it was skipped
  bool usage = false;       // it failed for what the user gave (a UserError: exit 2 alone)
  std::string device;       // "P:D" of the device it ran on ("" when it never ran)
  std::string description;  // the source as opened ("a.mp4 (768x576 bgr, 10 fps, 795 frames)")
  EngineStats stats;        // at its end (empty when it never ran)
  std::int64_t framesWritten = -1;    // what its output holds (-1: no output, or it never ran)
  std::vector<std::string> warnings;  // what its input's end said (the source's notes())
  // One input over several devices: the frames each delivered, by "P:D".
  std::vector<std::pair<std::string, std::uint64_t>> framesPerDevice;
};

struct RunReport {
  std::string device;  // every device of the run: "0:0 NAME, 0:1 NAME"
  std::string chain;
  double elapsedSec = 0;
  int exitStatus = 0;
  int atOnce = 1;     // inputs run at once
  std::string shard;  // "1/3 (SLURM_ARRAY_TASK_ID)" for batch, else ""
  std::string error;  // why the run was refused before its inputs were known, else ""
  std::vector<JobResult> jobs;
  // Per device ("P:D"), the share of the run's time it was busy: the time in which any of its
  // commands ran (uploads, chains, downloads of every input, from profiling, overlaps counted
  // once: DeviceActivity) over the run's wall time.
  std::vector<std::pair<std::string, double>> deviceBusy;
};

// The report of a run that failed before any input started (no device opened): every input
// failed with `why`; exit status 2 for what the user gave (a UserError), else 1.
RunReport unstartedReport(const std::vector<JobSpec>& jobs, const std::string& chain,
                          const std::string& shard, const std::exception& why);

// The table, for stderr.
std::string formatJobTable(const RunReport& r);

// The JSON document: {"device", "chain", "elapsed_s", "exit_status", "shard", "error" (a run
// refused before its inputs were known), "inputs": [{"index",
// "input", "output", "status", "error", "frames_in", "frames_out", "dropped", "fps",
// "elapsed_s", "device_ms": {stage: mean}, "latency_ms": {"p50", "p99"}}], "device_busy":
// {"P:D": share}}.
std::string jobReportJson(const RunReport& r);

// Writes jobReportJson to `path` (whole or not at all; "-": stdout). Throws RuntimeError.
void writeJobReport(const std::string& path, const RunReport& r);

// Whether the file at `path` is what vidfilter writes there: a run's --json summary
// (`kind` "--json") or --stats lines ("--stats"). A batch task run again replaces its own; it
// never replaces another file without -y.
bool writtenByVidfilter(const std::string& path, const std::string& kind);

}  // namespace vf::app
