#include "pipeline/cl/kernel_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf {
namespace embedded {
const std::map<std::string, const char*>& kernelSources();
}

namespace {
std::string overrideHint() {
  return " (VIDFILTER_KERNEL_DIR is set; unset it to use the kernels built into vidfilter)";
}

// kernels/<file> from the developer's directory: a regular file with something in it.
std::string readOverride(const std::string& dir, const std::string& file) {
  const std::string path = dir + "/" + file;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw osError("kernel file " + quote(path) + " cannot be read" + overrideHint(), errno);
  if (S_ISDIR(st.st_mode))
    throw RuntimeError("kernel file " + quote(path) + " is a directory" + overrideHint());
  if (!S_ISREG(st.st_mode))
    throw RuntimeError("kernel file " + quote(path) + " is not a regular file" + overrideHint());
  std::string text;
  if (st.st_size > 0) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    if (!in || !(ss << in.rdbuf()))
      throw osError("kernel file " + quote(path) + " cannot be read" + overrideHint(), errno);
    text = ss.str();
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw RuntimeError("kernel file " + quote(path) + " is empty" + overrideHint());
  return text;
}

std::string rawSource(const std::string& file) {
  if (const char* dir = std::getenv("VIDFILTER_KERNEL_DIR"); dir && *dir)
    return readOverride(dir, file);
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
