#include "app/bench/bench.hpp"

#include <cstdio>

namespace vf::bench {
int benchMain(int, char**) {
  std::fprintf(stderr, "vidfilter bench: not implemented yet\n");
  return 2;
}
}  // namespace vf::bench
