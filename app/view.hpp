#pragma once
// One picture of the preview window at the window's size: the frames scaled into their places
// (app/layout.hpp), labelled in compare mode, the panel beside them, the key help on request.
// Pure drawing on cv::Mat: the tests render it without a display.
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/layout.hpp"
#include "app/panel.hpp"
#include "pipeline/frame.hpp"

namespace vf::app {

struct ViewContent {
  cv::Mat filtered;  // 8-bit BGR
  cv::Mat original;  // 8-bit BGR, the frame as captured (compare mode)
  bool compare = false, overlay = true, help = false;
  double filteredSar = 1, originalSar = 1;  // pixel shapes, width over height: shown in them
  PanelInfo panel;
  std::shared_ptr<const void> owner;  // keeps what the pictures and the panel point into alive
};

class ViewRenderer {
 public:
  ViewRenderer();
  ~ViewRenderer();
  // The whole window's picture, `canvas` in size.
  cv::Mat render(cv::Size canvas, const ViewContent& c);
  // Where the last render put things.
  const ViewLayout& layout() const { return layout_; }
  const PanelParts& parts() const { return parts_; }
  // The window's first size for this content in `workArea`.
  cv::Size initialSize(const ViewContent& c, cv::Size frame, cv::Size workArea);

 private:
  const PanelFonts& fonts(int px);
  std::unique_ptr<PanelFonts> fonts_;
  ViewLayout layout_;
  PanelParts parts_;
};

// The size a picture of `frame` pixels is shown at: widened or narrowed by its pixel shape `sar`
// (width over height), as players show it.
cv::Size displaySize(cv::Size frame, double sar);

// Any 8-bit gray/BGR/BGRA host frame as a BGR Mat (always a copy).
cv::Mat toBgr(const FrameView& frame);

// Draws `frame` (8-bit BGR) scaled into `at` of `canvas` (`scale` canvas pixels per frame pixel:
// area averaging to shrink, nearest neighbour from 2x up).
void placeFrame(cv::Mat& canvas, const cv::Mat& frame, cv::Rect at, double scale);

// Darkens `r` of `m` (clipped to it) to `keep` of its brightness: behind labels, help and text.
void shade(cv::Mat& m, cv::Rect r, double keep);

// The keys, as the help shows them: {keys, what they do}.
const std::vector<std::pair<std::string, std::string>>& helpKeys();

// A box listing `keys`, centred over `area` (the pictures: the panel stays in view).
void drawKeyHelp(cv::Mat& canvas, cv::Rect area, const PanelFonts& f,
                 const std::vector<std::pair<std::string, std::string>>& keys);

}  // namespace vf::app
