#include "app/job_list.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <regex>

#include "app/media/output_spec.hpp"
#include "app/sources.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// The input's name for {name}: the last part of its path or URL without the extension, with
// any ASCII character but letters, digits, '.', '-' and '_' made '_' (a name never holds a
// directory, a frame-number pattern, a space or a shell character); the bytes of other
// characters (UTF-8: "日本語", "é") are kept.
std::string nameOf(const std::string& input) {
  if (input == "-") return "stdin";
  std::string t = input;
  if (const auto scheme = t.find("://"); scheme != std::string::npos)
    if (const auto q = t.find_first_of("?#", scheme); q != std::string::npos) t.resize(q);
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  if (const auto slash = t.rfind('/'); slash != std::string::npos) t = t.substr(slash + 1);
  if (const auto dot = t.rfind('.'); dot != std::string::npos && dot > 0) t = t.substr(0, dot);
  for (char& c : t) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && !std::isalnum(u) && c != '.' && c != '-' && c != '_') c = '_';
  }
  // "." and ".." (from "...mkv", or a URL's last segment) would name a directory.
  if (t.find_first_not_of('.') == std::string::npos) std::replace(t.begin(), t.end(), '.', '_');
  return t.empty() ? "input" : t;
}

std::optional<long> envNumber(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  // Digits only: set but empty, a sign or a space is a broken environment, not "unset".
  char* end = nullptr;
  errno = 0;
  const long n = std::isdigit(static_cast<unsigned char>(*v)) ? std::strtol(v, &end, 10) : -1;
  if (n < 0 || *end != '\0' || errno == ERANGE || n > std::numeric_limits<int>::max())
    throw UsageError(std::string(name) + "=" + printable(v) + " is not a number from 0");
  return n;
}

// The next line of an input list into `line` (without its '\n'); false at the end. A NUL byte
// or a line past kMaxListLine ends the reading at once with an error (a video or /dev/zero given
// as the list is never read whole).
constexpr std::size_t kMaxListLine = 64 * 1024;

bool nextListLine(std::istream& in, std::string& line, const std::string& path, int n) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (c == '\0')
      throw UsageError("--inputs " + printable(path) + ": line " + std::to_string(n) +
                       " holds a NUL byte: this is not a text list of inputs (a video? give it "
                       "with -i)");
    if (line.size() == kMaxListLine)
      throw UsageError("--inputs " + printable(path) + ": line " + std::to_string(n) +
                       " is longer than 64 KiB: this is not a text list of inputs (one path or "
                       "URL a line)");
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace

