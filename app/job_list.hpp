#pragma once
// The inputs of a run with several of them, each with its output: -i repeated or --inputs LIST,
// -o repeated (one per input) or one name with {name} (the input's file name without its
// extension) and {index} (its place in the list, from 0); and, for vidfilter batch, the share
// of the list a task of a job array takes.
#include <optional>
#include <string>
#include <vector>

#include "app/options.hpp"

namespace vf::app {

struct JobSpec {
  int index = 0;          // place in the whole list, from 0
  std::string input;      // as listed
  std::string output;     // "" when none
  std::string statsPath;  // --stats expanded, "" when none
};

// The lines of an input list (a file, or stdin for "-"): one path or URL a line; blank lines and
// lines whose first non-blank character is '#' are skipped, spaces around a line are not part of
// it (nor a UTF-8 BOM before the first). Throws UsageError when the list cannot be read, is not
// text (a NUL byte: a video given as the list) or holds no input.
std::vector<std::string> readInputList(const std::string& path);

// `pattern` with {name} and {index} replaced for the input `input` at `index`.
std::string expandJobName(const std::string& pattern, const std::string& input, int index);
bool hasJobFields(const std::string& pattern);

// Every input with its output, in list order. Throws UsageError for outputs that do not match
// the inputs (two -o for three -i, one -o without {name}/{index} for several inputs, two inputs
// that would write the same output).
std::vector<JobSpec> planJobs(const Settings& s);

// Share `index` of `count` (from 0), and where it came from (for the log line).
struct Shard {
  int index = 0, count = 1;
  std::string from;  // "--shard", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "" (all)
};

// The share from --shard I/N, else --shards N with JOB_COMPLETION_INDEX, else Slurm's
// SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN, over SLURM_ARRAY_TASK_STEP) of
// SLURM_ARRAY_TASK_COUNT, else
// JOB_COMPLETION_INDEX (needs --shards), else the whole list. Throws UsageError.
Shard shardFrom(const std::optional<std::string>& flag, const std::optional<int>& shards);

// The jobs of share `shard`: every count-th job from the index-th (round robin over the list,
// so shares differ by one job at most).
std::vector<JobSpec> takeShard(const std::vector<JobSpec>& jobs, const Shard& shard);

}  // namespace vf::app
