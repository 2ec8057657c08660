// vidfilter-bench: the benchmark alone, linked without OpenCV's video and GUI libraries.
#include "app/bench/bench.hpp"
#include "app/std_streams.hpp"
#include "pipeline/cl/pocl_cache.hpp"

int main(int argc, char** argv) {
  vf::app::keepStandardStreamsOpen();
  vf::ignoreEmptyPoclCacheDir();
  return vf::bench::benchMain(argc, argv);
}
