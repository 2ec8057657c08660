#pragma once
// Where the tiles go in the preview of several inputs: one cell per input in a grid (the
// arrangement of columns and rows that shows the pictures largest in the window's shape), each
// input's picture in its cell with its aspect ratio kept, centred (letterboxed); or one input
// filling the window. Pure arithmetic on sizes: the window's first size, and the layout of any
// size it is resized to.
#include <opencv2/core.hpp>
#include <vector>

namespace vf::app {

struct TileLayout {
  int cols = 0, rows = 0;
  std::vector<cv::Rect> cells;     // one per input; empty for an input not shown (one large)
  std::vector<cv::Rect> pictures;  // the frame inside its cell; empty while its size is unknown
};

// Pixels between two cells.
constexpr int kTileGap = 2;

// Lays out `frames.size()` inputs on `canvas`. A frame size of 0x0 (an input not open yet) takes
// the shape of the others for the choice of grid and has no picture. `large` >= 0: that input
// alone fills the canvas.
TileLayout layoutTiles(cv::Size canvas, const std::vector<cv::Size>& frames, int large = -1);

// The window's first size inside `workArea`: the usual grid (2 side by side, 3-4 in 2x2, 5-6 in
// 3x2, ...) of cells as large as the largest frame, shrunk to fit.
cv::Size initialTileCanvas(const std::vector<cv::Size>& frames, cv::Size workArea);

}  // namespace vf::app
