#include "app/job_report.hpp"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "app/media/atomic_file.hpp"
#include "app/report.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

const char* statusName(JobStatus s) {
  switch (s) {
    case JobStatus::Waiting:
      return "waiting";
    case JobStatus::Done:
      return "done";
    case JobStatus::Skipped:
      return "skipped";
    case JobStatus::Failed:
      return "failed";
    case JobStatus::Stopped:
      return "stopped";
  }
  return "?";
}

namespace {

double averageFps(const EngineStats& st) {
  return st.elapsedSec > 0 ? static_cast<double>(st.framesOut) / st.elapsedSec : 0;
}

double chainMs(const EngineStats& st) {
  double total = 0;
  for (const auto& d : st.stageMs) total += d.mean;
  return total;
}

}  // namespace

std::string formatJobTable(const RunReport& r) {
  std::string s;
  char line[512];
  std::snprintf(line, sizeof line, "%4s %-5s %8s %9s %10s %-12s  %-8s %s\n", "#", "dev", "frames",
                "fps", "device ms", "time", "status", "input -> output");
  s += line;
  std::uint64_t frames = 0;
  int count[5] = {};
  for (const JobResult& j : r.jobs) {
    const bool ran = j.stats.elapsedSec > 0;
    frames += j.stats.framesOut;
    ++count[static_cast<int>(j.status)];
    std::string what = printable(j.spec.input);
    if (!j.spec.output.empty()) what += " -> " + printable(j.spec.output);
    // One input's error was the line just above the table; several inputs' scroll by, so the
    // table repeats each.
    if (!j.error.empty() && r.jobs.size() > 1) what += ": " + j.error;
    char fps[32] = "-", ms[32] = "-";
    if (ran) {
      std::snprintf(fps, sizeof fps, "%.1f", averageFps(j.stats));
      std::snprintf(ms, sizeof ms, "%.3f", chainMs(j.stats));
    }
    std::snprintf(line, sizeof line, "%4d %-5s %8llu %9s %10s %-12s  %-8s ", j.spec.index,
                  j.device.empty() ? "-" : j.device.c_str(),
                  static_cast<unsigned long long>(j.stats.framesOut), fps, ms,
                  ran ? formatDuration(j.stats.elapsedSec).c_str() : "-", statusName(j.status));
    s += line;
    s += what + "\n";
  }
  std::snprintf(line, sizeof line,
                "%zu input%s (%d at once%s%s) on %s: %llu frame%s in %s, %.1f fps", r.jobs.size(),
                r.jobs.size() == 1 ? "" : "s", r.atOnce, r.shard.empty() ? "" : ", share ",
                r.shard.c_str(), r.device.c_str(), static_cast<unsigned long long>(frames),
                frames == 1 ? "" : "s", formatDuration(r.elapsedSec).c_str(),
                r.elapsedSec > 0 ? static_cast<double>(frames) / r.elapsedSec : 0.0);
  s += line;
  for (JobStatus st : {JobStatus::Done, JobStatus::Skipped, JobStatus::Failed, JobStatus::Stopped,
                       JobStatus::Waiting})
    if (count[static_cast<int>(st)] > 0)
      s += "; " + std::to_string(count[static_cast<int>(st)]) + " " + statusName(st);
  s += "\n";
  std::string busy;
  for (const auto& [dev, share] : r.deviceBusy) {
    std::snprintf(line, sizeof line, "%s%s %.0f%%", busy.empty() ? "" : ", ", dev.c_str(),
                  100 * share);
    busy += line;
  }
  if (!busy.empty()) s += "device busy: " + busy + " (time any command ran over the run's time)\n";
  return s;
}

RunReport unstartedReport(const std::vector<JobSpec>& jobs, const std::string& chain,
                          const std::string& shard, const std::exception& why) {
  RunReport r;
  r.chain = chain;
  r.shard = shard;
  r.exitStatus = dynamic_cast<const UserError*>(&why) ? 2 : 1;
  for (const JobSpec& spec : jobs) {
    JobResult j;
    j.spec = spec;
    j.status = JobStatus::Failed;
    j.error = why.what();
    j.usage = r.exitStatus == 2;
    r.jobs.push_back(std::move(j));
  }
  return r;
}

std::string jobReportJson(const RunReport& r) {
  using json = nlohmann::ordered_json;
  json inputs = json::array();
  for (const JobResult& j : r.jobs) {
    json stages = json::object();
    for (std::size_t i = 0; i < j.stats.stageNames.size() && i < j.stats.stageMs.size(); ++i)
      if (!j.stats.stageNames[i].empty())  // else timed in its fused pass's entry
        stages[std::to_string(i + 1) + " " + j.stats.stageNames[i]] = j.stats.stageMs[i].mean;
    json o = {{"index", j.spec.index},
              {"input", j.spec.input},
              {"output", j.spec.output.empty() ? json(nullptr) : json(j.spec.output)},
              {"status", statusName(j.status)},
              {"device", j.device.empty() ? json(nullptr) : json(j.device)},
              {"error", j.error.empty() ? json(nullptr) : json(j.error)},
              {"source", j.description},
              {"frames_in", j.stats.framesIn},
              {"frames_out", j.stats.framesOut},
              {"frames_written", j.framesWritten < 0 ? json(nullptr) : json(j.framesWritten)},
              {"warnings", j.warnings},
              {"dropped", j.stats.dropped},
              {"fps", averageFps(j.stats)},
              {"elapsed_s", j.stats.elapsedSec},
              {"device_ms", stages},
              {"latency_ms", {{"p50", j.stats.latencyMs.p50}, {"p99", j.stats.latencyMs.p99}}}};
    if (!j.framesPerDevice.empty()) {
      json per = json::object();
      for (const auto& [dev, n] : j.framesPerDevice) per[dev] = n;
      o["frames_per_device"] = per;
    }
    inputs.push_back(std::move(o));
  }
  json busy = json::object();
  for (const auto& [dev, share] : r.deviceBusy) busy[dev] = share;
  const json doc = {{"device", r.device},
                    {"chain", r.chain},
                    {"elapsed_s", r.elapsedSec},
                    {"exit_status", r.exitStatus},
                    {"at_once", r.atOnce},
                    {"device_busy", busy},
                    {"shard", r.shard.empty() ? json(nullptr) : json(r.shard)},
                    {"error", r.error.empty() ? json(nullptr) : json(r.error)},
                    {"inputs", inputs}};
  // Names are bytes from the command line; invalid UTF-8 is replaced, never an exception.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void writeJobReport(const std::string& path, const RunReport& r) {
  const std::string text = jobReportJson(r);
  if (path == "-") {
    std::cout << text << std::flush;
    if (!std::cout) throw RuntimeError("--json -: writing to stdout failed");
    return;
  }
  media::writeTextAtomically(path, text, "--json");
}

bool writtenByVidfilter(const std::string& path, const std::string& kind) {
  using json = nlohmann::json;
  std::ifstream in(path);
  if (!in.is_open()) return false;  // unreadable: nothing tells it is ours
  std::string first;
  if (kind == "--stats") {
    if (!std::getline(in, first)) return true;  // empty: nothing to lose
    const json line = json::parse(first, nullptr, false);
    return line.is_object() && line.contains("index") && line.contains("stages");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty()) return true;
  const json doc = json::parse(text, nullptr, false);
  return doc.is_object() && doc.contains("inputs") && doc.contains("chain");
}

}  // namespace vf::app
