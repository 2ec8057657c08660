#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "pipeline/cl/device.hpp"
#include "pipeline/cl/opencl.hpp"

namespace vf {

// A kernel that does not compile: the message carries the file, the options and the build log.
class KernelBuildError : public std::runtime_error {
 public:
  KernelBuildError(const std::string& file, const std::string& options, const std::string& log);
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// Builds programs and keeps their binaries on disk, keyed by device name, driver version,
// source hash and build options. An entry that fails to load, fails its checksum, was made
// for another key or holds another program's kernels is rebuilt from source and replaced,
// never trusted.
//
// Directory: $VIDFILTER_CACHE_DIR, else $XDG_CACHE_HOME/vidfilter, else ~/.cache/vidfilter.
// VIDFILTER_CACHE_DIR=off disables the disk cache. A directory that cannot be created or
// written never fails a run: one warning, and the kernels are compiled without caching.
class ProgramCache {
 public:
  struct Stats {
    int memoryHits = 0;  // same program already built in this process
    int diskHits = 0;    // loaded from a cached binary
    int builds = 0;      // compiled from source
    int rejected = 0;    // cache entries found stale or corrupt (and replaced)
  };

  ProgramCache(cl::Context context, const DeviceInfo& device, std::filesystem::path dir);
  ProgramCache(cl::Context context, const DeviceInfo& device);  // default directory

  // Builds kernels/<file> (includes expanded) with `options`.
  cl::Program build(const std::string& file, const std::string& options);
  // Builds a source given as text; `label` names it in errors.
  cl::Program buildSource(const std::string& label, const std::string& source,
                          const std::string& options);

  Stats stats() const;
  const std::filesystem::path& directory() const { return dir_; }
  // Path of the cache file for this source and options (exists or not). For tests.
  std::filesystem::path entryPath(const std::string& source, const std::string& options) const;

  static std::filesystem::path defaultDirectory();

 private:
  std::string key(const std::string& source, const std::string& options) const;
  // The program from the disk cache, else built (and stored there); runs apart from the
  // caller's thread (pipeline/signals_held.hpp).
  cl::Program loadOrBuild(const std::string& label, const std::string& source,
                          const std::string& options, const std::string& key,
                          const std::filesystem::path& path);
  bool tryLoad(const std::filesystem::path& path, const std::string& key, cl::Program& out);
  void store(const std::filesystem::path& path, const std::string& key, const cl::Program& p);
  void storeFailed(const std::string& why);  // warns once and stops using the disk

  cl::Context context_;
  DeviceInfo device_;
  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  std::map<std::string, cl::Program> memory_;
  Stats stats_;
};

// While one is alive on a thread, programs that thread builds are built apart from the same
// source built under another variant (or none): the variant joins the build options as a
// -DVF_VARIANT_... define. PoCL 3.1 keys its compiled work-group functions on the program and
// the work-group size, not the grid, and when one kernel runs on grids of two widths at once
// (two inputs of different sizes on one CPU device) it releases the wrong copy and aborts
// ("pocl_release_dlhandle_cache: Assertion `found->ref_count > 0' failed"); a chain built per
// frame size gives each grid its own kernels. Variants nest; "" is none.
class ProgramVariant {
 public:
  explicit ProgramVariant(const std::string& variant);
  ~ProgramVariant();
  ProgramVariant(const ProgramVariant&) = delete;
  ProgramVariant& operator=(const ProgramVariant&) = delete;

 private:
  std::string previous_;
};

std::uint64_t fnv1a64(const void* data, std::size_t size,
                      std::uint64_t seed = 1469598103934665603ull);

}  // namespace vf
