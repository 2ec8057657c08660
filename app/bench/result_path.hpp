#pragma once
// The benchmark's --json file, checked before anything is measured: its directory exists and
// is writable, it is no file the benchmark reads (the --input video, a chain's kernel file),
// and an existing file is replaced only as vidfilter replaces outputs: -y yes, on a terminal
// asked, else refused.
#include <string>
#include <vector>

namespace vf::bench {

// Throws UsageError naming what is wrong. `inputs`: the videos the benchmark reads; `chains`:
// the chains it runs (the files their stages read are read too).
void checkResultPath(const std::string& json, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& chains, bool overwrite);

}  // namespace vf::bench
