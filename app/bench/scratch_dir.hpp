#pragma once
// The scratch directory of `vidfilter bench --input`: a new directory of the run's own under
// TMPDIR (mkdtemp: a name nobody could have taken or planted first) for the files its parts
// write, removed with them when the run ends, however it ends: returning, throwing, or stopped by
// SIGINT, SIGTERM or SIGHUP (a benchmark has nothing to finish: the command it is running, if
// any, is stopped too, and the process exits with 128 + signal, saying so).
#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <thread>

namespace vf::bench {

class ScratchDirectory {
 public:
  // Throws UsageError when TMPDIR is unusable, OsError when the disk refuses.
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return dir_; }

  // Once a signal came, waits for the watcher to end the process (so that nothing timed
  // while it stopped is printed or written as a result); returns at once otherwise.
  void holdIfStopped() const;

  // The command running now (0: none; set it back once the command is reaped), stopped with the
  // run.
  static void setChild(pid_t pid) { child_.store(pid); }

 private:
  void watch();

  std::filesystem::path dir_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
  static std::atomic<pid_t> child_;
};

}  // namespace vf::bench
