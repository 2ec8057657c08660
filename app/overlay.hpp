#pragma once
// What the preview draws over the video: timing panel, histogram plot, key help, side-by-side
// view. Pure functions on cv::Mat (no window), so tests check them without a display.
#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "pipeline/frame.hpp"

namespace vf::app {

// One line of the panel per chain stage.
struct OverlayStage {
  std::string name;
  double ms = 0;  // device time (median over the engine's window, or this frame)
  bool enabled = true;
  bool selected = false;  // +/- acts on this one
  std::string param;      // "gain=1.2" when the stage has a live numeric parameter
};

struct OverlayInfo {
  std::string device;
  std::vector<OverlayStage> stages;
  double uploadMs = 0, downloadMs = 0, latencyMs = 0;
  double fps = 0;
  std::uint64_t frames = 0, dropped = 0;
  std::string frameDesc;  // "768x576 gray"
  bool paused = false;
  std::string message;  // transient line ("saved snapshot-000042.png")
};

// Any 8-bit gray/BGR/BGRA host frame as a BGR Mat (always a copy).
cv::Mat toBgr(const FrameView& frame);

// Scale factor for the display: small frames are enlarged (nearest neighbour) to at least
// `minWidth` pixels wide so that the overlay text stays readable. 1 for large frames.
int displayScale(int width, int minWidth = 640);

// Original (left) and filtered (right) side by side, each labelled; heights must match
// (the filtered frame is resized to the original's size when they differ).
cv::Mat composeCompare(const cv::Mat& originalBgr, const cv::Mat& filteredBgr);

// The timing panel, top-left, on a darkened background. Returns the panel's rectangle.
cv::Rect drawOverlay(cv::Mat& bgr, const OverlayInfo& info);

// Histogram plot (bottom-right): `channels` histograms of 256 bins each, laid out one after
// another in `bins` (the hist stage's side output). One polyline per channel (blue, green,
// red; white for gray), each on a log scale up to its largest bin. Returns the plot's rectangle.
cv::Rect drawHistogram(cv::Mat& bgr, const std::uint32_t* bins, int channels);

// The list of keys, centred.
cv::Rect drawHelp(cv::Mat& bgr);

// Text of the key help (what h shows).
const std::vector<std::string>& helpLines();

}  // namespace vf::app
