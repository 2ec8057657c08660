#pragma once
#include <string>
#include <vector>

namespace vf::bench {
// `vidfilter bench ...` and `vidfilter-bench ...`: argv without the "bench" word.
int benchMain(int argc, char** argv);
}  // namespace vf::bench
