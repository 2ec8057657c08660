#pragma once
// Options given on the command line that this run has no use for (a camera's mode for a file,
// the preview's window when none opens): one warning names them and why, as --rate and --size
// do for a file. Values from a config file are a user's standing choices and pass silently.
#include <vector>

#include "app/options.hpp"
#include "app/sources.hpp"

namespace vf::app {

// `given`: the command line's settings; `sources`: the run's inputs; `preview`: whether a
// preview window opens.
void warnUnusedOptions(const Settings& given, const std::vector<SourceSpec>& sources, bool preview);

}  // namespace vf::app
