#pragma once
// The hist stage's histogram as a panel: its own background (readable on any frame), a 0-255
// axis, one filled curve per channel (gray; or blue, green, red), the scale named (log or
// linear) and the stage it belongs to.
#include <cstdint>
#include <opencv2/core.hpp>
#include <string>

#include "app/text.hpp"

namespace vf::app {

struct HistogramView {
  const std::uint32_t* bins = nullptr;  // channels x 256, channel-major (the hist side output)
  int channels = 0;
  std::string source;  // which stage and what it counted: "4 hist, of sobel's output"
  bool log = true;     // log(1 + count) heights, else linear
};

// The height it would like (a taller `r` makes the plot taller).
int histogramPanelHeight(const Text& font, const Text& small);

// Draws it into `r`; returns the plot's rectangle (inside its axes).
cv::Rect drawHistogramPanel(cv::Mat& bgr, cv::Rect r, const HistogramView& h, const Text& font,
                            const Text& small);

}  // namespace vf::app
