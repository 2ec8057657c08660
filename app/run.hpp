#pragma once
// One vidfilter run: settings resolved, chain parsed, device opened, source and output opened
// (every user error surfaces here, before the first frame), then the engine runs with a watcher
// thread for Ctrl-C and the progress line, and the summary is printed.
#include <string>

#include "app/options.hpp"

namespace vf::app {

// Applies --log-level to spdlog and OpenCV's own logging.
void setLogLevel(const std::string& level);

// Runs the command line (after parseCommandLine). Returns the exit status; throws on errors
// (main turns them into one message: UserError -> 2, anything else -> 1).
int runCommandLine(const CommandLine& cl);

}  // namespace vf::app
