#pragma once
// Rolling per-frame statistics of the streaming engine, and the JSON-lines stats record.
#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/engine.hpp"

namespace vf {

// mean, p50 and p99 (nearest rank) of `values`; all 0 when empty.
EngineStats::Dist distribution(std::vector<double> values);

// The last `window` frames handed to the sink, plus counters since start(). Every member is
// thread-safe: the capture thread counts frames in and drops, the sink thread adds frames, any
// thread takes snapshots.
class RollingStats {
 public:
  explicit RollingStats(std::size_t window = 120) : window_(window) {}

  void start(std::vector<std::string> stageNames);  // clears everything, restarts the clock
  void setStageNames(std::vector<std::string> stageNames);
  void countIn();
  void countDropped();
  // A frame handed to the sink now; `submitMs`: host time its enqueueing took.
  void add(const FrameStats& frame, double submitMs = 0);
  EngineStats snapshot() const;

 private:
  using Clock = std::chrono::steady_clock;
  const std::size_t window_;
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::deque<FrameStats> frames_;
  std::deque<double> submitMs_;
  std::deque<Clock::time_point> times_;
  Clock::time_point firstOut_, lastOut_;
  std::uint64_t in_ = 0, out_ = 0, dropped_ = 0;
  Clock::time_point start_ = Clock::now();
};

// Keys for a chain's stages in the stats file, from Chain::timingNames(): the stage name (a fused
// pass's label, "gray+brightness"), or "name#i" (i = position in the chain) when the name occurs
// more than once; "" stays "" (a stage timed in its fused pass's entry: the line leaves it out).
std::vector<std::string> stageKeys(const std::vector<std::string>& stageNames);

// One line of the --stats file (no newline), e.g.
// {"index":7,"stages":{"gray":0.121,"brightness":0.0502},"upload_ms":0.31,
//  "download_ms":0.102,"queue_wait_ms":0.041,"latency_ms":1.203}
// `keys` as stageKeys() makes them, indexed like frame.stageMs. Times in milliseconds, to 0.1 us.
std::string statsJsonLine(const FrameStats& frame, const std::vector<std::string>& keys);

}  // namespace vf
