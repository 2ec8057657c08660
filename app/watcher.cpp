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

std::string StallWatch::poll(bool stopped, bool outputOpen, double deviceWaited,
                             const std::function<void()>& endLine) {
  const auto now = Clock::now();
  if (stopped && !stoppedAt_) stoppedAt_ = now;
  if (deviceWaited > 0) {
    // After a stop, the frame in flight gets the grace from the stop on.
    if (stoppedAt_ && now - *stoppedAt_ >= kDeviceStallGrace)
      return fmt::format(
          "{} has not finished a frame for {:.0f} s (a kernel that does not end?), so vidfilter "
          "quits without the frames in flight{}",
          words_.device, deviceWaited, words_.mayNotPlay.empty() ? "" : "; " + words_.mayNotPlay);
    if (!saidDeviceStall_) {
      endLine();
      spdlog::warn(
          "{} has been finishing one frame for {:.0f} s: a kernel that does not end (a loop in a "
          "kernel=FILE.cl)? Ctrl-C stops the run",
          words_.device, deviceWaited);
      saidDeviceStall_ = true;
    }
  }
  if (!stopped || !outputOpen || words_.stallable.empty()) return "";
  if (const std::int64_t count = media::packetsMuxed(); count != packets_) {
    packets_ = count;  // the first poll after the stop starts the clock
    packetsSince_ = now;
    return "";
  }
  if (now - packetsSince_ < kBlockedOutputGrace) return "";
  return fmt::format(
      "{} has taken nothing for {} s (its reader stopped reading), so vidfilter quits without "
      "it{}",
      words_.stallable == "-" ? std::string("the output (stdout)")
                              : "the output " + words_.stallable,
      kBlockedOutputGrace.count(), words_.alsoLeft);
}

void quitStopped(std::int64_t frames, const std::string& why) {
  const int sig = interruptSignal();
  spdlog::warn("stopped by {} after {} frames; {}", signalName(sig), frames, why);
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  std::_Exit(128 + sig);
}

Watcher::Watcher(Engine& engine, const TeeSink& sink, const Progress& base, bool progressLive,
                 const media::OutputSpec& output)
    : engine_(engine),
      sink_(sink),
      base_(base),
      live_(progressLive),
      outputName_(output.path),
      outputFile_(output.kind == media::OutputKind::Video && !output.toStdout && !output.network),
      start_(Clock::now()),
      stalls_({"the device", output.path.empty() ? "" : output.path + " may not play",
               outputMayStall(output) ? output.path : "", ""}),
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
  std::optional<Clock::time_point> closedAt;  // when the output was seen closed
  std::unique_lock<std::mutex> lock(m_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(50));
    if (done_) break;
    if (!stopped && interruptSignal()) {
      stopped = true;
      if (printed_) std::fputc('\n', stderr);
      if (!stopRequested())  // a stop with no signal has said its cause and what it does
        spdlog::warn(
            "{}: finishing the frames in flight{} ({}, a second from now, quits at once: the "
            "output may then not play)",
            signalVerb(interruptSignal()), outputName_.empty() ? "" : " and closing " + outputName_,
            signalAgain(interruptSignal()));
      engine_.stop();
    }
    const std::string why =
        stalls_.poll(stopped, !engine_.sinkFinished(), deviceStall(engine_), [this] {
          if (printed_) std::fputc('\n', stderr);
        });
    if (!why.empty()) quit(why);
    // Only an output closed without an error: a failed close is reported when run() returns.
    if (stopped && engine_.sinkFinished() && !engine_.failed()) {
      if (!closedAt) closedAt = Clock::now();
      if (Clock::now() - *closedAt >= kBlockedInputGrace)
        quit(fmt::format(
            "{}the input has not returned from a read for {} s (a stalled stream), "
            "so vidfilter quits without waiting for it",
            outputFile_ ? outputName_ + " is closed and plays; " : "", kBlockedInputGrace.count()));
    }
    if (live_ && Clock::now() >= nextDraw) {
      std::fprintf(stderr, "\r%s\033[K", formatProgress(progress()).c_str());
      std::fflush(stderr);
      printed_ = true;
      nextDraw = Clock::now() + std::chrono::milliseconds(250);
    }
  }
}

void Watcher::quit(const std::string& why) {
  if (printed_) std::fprintf(stderr, "\r%s\033[K\n", formatProgress(progress()).c_str());
  quitStopped(sink_.frames(), why);
}

}  // namespace vf::app
