#include "app/run_jobs.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "app/device_set.hpp"
#include "app/display.hpp"
#include "app/interrupt.hpp"
#include "app/job_report.hpp"
#include "app/job_runner.hpp"
#include "app/log_pattern.hpp"
#include "app/media/complete_output.hpp"
#include "app/media/path_safety.hpp"
#include "app/run_setup.hpp"
#include "app/std_streams.hpp"
#include "app/tile_preview.hpp"
#include "app/unused_options.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/signals_held.hpp"

namespace vf::app {

namespace fs = std::filesystem;

namespace {

// Batch outputs are written as ".NAME.partial.EXT" beside NAME.EXT (the same directory, so the
// rename is atomic; the same extension, so the container is the same).
std::string partialName(const std::string& path) {
  const fs::path p(path);
  return (p.parent_path() / ("." + p.stem().string() + ".partial" + p.extension().string()))
      .string();
}

PlannedJob plan(const JobSpec& spec, const Settings& s, bool batch) {
  PlannedJob j;
  j.spec = spec;
  try {
    j.source = classifySource(spec.input);
    checkInputFormat(s.inputFormat.value_or(""), j.source);
    checkSourceAccess(j.source);
  } catch (const UserError& e) {
    j.problem = e.what();
  }
  const auto notAFile = [&] {
    return UsageError(
        "vidfilter batch writes video files, renamed when complete: give -o 'DIR/{name}.mp4' (or "
        ".mkv, ...); got " +
        (spec.output == "-" ? std::string("'-' (stdout)") : quote(spec.output)));
  };
  if (batch && spec.output == "-") throw notAFile();  // before stdout's own checks
  Settings one = s;  // this input's run, as if it were the only one (a still image: one image out)
  one.input = spec.input;
  one.inputs.reset();
  one.inputsList.reset();
  one.output = spec.output.empty() ? std::nullopt : std::optional<std::string>(spec.output);
  j.output = classifyOutput(one);
  if (batch) {
    if (j.output.kind != OutputKind::Video || j.output.network) throw notAFile();
    std::error_code ec;
    if (fs::exists(spec.output, ec) && !s.overwrite.value_or(false)) {
      // Complete: skipped. Else (a killed run's, emptied, cut short) it is redone and replaced.
      // With -n it is left as it is, and the input fails. (A plain run stopped early closes its
      // file whole: its length cannot tell it from a run of an input that holds less than its
      // container declares, which would then be made again on every run.)
      const std::string why = media::incompleteVideo(spec.output);
      j.skip = why.empty();
      if (!j.skip && s.overwrite.has_value() && j.problem.empty())  // -n (-y comes not here)
        j.problem = quote(spec.output) + " exists but is not a complete video (" + why +
                    "), and -n keeps it: remove it, or leave -n out to make it again";
      else if (!j.skip && j.problem.empty())
        spdlog::warn("{} exists but is not a complete video ({}); it is made again",
                     quote(spec.output), why);
    }
    j.writePath = partialName(spec.output);
    if (const std::string why = media::fileNameProblem(j.writePath); !why.empty())
      throw UsageError("vidfilter batch writes " + quote(spec.output) + " as " +
                       quote(j.writePath) + " until it is complete: " + why);
  }
  return j;
}

// Nothing read is written over; existing outputs only as ffmpeg would (batch: complete outputs
// are skipped, -y redoes them; a partial file left by a stopped task is its own to replace).
void checkJobPaths(const Settings& s, const std::string& configPath, const Chain& chain,
                   const std::vector<PlannedJob>& jobs, const std::vector<JobSpec>& listed,
                   bool batch) {
  media::PathGuard g;
  if (!configPath.empty()) g.reads(configPath, "the config file");
  if (s.inputsList && *s.inputsList == "-")
    g.readsStdin("the input list");
  else if (s.inputsList)
    g.reads(*s.inputsList, "the input list");
  for (const std::string& f : chain.filesRead()) g.reads(f, "a kernel file");
  // A batch task checks against the whole list: the other shares are read by other tasks.
  const bool concat = s.inputFormat.value_or("") == "concat";  // -f concat: every input a list
  for (const JobSpec& o : listed)
    guardFileReads(g, o.input, "input " + std::to_string(o.index), concat);
  int pipes = 0;
  for (const PlannedJob& j : jobs) {
    if (!j.problem.empty()) continue;
    const std::string role = "input " + std::to_string(j.spec.index);
    guardSourceReads(g, j.source, role, concat);
    pipes += j.source.kind == SourceKind::Pipe ||
             (j.source.kind == SourceKind::File && namesStdinStream(j.source.text));
  }
  if (pipes > 1)
    throw UsageError(
        "stdin is read by more than one input (-i -, /dev/stdin): a pipe carries one video");
  const bool listOnStdin = s.inputsList && *s.inputsList == "-";
  if (pipes > 0 && listOnStdin)
    throw UsageError("-i - and --inputs -: stdin carries the list of inputs; give the list a file");
  for (const PlannedJob& j : jobs) {
    const std::string role = "the output of input " + std::to_string(j.spec.index);
    if (j.skip) {  // complete, not written again; but never an input taken for an output
      g.writes(j.spec.output, role);
      continue;
    }
    if (j.output.toStdout) g.writesStdout();
    const bool oneFile =
        j.output.kind == OutputKind::Video || (j.output.pattern && j.output.pattern->single);
    if (oneFile && !j.output.network && !j.output.toStdout) g.writes(j.spec.output, role);
    if (j.output.kind == OutputKind::ImageSequence && !j.output.pattern->single)
      g.writesPattern(j.spec.output, *j.output.pattern, role);
    // A link found at the temporary name is removed before the task writes (job_runner.cpp),
    // never written through: it is no path the task writes.
    std::error_code ec;
    if (!j.writePath.empty() && !fs::is_symlink(fs::symlink_status(j.writePath, ec))) {
      // never an input, another output (".a.partial.mkv") or another temporary name
      g.writes(j.writePath,
               "the temporary name of the output of input " + std::to_string(j.spec.index));
    }
    if (!j.spec.statsPath.empty())
      g.writes(j.spec.statsPath, "the --stats of input " + std::to_string(j.spec.index));
  }
  if (s.jsonPath && *s.jsonPath == "-") g.writesStdout("--json -");
  if (s.jsonPath && *s.jsonPath != "-") g.writes(*s.jsonPath, "--json");
  const media::Overwrite policy = batch || s.overwrite.value_or(false) ? media::Overwrite::Always
                                  : !s.overwrite                       ? media::Overwrite::Ask
                                                                       : media::Overwrite::Never;
  g.checkOverwrite(policy, ::isatty(STDIN_FILENO) == 1 && pipes == 0 && !listOnStdin);
  // A batch task replaces its own outputs and reports when run again (its complete outputs are
  // skipped); a report file of another kind only with -y, and nothing with -n.
  if (!batch) return;
  std::vector<std::pair<std::string, std::string>> reports;
  if (s.jsonPath && *s.jsonPath != "-") reports.emplace_back(*s.jsonPath, "--json");
  for (const PlannedJob& j : jobs)  // a skipped input writes no stats
    if (!j.spec.statsPath.empty() && !j.skip) reports.emplace_back(j.spec.statsPath, "--stats");
  for (const auto& [path, option] : reports) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    if (s.overwrite && !*s.overwrite)
      throw UsageError(option + " " + quote(path) +
                       " already exists, and -n never overwrites; "
                       "remove it or leave -n out (a batch task replaces its own reports)");
    if (!s.overwrite && !writtenByVidfilter(path, option))
      throw UsageError(option + " " + quote(path) +
                       " already exists and is no report of "
                       "vidfilter's; give -y to replace it, or another name");
  }
}

// `given`: the inputs were given as -i (not a list, not batch): when every one failed for what
// the user gave (an encoder's --preset, a missing file) it exits as one input alone does (2).
// Else any failed input makes it 1, whatever share of a list a task has.
int exitStatusOf(const std::vector<JobResult>& results, bool given) {
  if (const int sig = interruptSignal()) return 128 + sig;
  bool failed = false, allUsage = given && !results.empty();
  for (const JobResult& r : results) {
    failed = failed || r.status == JobStatus::Failed;
    allUsage = allUsage && r.status == JobStatus::Failed && r.usage;
  }
  return allUsage ? kExitUsage : failed ? kExitRuntime : kExitOk;
}

}  // namespace

