#pragma once
// Shared by the tile preview's tests: three pictures that differ, the chain `gray` as OpenCV
// computes it, and how far a picture on the screen is from a reference scaled into its place.
#include <algorithm>
#include <opencv2/imgproc.hpp>

#include "app/layout.hpp"
#include "tests/support/test_support.hpp"
#include "tests/test_preview_util.hpp"

namespace vf::test {

// The three pictures of the program tests: real frames made to differ (as they are, mirrored,
// inverted), of three sizes.
inline cv::Mat picture(int i) {
  const cv::Size sizes[] = {{320, 240}, {400, 300}, {352, 288}};
  cv::Mat m = test::realFrame(i * 3, CV_8UC3, sizes[i].width, sizes[i].height);
  if (i == 1) cv::flip(m, m, 1);
  if (i == 2) m = cv::Scalar::all(255) - m;
  return m;
}

// The chain `gray` as OpenCV computes it, in BGR as the screen shows it.
inline cv::Mat grayReference(const cv::Mat& bgr) {
  cv::Mat g, out;
  cv::cvtColor(bgr, g, cv::COLOR_BGR2GRAY);
  cv::cvtColor(g, out, cv::COLOR_GRAY2BGR);
  return out;
}

// The middle of a picture (the overlay line at its top and the note at the window's bottom
// left out).
inline cv::Rect middle(cv::Rect pic) {
  return {pic.x + pic.width / 8, pic.y + std::max(40, pic.height / 6), pic.width * 3 / 4,
          pic.height - 2 * std::max(40, pic.height / 6)};
}

// How far `part` of the screen's picture `pic` is from `reference` scaled into it (mean per
// channel; enlarged as the preview enlarges, see app/layout.hpp).
inline double differenceFrom(const cv::Mat& win, cv::Rect pic, const cv::Mat& reference,
                             cv::Rect part) {
  cv::Mat scaled;
  cv::resize(reference, scaled, pic.size(), 0, 0,
             app::scaleInterpolation(double(pic.width) / reference.cols));
  const cv::Rect local = part - pic.tl();
  return meanDiff(win(part), scaled(local));
}

}  // namespace vf::test
