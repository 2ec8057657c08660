#pragma once
// CLI11's parse errors, in the program's words: one line that names the option and says what
// to do ("--frames: 'abc' is not a whole number; see vidfilter --help"), never CLI11's own text
// or exit codes. Used by vidfilter and by vidfilter bench; both exit 2 with it.
#include <CLI/CLI.hpp>

#include <string>

namespace vf::app {

struct CliWords {
  std::string help;        // how to see the options: "vidfilter --help"
  std::string positional;  // said after a stray argument: " (the input is given as -i SRC)"
};

// The message for `e`, thrown while `app` parsed (its options, their values, and the
// arguments it did not take are read from it).
std::string describeParseError(const CLI::App& app, const CLI::ParseError& e,
                               const CliWords& words);

}  // namespace vf::app