namespace {

// --json's name for the task of `shard`: {shard} is its share's index.
std::string reportPath(std::string path, const Shard& shard) {
  const std::string index = std::to_string(shard.index);
  for (auto at = path.find("{shard}"); at != std::string::npos;
       at = path.find("{shard}", at + index.size()))
    path.replace(at, 7, index);
  return path;
}

// A run refused before any input ran (a chain typo, two inputs writing one name): a report an
// earlier run of vidfilter's left at --json would say that one passed; it is replaced by one that
// says why. Any other file there stays.
void replaceEarlierReport(const CommandLine& cl, const Settings& s, const std::exception& why) {
  if (!s.jsonPath || *s.jsonPath == "-" || interruptSignal()) return;
  try {
    const std::string path =
        reportPath(*s.jsonPath, cl.batch ? shardFrom(cl.shard, cl.shards) : Shard{});
    std::error_code ec;  // a regular file only: never read a pipe or a device (/dev/stdout)
    if (!fs::is_regular_file(path, ec) || !writtenByVidfilter(path, "--json")) return;
    RunReport r = unstartedReport({}, s.chain.value_or(""), "", why);
    r.error = why.what();
    writeJobReport(path, r);
  } catch (const std::exception& e) {  // the run's own error is the one said
    spdlog::debug("--json: the earlier report stays: {}", e.what());
  }
}

// runJobs' work; `reported` set once the run's report is written.
int runJobsReported(const CommandLine& cl, const Settings& s, bool& reported);

}  // namespace

