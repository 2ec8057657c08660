#include "pipeline/cl/program_cache.hpp"

#include <cctype>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <system_error>
#include <vector>

#include "pipeline/cl/error.hpp"
#include "pipeline/cl/kernel_source.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/signals_held.hpp"

namespace vf {

namespace {
// Format 2: magic, key, kernel names, binary (each a uint64 length and the bytes), checksum.
constexpr char kMagic[8] = {'V', 'F', 'C', 'L', 'B', 'I', 'N', '2'};

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
// A length (uint64) and that many bytes.
template <typename Bytes>
void putBlock(std::ostream& os, const Bytes& b) {
  put(os, static_cast<std::uint64_t>(b.size()));
  os.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
template <typename Bytes>
bool getBlock(std::istream& is, Bytes& b, std::uint64_t maxLen) {
  std::uint64_t len = 0;
  if (!get(is, len) || len > maxLen) return false;
  b.resize(len);
  return static_cast<bool>(
      is.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(len)));
}

// The checksum covers the key and the kernel names as well as the binary, so parts of two
// entries put together do not pass.
std::uint64_t entrySum(const std::string& key, const std::string& names,
                       const std::vector<unsigned char>& bin) {
  std::uint64_t h = fnv1a64(key.data(), key.size());
  h = fnv1a64(names.data(), names.size(), h);
  return fnv1a64(bin.data(), bin.size(), h);
}

// The program's kernel names, sorted, ';'-separated ("" when the device cannot say).
std::string kernelNames(const cl::Program& p) {
  std::string raw;
  try {
    raw = p.getInfo<CL_PROGRAM_KERNEL_NAMES>();
  } catch (const cl::Error&) {
    return "";
  }
  std::vector<std::string> names;
  std::string cur;
  for (char c : raw + ";") {
    if (c == ';' || c == '\0') {
      if (!cur.empty()) names.push_back(cur);
      cur.clear();
      if (c == '\0') break;
    } else {
      cur += c;
    }
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ";") + n;
  return out;
}
// A program without a kernel (an empty or commented-out .cl file) would fail later, at
// clCreateKernel, with CL_INVALID_KERNEL_NAME; say what is wrong instead.
void requireKernels(const cl::Program& p, const std::string& label) {
  std::size_t n = 1;
  try {
    n = p.getInfo<CL_PROGRAM_NUM_KERNELS>();
  } catch (const cl::Error&) {
    return;  // the device cannot say (OpenCL 1.1)
  }
  if (n > 0) return;
  std::string where;
  if (const char* dir = std::getenv("VIDFILTER_KERNEL_DIR"); dir && *dir)
    where = " (read from VIDFILTER_KERNEL_DIR=" + printable(dir) +
            "; fix the file there or unset the variable)";
  throw RuntimeError("OpenCL program " + label + " defines no kernel" + where);
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
  if (dir_.empty()) return;
  // An unusable cache never fails a run: one warning, then every kernel is compiled.
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (!ec && ::access(dir_.c_str(), W_OK | X_OK) != 0)
    ec = std::error_code(errno, std::generic_category());
  if (ec) {
    spdlog::warn(
        "program cache {} unusable ({}); kernels are compiled every run (set "
        "VIDFILTER_CACHE_DIR to a writable directory, or VIDFILTER_CACHE_DIR=off)",
        dir_.string(), ec.message());
    dir_.clear();
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
  auto reject = [&](const std::string& why) {
    spdlog::warn("program cache entry {} is {}; rebuilding it", path.string(), why);
    ++stats_.rejected;
    return false;
  };
  char magic[sizeof kMagic];
  std::string storedKey, names;
  std::vector<unsigned char> bin;
  std::uint64_t sum = 0;
  if (!in.read(magic, sizeof magic)) return reject("not a vidfilter cache file");
  if (std::memcmp(magic, kMagic, sizeof kMagic - 1) == 0 && magic[7] != kMagic[7]) {
    spdlog::debug("program cache entry {} is from another vidfilter version; rebuilding it",
                  path.string());
    return false;  // a plain miss: the entry is replaced
  }
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) return reject("not a vidfilter cache file");
  if (!getBlock(in, storedKey, 1u << 20)) return reject("truncated");
  if (storedKey != k) return reject("for another device, driver, source or options");
  if (!getBlock(in, names, 1u << 20) || !getBlock(in, bin, 1ull << 31) || bin.empty() ||
      !get(in, sum))
    return reject("truncated");
  if (sum != entrySum(storedKey, names, bin)) return reject("corrupt (checksum mismatch)");
  try {
    cl::Program::Binaries binaries{bin};
    std::vector<cl_int> status;
    cl::Program p(context_, {device_.device}, binaries, &status);
    p.build({device_.device});
    // The binary must be the program the entry names: one whose kernels are another
    // program's would fail later, at clCreateKernel (CL_INVALID_KERNEL_NAME).
    const std::string have = kernelNames(p);
    if (have != names)
      return reject("another program (kernels " + (have.empty() ? "none" : have) + ", expected " +
                    names + ")");
    out = p;
    return true;
  } catch (const cl::Error& e) {
    return reject(clErrorName(e.err()));
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
  const std::string names = kernelNames(p);
  // Write to a temporary file and rename it over the entry, so a reader never sees half a file.
  const auto tmp = path.string() + ".tmp" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  std::error_code ec;
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (os) {
      os.write(kMagic, sizeof kMagic);
      putBlock(os, k);
      putBlock(os, names);
      putBlock(os, bin);
      put(os, entrySum(k, names, bin));
      os.close();
    }
    if (!os) {
      const int err = errno;
      std::filesystem::remove(tmp, ec);
      return storeFailed(std::generic_category().message(err));
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    storeFailed(why);
  }
}

void ProgramCache::storeFailed(const std::string& why) {
  spdlog::warn(
      "program cache {} cannot be written ({}); kernels are compiled without caching "
      "from here on (set VIDFILTER_CACHE_DIR to a writable directory, or =off)",
      dir_.string(), why);
  dir_.clear();
}

namespace {

thread_local std::string tVariant;

}  // namespace

ProgramVariant::ProgramVariant(const std::string& variant) : previous_(tVariant) {
  tVariant.clear();
  for (const char c : variant) tVariant += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
}

ProgramVariant::~ProgramVariant() { tVariant = previous_; }

cl::Program ProgramCache::buildSource(const std::string& label, const std::string& source,
                                      const std::string& given) {
  const std::string options = tVariant.empty() ? given : given + " -DVF_VARIANT_" + tVariant;
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string k = key(source, options);
  if (auto it = memory_.find(k); it != memory_.end()) {
    ++stats_.memoryHits;
    return it->second;
  }
  const auto path = dir_.empty() ? std::filesystem::path{}
                                 : dir_ / (hex64(fnv1a64(k.data(), k.size())) + ".clbin");
  // The driver may run a compiler or a linker for this: never one a Ctrl-C kills mid-build.
  cl::Program program =
      withStopSignalsHeld([&] { return loadOrBuild(label, source, options, k, path); });
  memory_.emplace(k, program);
  return program;
}

cl::Program ProgramCache::loadOrBuild(const std::string& label, const std::string& source,
                                      const std::string& options, const std::string& k,
                                      const std::filesystem::path& path) {
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
    requireKernels(program, label);
    if (!path.empty()) store(path, k, program);
  }
  return program;
}

}  // namespace vf
