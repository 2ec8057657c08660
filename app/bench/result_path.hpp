#pragma once
// The benchmark's --json file, checked before anything is measured: its directory exists and
// is writable, it is no file the benchmark reads (the --input video), and an existing file is
// replaced only as vidfilter replaces outputs: -y yes, on a terminal asked, else refused.
#include <string>
#include <vector>

namespace vf::bench {

// Throws UsageError naming what is wrong. `reads`: the files the benchmark reads.
void checkResultPath(const std::string& json, const std::vector<std::string>& reads,
                     bool overwrite);

}  // namespace vf::bench
