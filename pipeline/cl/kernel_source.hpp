#pragma once
#include <string>
#include <vector>

namespace vf {

// Source of kernels/<file> with `#include "x.cl"` lines expanded (each file once).
// Normally the copy embedded at build time; when VIDFILTER_KERNEL_DIR is set, read from that
// directory instead, so a developer edits a .cl file and reruns without rebuilding.
// Throws std::runtime_error naming the file when it does not exist.
std::string kernelSource(const std::string& file);

// Names of the embedded kernel files.
std::vector<std::string> embeddedKernelFiles();

}  // namespace vf
