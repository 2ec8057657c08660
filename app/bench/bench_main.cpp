// vidfilter-bench: the benchmark alone, linked without OpenCV's video and GUI libraries.
#include "app/bench/bench.hpp"

int main(int argc, char** argv) { return vf::bench::benchMain(argc, argv); }
