#pragma once
// What a user sees when a run fails: the error lines on stderr, checked as the product promises
// them (one line, "vidfilter: <what is wrong>", the exit status by class, nothing on stdout).
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/config.hpp"
#include "app/options.hpp"
#include "tests/support/process.hpp"

namespace vf::test {

// Lines of stderr other than the info logs (what a user would call "the error").
inline std::string errorLines(const std::string& err) {
  std::string out, line;
  for (std::size_t i = 0; i <= err.size(); ++i) {
    if (i == err.size() || err[i] == '\n') {
      if (!line.empty() && line.find(": info: ") == std::string::npos) out += line + "\n";
      line.clear();
    } else {
      line += err[i];
    }
  }
  return out;
}

// A run that fails before any frame: exactly one line on stderr besides the info logs,
// "vidfilter: <message>" holding `needle`, with the exit status given; nothing on stdout.
inline void expectOneError(const ProcResult& r, int status, const std::string& needle) {
  EXPECT_EQ(r.status, status) << r.err;
  const std::string e = errorLines(r.err);
  EXPECT_EQ(e.rfind("vidfilter: ", 0), 0u) << e;
  EXPECT_NE(e.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// The last line of stderr (a failed run's error comes last, after the warnings and progress).
inline std::string lastLine(const std::string& err) {
  std::string s = err;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.find_last_of("\r\n");
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// The command line `vidfilter ARGS...` parsed in process (--help's text into `help`).
inline app::CommandLine parseArgs(std::vector<std::string> args, std::ostream* help = nullptr) {
  args.insert(args.begin(), "vidfilter");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream sink;
  return app::parseCommandLine(static_cast<int>(argv.size()), argv.data(), help ? *help : sink);
}

// The message parseCommandLine() gives for `args`, or "(no error)".
inline std::string usageError(const std::vector<std::string>& args) {
  try {
    parseArgs(args);
  } catch (const app::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// The message parseConfig() gives for a config text, or "(no error)".
inline std::string configError(const std::string& text) {
  try {
    app::parseConfig(text, "t.toml");
  } catch (const app::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// "wrote N frames to" / "wrote N images to" from the log, or -1.
inline long framesWritten(const std::string& err) {
  std::smatch m;
  if (std::regex_search(err, m, std::regex("wrote ([0-9]+) (frames|images) to")))
    return std::stol(m[1]);
  return -1;
}

// The frames in and out of the run's summary line ("frames: N in, M out, ..."), or -1 each.
struct RunCounts {
  long in = -1, out = -1;
};

inline RunCounts runCounts(const std::string& err) {
  RunCounts c;
  std::smatch m;
  if (std::regex_search(err, m, std::regex("frames: ([0-9]+) in, ([0-9]+) out"))) {
    c.in = std::stol(m[1]);
    c.out = std::stol(m[2]);
  }
  return c;
}

}  // namespace vf::test
