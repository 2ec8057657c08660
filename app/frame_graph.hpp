#pragma once
// Frame times as a picture: for each frame of the last seconds, the device time it took (a
// filled area) and its capture-to-screen latency (a line), against the frame budget (a dashed
// line: what a frame may take for the source's rate to keep up). Scrolls right to left.
#include <cstdint>
#include <deque>
#include <opencv2/core.hpp>

#include "app/text.hpp"

namespace vf::app {

class FrameHistory {
 public:
  struct Entry {
    std::uint64_t index = 0;  // the engine's frame index
    double t = 0;             // when it reached the preview (seconds, steady clock)
    double deviceMs = -1;     // upload + stages + download; < 0: not timed
    double latencyMs = -1;    // capture to screen (to the preview when it was never shown)
    bool shown = false;
  };

  explicit FrameHistory(double keepSeconds = 12) : keep_(keepSeconds) {}
  void add(std::uint64_t index, double t, double deviceMs, double latencyMs);
  // The frame was drawn on the screen `latencyMs` after its capture.
  void markShown(std::uint64_t index, double latencyMs);
  const std::deque<Entry>& entries() const { return entries_; }
  // Median and 99th percentile of the capture-to-screen latency of the frames shown in the
  // last `seconds`; false when none was shown.
  bool screenLatency(double* p50, double* p99, double seconds = 5) const;
  double lastTime() const { return entries_.empty() ? 0 : entries_.back().t; }

 private:
  double keep_;
  std::deque<Entry> entries_;
};

struct GraphStyle {
  double windowSec = 5;  // time shown across the plot
  double budgetMs = 0;   // 0: none (source rate unknown)
};

// Draws the plot into `r` of `bgr` (its own background, grid, labels in `small`), the newest
// frame at the right edge, which is time `now`. Returns the y scale's top in ms.
double drawFrameGraph(cv::Mat& bgr, cv::Rect r, const FrameHistory& history, double now,
                      const GraphStyle& style, const Text& small);

// The smallest of 1, 2, 2.5, 5 times a power of ten that is >= v (axis limits).
double niceCeil(double v);

}  // namespace vf::app
