#include "pipeline/cl/kernel_source.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace vf {
namespace embedded {
const std::map<std::string, const char*>& kernelSources();
}

namespace {
std::string rawSource(const std::string& file) {
  if (const char* dir = std::getenv("VIDFILTER_KERNEL_DIR"); dir && *dir) {
    const std::string path = std::string(dir) + "/" + file;
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw std::runtime_error("kernel file " + path +
                               " not found (VIDFILTER_KERNEL_DIR is set; unset it to use the "
                               "kernels built into vidfilter)");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  const auto& table = embedded::kernelSources();
  auto it = table.find(file);
  if (it == table.end()) throw std::runtime_error("no kernel file named " + file + " is built in");
  return it->second;
}

void expand(const std::string& file, std::set<std::string>& seen, std::string& out) {
  if (!seen.insert(file).second) return;
  std::istringstream in(rawSource(file));
  std::string line;
  int lineNo = 0;
  out += "#line 1 \"" + file + "\"\n";
  while (std::getline(in, line)) {
    ++lineNo;
    const auto pos = line.find("#include \"");
    if (pos != std::string::npos && line.find_first_not_of(" \t") == pos) {
      const auto start = pos + 10;
      const auto end = line.find('"', start);
      expand(line.substr(start, end - start), seen, out);
      out += "#line " + std::to_string(lineNo + 1) + " \"" + file + "\"\n";
      continue;
    }
    out += line;
    out += '\n';
  }
}
}  // namespace

std::string kernelSource(const std::string& file) {
  std::set<std::string> seen;
  std::string out;
  expand(file, seen, out);
  return out;
}

std::vector<std::string> embeddedKernelFiles() {
  std::vector<std::string> names;
  for (const auto& kv : embedded::kernelSources()) names.push_back(kv.first);
  return names;
}

}  // namespace vf
