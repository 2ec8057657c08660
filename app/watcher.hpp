#pragma once
// The watcher of a one-input run: it polls for Ctrl-C (and calls Engine::stop() outside the
// signal handler) and redraws the progress line at most four times a second. After a stop it
// ends the process itself where the run cannot end by itself:
// - the output is closed but the source is still blocked in a read (a stalled stream: a
//   GStreamer source whose peer went silent) after 3 s;
// - the output goes to a pipe, a FIFO, a socket (stdout included) or a network stream and has
//   taken no packet for 10 s (its reader stopped reading: the writer is blocked in the OS, where
//   no stop reaches it). A regular file's last packets and its index are always waited for
//   (stdout redirected into one included): it must play.
// Either way the status is the signal's (128 + signal), without the run's summary.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "app/feeds.hpp"
#include "app/media/output_spec.hpp"
#include "app/report.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

// After a stop, how long an output to a reader that may stop reading may take no packet before
// the process quits without it. Long enough for a slow encoder's last frames (each a packet).
constexpr std::chrono::seconds kBlockedOutputGrace{10};

// How long the device may take to finish one frame before the run says so (a kernel that does
// not end: a user's kernel=file.cl looping), and, after a stop, before the process quits
// without the frames in flight (the OS cannot take a kernel off the device).
constexpr std::chrono::seconds kDeviceStallGrace{10};

// How long `engine`'s device has been finishing one frame when that is past kDeviceStallGrace
// and past twice the longest any frame before took (a slow device is not stalled); else 0.
double deviceStall(const Engine& engine);

// Whether `output` goes to a reader that may stop reading: a network stream, or a pipe, a FIFO
// or a socket (stdout included). Not a regular file, stdout redirected into one included.
bool outputMayStall(const media::OutputSpec& output);

// The stalls after which a watcher ends a stopped run itself, checked as it polls (for one input
// or several): a frame the device has not finished (said once, stop or not; the process quits
// kDeviceStallGrace after the stop), and an output to a reader that may stop reading that has
// taken no packet (every muxer's count) for kBlockedOutputGrace after the stop.
class StallWatch {
 public:
  struct Words {
    std::string device;      // "the device", "a device"
    std::string mayNotPlay;  // "out.mp4 may not play", "outputs may not play", "" (no output)
    std::string stallable;   // the output that may stall (outputMayStall), "" for none
    std::string alsoLeft;    // what else a quit for it leaves, after "without it"
  };
  explicit StallWatch(Words words) : words_(std::move(words)) {}

  // One poll. `outputOpen`: the stallable output may still take packets. `endLine` runs before a
  // warning (ends a progress line). Returns why the process must quit now, or "".
  std::string poll(bool stopped, bool outputOpen, double deviceWaited,
                   const std::function<void()>& endLine);

 private:
  using Clock = std::chrono::steady_clock;
  Words words_;
  std::optional<Clock::time_point> stoppedAt_;
  bool saidDeviceStall_ = false;
  std::int64_t packets_ = -1;  // every muxer's count at the last change
  Clock::time_point packetsSince_{};
};

// Ends the process where a stopped run cannot end by itself (an engine cannot interrupt a read,
// nor a write the OS holds, nor a kernel), as run() would have after the stop but without the
// run's summary: "stopped by SIGNAL after N frames; why", the log flushed, status 128 + signal.
[[noreturn]] void quitStopped(std::int64_t frames, const std::string& why);

class Watcher {
 public:
  using Clock = std::chrono::steady_clock;
  Watcher(Engine& engine, const TeeSink& sink, const Progress& base, bool progressLive,
          const media::OutputSpec& output);
  ~Watcher() { stopWatching(); }
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  void stopWatching();
  Progress progress() const;
  bool printedLive() const { return printed_; }

 private:
  void loop();
  [[noreturn]] void quit(const std::string& why);  // the progress line ended, quitStopped

  Engine& engine_;
  const TeeSink& sink_;
  Progress base_;
  bool live_;
  std::string outputName_;
  bool outputFile_ = false;  // a video file (not stdout, a stream or images)
  Clock::time_point start_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> printed_{false};
  StallWatch stalls_;
  std::thread thread_;
};

}  // namespace vf::app
