#pragma once
// The preview's panel of measurements, top to bottom: device and rates, the position in a
// file, the frame-time graph, the stage table with its bars, the histogram, and a line for
// messages. Drawn on its own background in a column beside the pictures.
#include <cstdint>
#include <memory>
#include <opencv2/core.hpp>
#include <string>

#include "app/frame_graph.hpp"
#include "app/histogram_panel.hpp"
#include "app/stage_table.hpp"
#include "app/text.hpp"

namespace vf::app {

// The fonts a panel of one size uses (loaded once per size).
struct PanelFonts {
  explicit PanelFonts(int px) : font(px), small(px - 2), bold(px + 1, true) {}
  Text font, small, bold;
};

enum class PlayState { Playing, Paused, Ended };

struct PanelInfo {
  std::string device;
  std::string formats;    // "768x576 bgr -> 768x576 gray"
  double fps = 0;         // frames reaching the preview per second (< 0: none to count: paused)
  bool fpsOfRun = false;  // fps is the whole run's (at the end), not the last second's
  double sourceFps = 0;   // the source's own rate (0: unknown)
  double latencyP50 = 0, latencyP99 = 0;  // capture to the preview
  std::uint64_t dropped = 0;
  PlayState state = PlayState::Playing;
  // Files: the shown frame's place. seconds < 0: unknown.
  double seconds = -1, duration = 0;
  std::int64_t frame = 0, frameCount = 0;
  bool seekable = false;
  StageTable table;
  bool hasHistogram = false;
  HistogramView histogram;
  std::shared_ptr<const FrameHistory> history;  // a copy: the preview goes on adding
  double now = 0;                               // the graph's right edge (seconds, steady clock)
  GraphStyle graph;
  std::string message;  // transient ("saved vidfilter-000042.png"); "" shows the key hint
};

// The height the panel would like (everything shown) at this font size.
int panelHeight(const PanelInfo& info, const PanelFonts& f);

// Where the panel drew its parts (for the tests).
struct PanelParts {
  cv::Rect graph, bars, histogram, position;
};

// Draws the panel into `r` of `bgr`. A short panel drops the histogram, then shrinks the graph.
PanelParts drawPanel(cv::Mat& bgr, cv::Rect r, const PanelInfo& info, const PanelFonts& f);

// "1:02:03.45", "2:03.45", "0:03.45" (minutes always shown).
std::string formatTimecode(double seconds);

}  // namespace vf::app