int runJobs(const CommandLine& cl, const Settings& s) {
  bool reported = false;
  try {
    return runJobsReported(cl, s, reported);
  } catch (const std::exception& e) {
    if (!reported) replaceEarlierReport(cl, s, e);
    throw;
  }
}

namespace {

int runJobsReported(const CommandLine& cl, const Settings& s, bool& reported) {
  const Chain chain = Chain::parse(*s.chain);  // a wrong chain is the user's, before anything
  // A list on a FIFO or stdin may block: a signal meanwhile ends the run at once.
  std::vector<JobSpec> specs = openOrExitOnSignal([&] { return planJobs(s); }), listed;
  std::string shardText;
  Shard shard;
  if (cl.batch) {
    shard = shardFrom(cl.shard, cl.shards);
    const std::size_t all = specs.size();
    listed = std::move(specs);
    specs = takeShard(listed, shard);
    if (!shard.from.empty()) {
      shardText =
          std::to_string(shard.index) + "/" + std::to_string(shard.count) + " (" + shard.from + ")";
      spdlog::info("batch: share {}: {} of {} inputs", shardText, specs.size(), all);
    }
    for (const JobSpec& j : specs)
      if (j.output.empty())
        throw UsageError(
            "vidfilter batch needs outputs: -o 'DIR/{name}.mp4' (one name with "
            "{name} or {index}) or one -o per input");
  }
  // A task of a job array that runs every input: each task would write the same outputs.
  for (const char* var : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"})
    if (!cl.batch && specs.size() > 1 && std::getenv(var)) {
      spdlog::warn(
          "{} is set (a task of a job array), but this run takes every input: vidfilter batch "
          "takes the task's share of them",
          var);
      break;
    }
  if (cl.batch && s.preview.value_or(false))
    throw UsageError("vidfilter batch runs without a window: leave --preview out");
  for (const JobSpec& j : specs)  // each input's own (its {name}, {index})
    if (!j.statsPath.empty()) checkStatsPath(j.statsPath);
  // Each task of a job array writes its own summary: {shard} is its share's index.
  Settings settings = s;
  const std::string jsonPath = reportPath(s.jsonPath.value_or(""), shard);
  // As -o's unknown fields: a field the summary's name has not is a typo, never a literal name.
  static const std::regex field("\\{[A-Za-z_]+\\}");
  if (std::smatch m; s.jsonPath && std::regex_search(jsonPath, m, field))
    throw UsageError("--json " + quote(*s.jsonPath) + ": " + m.str() +
                     " is not a field of --json; it takes {shard} (the share's index in a "
                     "batch)");
  if (s.jsonPath && shard.count > 1 && jsonPath == *s.jsonPath && jsonPath != "-")
    spdlog::warn(
        "--json {} has no {{shard}}: each task of the job array writes it, the last over the "
        "others; put {{shard}} (the share's index) in it, e.g. --json 'out/report_{{shard}}.json'",
        printable(jsonPath));
  if (s.jsonPath) settings.jsonPath = jsonPath;
  if (s.jsonPath && jsonPath != "-") checkStatsPath(jsonPath, "--json");
  if (s.jsonPath && jsonPath == "-" && startedClosed(STDOUT_FILENO))
    throw UsageError(
        "--json - prints the summary on stdout, but vidfilter was started with "
        "stdout closed; give --json a file name");
  std::vector<PlannedJob> jobs;
  for (const JobSpec& spec : specs) jobs.push_back(plan(spec, s, cl.batch));
  for (const PlannedJob& j : jobs)
    if (j.output.toStdout && jobs.size() > 1)
      throw UsageError(
          "-o - with several inputs: stdout carries one video; give each input a "
          "file, e.g. -o 'out/{name}.mp4'");
    else if (j.output.toStdout && jsonPath == "-")
      throw UsageError("--json - with -o -: stdout carries the video; give --json a file name");
  checkJobPaths(settings, cl.configPath, chain, jobs, listed, cl.batch);
  // One window of tiles, as one input gets its preview: asked for, or by default when nothing
  // is written and a display answers.
  const bool writes = std::any_of(jobs.begin(), jobs.end(), [](const PlannedJob& j) {
    return j.output.kind != OutputKind::None;
  });
  const std::unique_ptr<InputsPreview> tiles =
      !cl.batch && decidePreview(s.preview, writes) ? makeTilePreview(s, jobs) : nullptr;
  std::vector<SourceSpec> sources;
  for (const PlannedJob& j : jobs) sources.push_back(j.source);
  warnUnusedOptions(cl.settings, sources, tiles != nullptr);

  const auto devices = withStopSignalsHeld([&] {
    try {
      return openDevices(s.device.value_or(""));
    } catch (const std::exception& e) {
      // No input ran: the report says so (a report left by an earlier run would say it passed).
      if (s.jsonPath && !interruptSignal()) {
        writeJobReport(jsonPath, unstartedReport(specs, chain.str(), shardText, e));
        reported = true;
      }
      throw;
    }
  });
  if (s.statsPath && jobs.size() == 1 && devices.size() > 1)
    throw UsageError("--stats writes one engine's frames; one input over " +
                     std::to_string(devices.size()) +
                     " devices runs one engine each: leave --stats out or give one device");
  keepSigquitDefault();
  RunnerOptions ro;
  ro.atOnce = tiles ? static_cast<int>(jobs.size())
                    : s.jobs.value_or(std::min<int>(8, static_cast<int>(jobs.size())));
  ro.watcher = tiles.get();
  const bool quiet = s.quiet.value_or(false);
  ro.progress = !tiles && !quiet && s.progress.value_or(::isatty(STDERR_FILENO) == 1);
  std::vector<std::uint64_t> busyBefore;
  for (const auto& d : devices) busyBefore.push_back(d->activity().busyNs());
  const auto start = std::chrono::steady_clock::now();
  RunReport report;
  // On a terminal, a log line first wipes the progress line it would otherwise be glued to (the
  // watcher draws the progress again below it), as with one input.
  const bool wipe = ro.progress && ::isatty(STDERR_FILENO) == 1;
  if (wipe) setLogPattern("\r\033[Kvidfilter: %^%l%$: %*");
  report.jobs = runPlannedJobs(devices, s, jobs, ro);
  if (wipe) setLogPattern("vidfilter: %^%l%$: %*");
  report.elapsedSec =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const double busySec = 1e-9 * double(devices[k]->activity().busyNs() - busyBefore[k]);
    report.deviceBusy.emplace_back(devices[k]->info().index(),
                                   report.elapsedSec > 0 ? busySec / report.elapsedSec : 0);
  }
  if (tiles) tiles->waitForQuit();  // the window stays at the end until q (or --exit-at-end)
  for (const auto& d : devices)
    report.device += (report.device.empty() ? "" : ", ") + d->info().index() + " " + d->info().name;
  report.chain = chain.str();
  report.atOnce = std::max(1, std::min<int>(ro.atOnce, static_cast<int>(jobs.size())));
  report.shard = shardText;
  report.exitStatus = exitStatusOf(report.jobs, !cl.batch && !s.inputsList);
  if (!quiet) std::fprintf(stderr, "%s", formatJobTable(report).c_str());
  reported = true;  // a failure to write it is its own error
  if (s.jsonPath) writeJobReport(jsonPath, report);
  if (const int sig = interruptSignal())
    spdlog::warn("stopped by {}: the outputs of the inputs that ran hold their frames done{}",
                 signalName(sig), cl.batch ? " (under their .partial names)" : "");
  return report.exitStatus;
}

}  // namespace

}  // namespace vf::app
