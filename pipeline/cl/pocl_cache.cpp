#include "pipeline/cl/pocl_cache.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "pipeline/quote.hpp"

namespace vf {

namespace fs = std::filesystem;

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Why `dir` can neither be used nor created (mkdir -p), or "".
std::string whyNotCreatable(const fs::path& dir) {
  std::error_code ec;
  fs::path p = dir;
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  if (p.empty()) p = ".";
  if (!fs::is_directory(p, ec)) return quote(p.string()) + " is not a directory";
  if (::access(p.c_str(), W_OK | X_OK) != 0) {
    const std::string reason = std::generic_category().message(errno);
    return p == dir ? quote(p.string()) + " is not writable (" + reason + ")"
                    : "cannot create it in " + quote(p.string()) + " (" + reason + ")";
  }
  return "";
}

}  // namespace

std::string poclCacheDirectory(std::string* from) {
  auto set = [&](const char* name) {
    if (from) *from = name;
  };
  if (const char* d = std::getenv("POCL_CACHE_DIR")) {
    set("POCL_CACHE_DIR");
    return d;
  }
  const char* v = std::getenv("POCL_KERNEL_CACHE");
  const bool cached = !v || !(std::string(v) == "0" || std::string(v) == "false");
  const std::string leaf = cached ? "pocl/kcache" : "pocl/uncached";
  if (const char* x = env("XDG_CACHE_HOME")) {
    set("XDG_CACHE_HOME");
    return std::string(x) + "/" + leaf;
  }
  if (const char* h = std::getenv("HOME")) {
    set("HOME");
    return std::string(h) + "/.cache/" + leaf;
  }
  set("the default");
  return "/tmp/" + leaf;
}

std::string poclCacheProblem() {
  std::string from;
  const std::string dir = poclCacheDirectory(&from);
  const std::string why = dir.empty() ? "POCL_CACHE_DIR is empty" : whyNotCreatable(dir);
  if (why.empty()) return "";
  return "PoCL (the CPU device) cannot create its kernel cache " + quote(dir) + " (from " + from +
         "): " + why +
         ". Set POCL_CACHE_DIR to a writable directory, e.g. `export "
         "POCL_CACHE_DIR=/tmp/pocl-cache-$USER`, or make HOME writable (vidfilter's own cache "
         "follows VIDFILTER_CACHE_DIR, else XDG_CACHE_HOME, else HOME)";
}

void ignoreEmptyPoclCacheDir() {
  if (const char* v = std::getenv("POCL_CACHE_DIR"); v && !*v) ::unsetenv("POCL_CACHE_DIR");
}

}  // namespace vf
