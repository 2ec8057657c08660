#pragma once
// Where things go in the preview window: the pictures (filtered, and the original beside it or
// above it in compare mode, whichever shows them larger), scaled to fit, and the panel of
// measurements in a column of its own at the right, so it never covers a picture. Pure
// arithmetic on sizes: the window's first size, and the layout of any size it is resized to.
#include <opencv2/core.hpp>

namespace vf::app {

struct ViewLayout {
  cv::Rect original;     // the frame as captured (empty unless compare)
  cv::Rect filtered;     // the chain's output
  cv::Rect panel;        // the measurements (empty when the overlay is off)
  bool stacked = false;  // compare: original above filtered (else side by side)
  double scale = 0;      // canvas pixels per frame pixel
};

// Lays out a canvas (the window's inside) for frames of `frame` size. `panelWidth` 0: no panel.
// A canvas too narrow for the panel and a picture drops the panel.
ViewLayout layoutView(cv::Size canvas, cv::Size frame, bool compare, int panelWidth);

// The window's first size inside `workArea` (the screen less its panels and the window's
// frame): the pictures at their own size, or smaller to fit, or, when small, enlarged by a
// whole factor (up to about the panel's height, so that they stay crisp); the panel beside
// them, at least `panelHeight` tall.
cv::Size initialCanvas(cv::Size frame, bool compare, int panelWidth, int panelHeight,
                       cv::Size workArea);

// The interpolation for enlarging a frame by `scale`: nearest neighbour from 2x up (each pixel a
// sharp square), linear below (area averaging to shrink).
int scaleInterpolation(double scale);

}  // namespace vf::app
