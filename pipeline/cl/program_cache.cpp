#include "pipeline/cl/program_cache.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <vector>

#include "pipeline/cl/error.hpp"
#include "pipeline/cl/kernel_source.hpp"

namespace vf {

namespace {
constexpr char kMagic[8] = {'V', 'F', 'C', 'L', 'B', 'I', 'N', '1'};

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

template <typename T>
void put(std::ostream& os, const T& v) {
  os.write(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
bool get(std::istream& is, T& v) {
  return static_cast<bool>(is.read(reinterpret_cast<char*>(&v), sizeof v));
}
}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

KernelBuildError::KernelBuildError(const std::string& file, const std::string& options,
                                   const std::string& log)
    : std::runtime_error("OpenCL kernel " + file + " failed to build (options: " +
                         (options.empty() ? "none" : options) + "):\n" + log),
      log_(log) {}

std::filesystem::path ProgramCache::defaultDirectory() {
  if (const char* d = std::getenv("VIDFILTER_CACHE_DIR"); d && *d) {
    if (std::string(d) == "off") return {};
    return d;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "vidfilter";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "vidfilter";
  return {};
}

ProgramCache::ProgramCache(cl::Context context, const DeviceInfo& device)
    : ProgramCache(std::move(context), device, defaultDirectory()) {}

ProgramCache::ProgramCache(cl::Context context, const DeviceInfo& device, std::filesystem::path dir)
    : context_(std::move(context)), device_(device), dir_(std::move(dir)) {
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      spdlog::warn("program cache {} unusable ({}); kernels will be compiled every run",
                   dir_.string(), ec.message());
      dir_.clear();
    }
  }
}

std::string ProgramCache::key(const std::string& source, const std::string& options) const {
  // Everything a compiled binary depends on. The hash names the file; the full key is stored
  // inside it and compared, so a hash collision cannot load the wrong binary.
  return device_.platform + "\n" + device_.name + "\n" + device_.driverVersion + "\n" +
         hex64(fnv1a64(source.data(), source.size())) + "\n" + options;
}

std::filesystem::path ProgramCache::entryPath(const std::string& source,
                                              const std::string& options) const {
  if (dir_.empty()) return {};
  const std::string k = key(source, options);
  return dir_ / (hex64(fnv1a64(k.data(), k.size())) + ".clbin");
}

ProgramCache::Stats ProgramCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

cl::Program ProgramCache::build(const std::string& file, const std::string& options) {
  return buildSource(file, kernelSource(file), options);
}

bool ProgramCache::tryLoad(const std::filesystem::path& path, const std::string& k,
                           cl::Program& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;  // a plain miss
  auto reject = [&](const char* why) {
    spdlog::warn("program cache entry {} is {}; rebuilding it", path.string(), why);
    ++stats_.rejected;
    return false;
  };
  char magic[sizeof kMagic];
  std::uint64_t keyLen = 0, binLen = 0, sum = 0;
  if (!in.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    return reject("not a vidfilter cache file");
  if (!get(in, keyLen) || keyLen > (1u << 20)) return reject("truncated");
  std::string storedKey(keyLen, '\0');
  if (!in.read(storedKey.data(), static_cast<std::streamsize>(keyLen))) return reject("truncated");
  if (storedKey != k) return reject("for another device, driver, source or options");
  if (!get(in, binLen) || binLen == 0 || binLen > (1ull << 31)) return reject("truncated");
  std::vector<unsigned char> bin(binLen);
  if (!in.read(reinterpret_cast<char*>(bin.data()), static_cast<std::streamsize>(binLen)) ||
      !get(in, sum))
    return reject("truncated");
  if (sum != fnv1a64(bin.data(), bin.size())) return reject("corrupt (checksum mismatch)");
  try {
    cl::Program::Binaries binaries{bin};
    std::vector<cl_int> status;
    cl::Program p(context_, {device_.device}, binaries, &status);
    p.build({device_.device});
    out = p;
    return true;
  } catch (const cl::Error& e) {
    return reject(clErrorName(e.err()).c_str());
  }
}

void ProgramCache::store(const std::filesystem::path& path, const std::string& k,
                         const cl::Program& p) {
  std::vector<std::vector<unsigned char>> binaries;
  try {
    binaries = p.getInfo<CL_PROGRAM_BINARIES>();
  } catch (const cl::Error& e) {
    spdlog::debug("program binary not available ({}); not cached", clErrorName(e.err()));
    return;
  }
  if (binaries.empty() || binaries[0].empty()) return;
  const auto& bin = binaries[0];
  // Write to a temporary file and rename it over the entry, so a reader never sees half a file.
  const auto tmp = path.string() + ".tmp" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) return;
    os.write(kMagic, sizeof kMagic);
    put(os, static_cast<std::uint64_t>(k.size()));
    os.write(k.data(), static_cast<std::streamsize>(k.size()));
    put(os, static_cast<std::uint64_t>(bin.size()));
    os.write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
    put(os, fnv1a64(bin.data(), bin.size()));
    if (!os) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

cl::Program ProgramCache::buildSource(const std::string& label, const std::string& source,
                                      const std::string& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string k = key(source, options);
  if (auto it = memory_.find(k); it != memory_.end()) {
    ++stats_.memoryHits;
    return it->second;
  }
  const auto path = dir_.empty() ? std::filesystem::path{}
                                 : dir_ / (hex64(fnv1a64(k.data(), k.size())) + ".clbin");
  cl::Program program;
  if (!path.empty() && tryLoad(path, k, program)) {
    ++stats_.diskHits;
    spdlog::debug("program {} [{}] loaded from cache", label, options);
  } else {
    program = clCall("clCreateProgramWithSource(" + label + ")",
                     [&] { return cl::Program(context_, source); });
    try {
      program.build({device_.device}, options.c_str());
    } catch (const cl::Error& e) {
      std::string log;
      try {
        log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_.device);
      } catch (const cl::Error&) {
        log = "(no build log)";
      }
      if (e.err() == CL_BUILD_PROGRAM_FAILURE || e.err() == CL_INVALID_BUILD_OPTIONS)
        throw KernelBuildError(label, options, log);
      throw ClError(e.err(), "clBuildProgram(" + label + ")");
    }
    ++stats_.builds;
    spdlog::debug("program {} [{}] compiled", label, options);
    if (!path.empty()) store(path, k, program);
  }
  memory_.emplace(k, program);
  return program;
}

}  // namespace vf
