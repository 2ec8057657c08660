#include "app/watcher.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "app/interrupt.hpp"
#include "app/media/av.hpp"

namespace vf::app {

namespace {

// After a stop, how long the run may wait for a source blocked in a read once the output is
// closed before the process quits without it.
constexpr std::chrono::seconds kBlockedInputGrace{3};
}  // namespace

bool outputMayStall(const media::OutputSpec& o) {
  if (o.path.empty()) return false;  // no output
  if (o.network) return true;
  struct stat st {};
  const int got = o.toStdout ? ::fstat(STDOUT_FILENO, &st) : ::stat(o.path.c_str(), &st);
  return got == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

double deviceStall(const Engine& engine) {
  const double waited = engine.deviceWaitSeconds();
  const double limit =
      std::max<double>(kDeviceStallGrace.count(), 2 * engine.longestDeviceWaitSeconds());
  return waited >= limit ? waited : 0;
}

bool PacketsStalled::operator()() {
  const auto now = std::chrono::steady_clock::now();
  if (const std::int64_t count = media::packetsMuxed(); count != packets_) {
    packets_ = count;
    since_ = now;
    return false;
  }
  return now - since_ >= kBlockedOutputGrace;
}

Watcher::Watcher(Engine& engine, const TeeSink& sink, const Progress& base, bool progressLive,
                 const media::OutputSpec& output)
    : engine_(engine),
      sink_(sink),
      base_(base),
      live_(progressLive),
      outputName_(output.path),
      outputMayStall_(outputMayStall(output)),
      start_(Clock::now()),
      thread_([this] { loop(); }) {}

void Watcher::stopWatching() {
  {
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Progress Watcher::progress() const {
  Progress p = base_;
  p.frames = sink_.frames();
  p.dropped = static_cast<std::int64_t>(engine_.stats().dropped);
  p.elapsedSec = std::chrono::duration<double>(Clock::now() - start_).count();
  return p;
}

void Watcher::loop() {
  auto nextDraw = Clock::now();
  bool stopped = false;
  std::optional<Clock::time_point> closedAt;   // when the output was seen closed
  std::optional<Clock::time_point> stoppedAt;  // when the stop was seen
  PacketsStalled stalled;
  std::unique_lock<std::mutex> lock(m_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(50));
    if (done_) break;
    if (!stopped && interruptSignal()) {
      stopped = true;
      if (printed_) std::fputc('\n', stderr);
      if (!stopRequested())  // a stop with no signal has said its cause and what it does
        spdlog::warn(
            "{}: finishing the frames in flight{} (Ctrl-C again, a second from now, quits at "
            "once: the output may then not play)",
            signalVerb(interruptSignal()),
            outputName_.empty() ? "" : " and closing " + outputName_);
      engine_.stop();
    }
    if (stopped && !stoppedAt) stoppedAt = Clock::now();
    if (const double waited = deviceStall(engine_); waited > 0) {
      // After a stop, the frame in flight gets the grace from the stop on.
      if (stoppedAt && Clock::now() - *stoppedAt >= kDeviceStallGrace)
        quit(fmt::format(
            "the device has not finished a frame for {:.0f} s (a kernel that does not end?), so "
            "vidfilter quits without the frames in flight{}",
            waited, outputName_.empty() ? "" : "; " + outputName_ + " may not play"));
      if (!saidDeviceStall_) {
        if (printed_) std::fputc('\n', stderr);
        spdlog::warn(
            "the device has been finishing one frame for {:.0f} s: a kernel that does not end "
            "(a loop in a kernel=FILE.cl)? Ctrl-C stops the run",
            waited);
        saidDeviceStall_ = true;
      }
    }
    if (stopped && !engine_.sinkFinished() && outputMayStall_ && stalled()) {
      quit(fmt::format(
          "{} has taken nothing for {} s (its reader stopped reading), so "
          "vidfilter quits without it",
          outputName_ == "-" ? std::string("the output (stdout)") : "the output " + outputName_,
          kBlockedOutputGrace.count()));
    }
    // Only an output closed without an error: a failed close is reported when run() returns.
    if (stopped && engine_.sinkFinished() && !engine_.failed()) {
      if (!closedAt) closedAt = Clock::now();
      if (Clock::now() - *closedAt >= kBlockedInputGrace)
        quit(fmt::format(
            "{}the input has not returned from a read for {} s (a stalled stream), "
            "so vidfilter quits without waiting for it",
            outputName_.empty() ? "" : outputName_ + " is complete; ", kBlockedInputGrace.count()));
    }
    if (live_ && Clock::now() >= nextDraw) {
      std::fprintf(stderr, "\r%s\033[K", formatProgress(progress()).c_str());
      std::fflush(stderr);
      printed_ = true;
      nextDraw = Clock::now() + std::chrono::milliseconds(250);
    }
  }
}

// The run cannot end by itself (an engine cannot interrupt a read, nor a write the OS holds), so
// the process ends here, as run() would have after the stop, without the run's summary.
void Watcher::quit(const std::string& why) {
  const int sig = interruptSignal();
  if (printed_) std::fprintf(stderr, "\r%s\033[K\n", formatProgress(progress()).c_str());
  spdlog::warn("stopped by {} after {} frames; {}", signalName(sig), sink_.frames(), why);
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  std::_Exit(128 + sig);
}

}  // namespace vf::app