std::vector<std::string> readInputList(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("--inputs " + printable(path) +
                     " is a directory; give a file listing inputs, one a line (e.g. ls " +
                     printable(path) + "/*.mp4 > list.txt)");
  std::ifstream file;
  if (path != "-") file.open(path);
  std::istream& in = path == "-" ? std::cin : file;
  if (!in)
    throw UsageError("--inputs " + printable(path) + ": cannot read it (" + std::strerror(errno) +
                     "); give a file listing inputs, one a line");
  std::vector<std::string> inputs;
  std::string line;
  for (int n = 1; nextListLine(in, line, path, n); ++n) {
    if (n == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 BOM
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    inputs.push_back(t);
  }
  if (in.bad()) throw UsageError("--inputs " + printable(path) + ": reading it failed");
  if (inputs.empty())
    throw UsageError("--inputs " + printable(path) +
                     " lists no input (one path or URL a line; # starts a comment)");
  return inputs;
}

bool hasJobFields(const std::string& pattern) {
  return pattern.find("{name}") != std::string::npos ||
         pattern.find("{index}") != std::string::npos;
}

namespace {

// A field name in braces that is not one of the two (a typo such as {nme}) would otherwise
// become part of the file's name.
void checkJobFields(const std::string& pattern) {
  static const std::regex field(R"(\{([A-Za-z_]+)\})");
  for (std::sregex_iterator it(pattern.begin(), pattern.end(), field), end; it != end; ++it)
    if ((*it)[1] != "name" && (*it)[1] != "index")
      throw UsageError(quote(pattern) + ": " + it->str() +
                       " is not a field; the fields are {name} (the input's name) and {index} "
                       "(its place, from 0)");
  // A field with more in its braces ({index:03d}, { name }) would be taken for literal text.
  static const std::regex dressed(R"(\{\s*(name|index)\b[^{}]*\})");
  for (std::sregex_iterator it(pattern.begin(), pattern.end(), dressed), end; it != end; ++it)
    if (it->str() != "{name}" && it->str() != "{index}")
      throw UsageError(quote(pattern) + ": " + it->str() + " is not a field; write {" +
                       (*it)[1].str() + "} alone (the fields take no spaces or format)");
}

}  // namespace

std::string expandJobName(const std::string& pattern, const std::string& input, int index) {
  checkJobFields(pattern);
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 6, "{name}") == 0) {
      out += nameOf(input);
      i += 6;
    } else if (pattern.compare(i, 7, "{index}") == 0) {
      out += std::to_string(index);
      i += 7;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

std::vector<JobSpec> planJobs(const Settings& s) {
  std::vector<std::string> inputs;
  if (s.inputs) inputs = *s.inputs;
  if (s.input) inputs.push_back(*s.input);
  if (s.inputsList)
    for (auto& i : readInputList(*s.inputsList)) inputs.push_back(std::move(i));
  std::vector<std::string> outputs;
  if (s.outputs) outputs = *s.outputs;
  if (s.output) outputs.push_back(*s.output);
  // ffmpeg's spellings (file:NAME, pipe:1) as the names they stand for, before anything is
  // checked or expanded against them.
  for (std::string& i : inputs) i = inputPath(i);
  for (std::string& o : outputs) o = media::outputPath(o);
  const std::size_t n = inputs.size();
  for (const std::string& o : outputs) checkJobFields(o);  // a typo named as one first
  if (s.statsPath) checkJobFields(*s.statsPath);
  if (outputs.size() > 1 && outputs.size() != n)
    throw UsageError(std::to_string(outputs.size()) + " outputs (-o) for " + std::to_string(n) +
                     (n == 1 ? " input" : " inputs") +
                     ": give one -o per input, in the same order, or one name with "
                     "{name} or {index}, e.g. -o 'out/{name}_edges.mp4'");
  if (outputs.size() == 1 && n > 1 && !hasJobFields(outputs[0]))
    throw UsageError("one output " + quote(outputs[0]) + " for " + std::to_string(n) +
                     " inputs: put {name} (the input's name) or {index} (its place, from 0) in "
                     "it, e.g. -o 'out/{name}_edges.mp4', or give one -o per input");
  if (s.statsPath && n > 1 && !hasJobFields(*s.statsPath))
    throw UsageError("--stats " + quote(*s.statsPath) + " for " + std::to_string(n) +
                     " inputs: put {name} or {index} in it, e.g. --stats 'out/{name}.jsonl'");
  std::vector<JobSpec> jobs;
  std::map<std::string, int> seen;
  for (std::size_t k = 0; k < n; ++k) {
    JobSpec j;
    j.index = static_cast<int>(k);
    j.input = inputs[k];
    if (!outputs.empty())
      j.output = expandJobName(outputs.size() == 1 ? outputs[0] : outputs[k], j.input, j.index);
    if (s.statsPath) j.statsPath = expandJobName(*s.statsPath, j.input, j.index);
    if (!j.output.empty() && j.output != "-") {
      const auto [it, fresh] = seen.emplace(j.output, j.index);
      if (!fresh)
        throw UsageError("inputs " + std::to_string(it->second) + " (" + quote(inputs[it->second]) +
                         ") and " + std::to_string(j.index) + " (" + quote(j.input) +
                         ") would both write " + quote(j.output) +
                         (outputs.size() == 1
                              ? "; put {index} in the output name to tell them apart"
                              : "; give each input an output of its own"));
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

Shard shardFrom(const std::optional<std::string>& flag, const std::optional<int>& shards) {
  Shard sh;
  if (flag) {
    static const std::regex form("([0-9]{1,9})/([0-9]{1,9})");
    std::smatch m;
    if (!std::regex_match(*flag, m, form) || std::stol(m[2]) < 1 ||
        std::stol(m[1]) >= std::stol(m[2]))
      throw UsageError("--shard " + quote(*flag) +
                       ": give I/N, share I (from 0) of N, e.g. --shard 0/4 ... --shard 3/4");
    sh.index = std::stoi(m[1]);
    sh.count = std::stoi(m[2]);
    sh.from = "--shard";
    return sh;
  }
  if (const auto k8s = envNumber("JOB_COMPLETION_INDEX")) {
    if (!shards)
      throw UsageError(
          "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not how many shares: give "
          "--shards N (the Job's completions)");
    if (*k8s >= *shards)
      throw UsageError("JOB_COMPLETION_INDEX=" + std::to_string(*k8s) + " is not below --shards " +
                       std::to_string(*shards));
    return {static_cast<int>(*k8s), *shards, "JOB_COMPLETION_INDEX"};
  }
  if (const auto id = envNumber("SLURM_ARRAY_TASK_ID")) {
    if (shards) {  // the task ID is the share, whatever part of the array this submission runs
      if (*id >= *shards)
        throw UsageError("SLURM_ARRAY_TASK_ID=" + std::to_string(*id) + " is not below --shards " +
                         std::to_string(*shards) +
                         ": with --shards the task IDs are the shares, 0 to " +
                         std::to_string(*shards - 1) + " (--array=0-" +
                         std::to_string(*shards - 1) + ", or some of them: --array=5,7)");
      return {static_cast<int>(*id), *shards, "SLURM_ARRAY_TASK_ID"};
    }
    const long min = envNumber("SLURM_ARRAY_TASK_MIN").value_or(0);
    const auto count = envNumber("SLURM_ARRAY_TASK_COUNT");
    // --array=1-7:2 numbers the tasks 1, 3, 5, 7: share (ID - MIN) / STEP.
    const long step = std::max(1L, envNumber("SLURM_ARRAY_TASK_STEP").value_or(1));
    const long n = count.value_or(0);
    if (n < 1)
      throw UsageError(
          "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (or 0): give --shards N");
    const long share = (*id - min) % step == 0 ? (*id - min) / step : -1;
    if (share < 0 || share >= n)
      throw UsageError("SLURM_ARRAY_TASK_ID=" + std::to_string(*id) +
                       " (less SLURM_ARRAY_TASK_MIN=" + std::to_string(min) +
                       (step > 1 ? ", over SLURM_ARRAY_TASK_STEP=" + std::to_string(step) : "") +
                       ") is not one of the " + std::to_string(n) +
                       " shares; number the array from 0 or 1 without gaps (--array=0-" +
                       std::to_string(n - 1) + ") or with one step (--array=1-" +
                       std::to_string(2 * n - 1) + ":2)");
    return {static_cast<int>(share), static_cast<int>(n), "SLURM_ARRAY_TASK_ID"};
  }
  if (shards)
    throw UsageError("--shards " + std::to_string(*shards) +
                     " without JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID: give --shard I/N");
  return sh;
}

std::vector<JobSpec> takeShard(const std::vector<JobSpec>& jobs, const Shard& shard) {
  std::vector<JobSpec> mine;
  for (const JobSpec& j : jobs)
    if (j.index % shard.count == shard.index) mine.push_back(j);
  return mine;
}

}  // namespace vf::app
