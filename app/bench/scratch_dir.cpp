#include "app/bench/scratch_dir.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "app/interrupt.hpp"
#include "app/options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::bench {

namespace fs = std::filesystem;

std::atomic<pid_t> ScratchDirectory::child_{0};

namespace {

fs::path makeDirectory() {
  std::error_code ec;
  const fs::path base = fs::temp_directory_path(ec);
  if (ec) {
    const char* env = std::getenv("TMPDIR");
    throw app::UsageError("TMPDIR " + quote(env ? env : "") +
                          " is no directory for the benchmark's scratch files (" + ec.message() +
                          "); set TMPDIR to a writable directory");
  }
  std::string name = (base / "vidfilter-bench-XXXXXX").string();
  if (!::mkdtemp(name.data())) {
    const int err = errno;
    const std::string what = "cannot create a scratch directory in " + quote(base.string());
    if (err == EACCES || err == EROFS || err == ENOENT || err == ENOTDIR)  // the user's TMPDIR
      throw app::UsageError(what + ": " + std::strerror(err) +
                            "; set TMPDIR to a writable directory");
    throw osError(what, err);  // the disk (full, out of inodes)
  }
  return name;
}

}  // namespace

ScratchDirectory::ScratchDirectory() : dir_(makeDirectory()) {
  app::installInterruptHandlers();
  watcher_ = std::thread([this] { watch(); });
}

ScratchDirectory::~ScratchDirectory() {
  done_.store(true);
  if (watcher_.joinable()) watcher_.join();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void ScratchDirectory::holdIfStopped() const {
  while (app::interruptSignal() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void ScratchDirectory::watch() {
  while (!done_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int sig = app::interruptSignal();
    if (sig == 0) continue;
    // The command running now is stopped, and waited for (the run's thread reaps it) before
    // its files go: it may be writing into the directory.
    if (const pid_t c = child_.load(); c > 0) {
      ::kill(c, SIGTERM);
      for (int i = 0; i < 100 && child_.load() == c; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
    std::fflush(stdout);
    spdlog::warn("stopped by {}: no results; the scratch files in {} are removed",
                 app::signalName(sig), dir_.string());
    spdlog::default_logger()->flush();
    std::_Exit(128 + sig);
  }
}

}  // namespace vf::bench
