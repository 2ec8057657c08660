#include "app/tile_layout.hpp"

#include <algorithm>
#include <cmath>

namespace vf::app {

namespace {

// A frame of `frame` size, as large as fits in `cell`, centred.
cv::Rect fit(cv::Rect cell, cv::Size frame) {
  if (frame.width <= 0 || frame.height <= 0 || cell.width <= 0 || cell.height <= 0) return {};
  const double s = std::min(double(cell.width) / frame.width, double(cell.height) / frame.height);
  const int w = std::clamp(int(std::floor(frame.width * s)), 1, cell.width);
  const int h = std::clamp(int(std::floor(frame.height * s)), 1, cell.height);
  return {cell.x + (cell.width - w) / 2, cell.y + (cell.height - h) / 2, w, h};
}

// The sizes to choose the grid by: an unknown size takes the largest known one (4:3 when none).
std::vector<cv::Size> shapes(const std::vector<cv::Size>& frames) {
  cv::Size known;
  for (const cv::Size& f : frames)
    if (f.area() > known.area()) known = f;
  if (known.area() <= 0) known = {4, 3};
  std::vector<cv::Size> out;
  for (const cv::Size& f : frames) out.push_back(f.area() > 0 ? f : known);
  return out;
}

// Cell i of a grid of `cols` x `rows` over `canvas`, kTileGap between cells; the last row's
// cells, when it is not full, centred.
cv::Rect cellOf(cv::Size canvas, int cols, int rows, int n, int i) {
  cols = std::max(1, cols);
  rows = std::max(1, rows);
  const int w = std::max(0, (canvas.width - (cols - 1) * kTileGap) / cols);
  const int h = std::max(0, (canvas.height - (rows - 1) * kTileGap) / rows);
  const int row = i / cols, col = i % cols;
  const int inRow = row == rows - 1 ? n - row * cols : cols;
  const int used = inRow * w + (inRow - 1) * kTileGap;
  const int all = cols * w + (cols - 1) * kTileGap;
  const int x0 = (canvas.width - all) / 2 + (all - used) / 2;
  const int y0 = (canvas.height - (rows * h + (rows - 1) * kTileGap)) / 2;
  return {x0 + col * (w + kTileGap), y0 + row * (h + kTileGap), w, h};
}

}  // namespace

TileLayout layoutTiles(cv::Size canvas, const std::vector<cv::Size>& frames, int large) {
  TileLayout t;
  const int n = static_cast<int>(frames.size());
  if (n == 0 || canvas.width <= 0 || canvas.height <= 0) return t;
  t.cells.assign(frames.size(), cv::Rect());
  t.pictures.assign(frames.size(), cv::Rect());
  if (large >= 0 && large < n) {
    t.cols = t.rows = 1;
    t.cells[large] = cv::Rect(0, 0, canvas.width, canvas.height);
    t.pictures[large] = fit(t.cells[large], frames[large]);
    return t;
  }
  // Every grid with no empty row or column; the one whose pictures cover most of the canvas
  // (on a tie, more columns: side by side before stacked).
  const std::vector<cv::Size> shape = shapes(frames);
  double best = -1;
  for (int cols = n; cols >= 1; --cols) {
    const int rows = (n + cols - 1) / cols;
    if (cols > 1 && (n + cols - 2) / (cols - 1) == rows) continue;  // fewer columns do as well
    double area = 0;
    for (int i = 0; i < n; ++i) area += fit(cellOf(canvas, cols, rows, n, i), shape[i]).area();
    if (area > best) {
      best = area;
      t.cols = cols;
      t.rows = rows;
    }
  }
  for (int i = 0; i < n; ++i) {
    t.cells[i] = cellOf(canvas, t.cols, t.rows, n, i);
    t.pictures[i] = fit(t.cells[i], frames[i]);
  }
  return t;
}

cv::Size initialTileCanvas(const std::vector<cv::Size>& frames, cv::Size workArea) {
  const int n = std::max<int>(1, static_cast<int>(frames.size()));
  const int cols = static_cast<int>(std::ceil(std::sqrt(double(n))));
  const int rows = (n + cols - 1) / cols;
  cv::Size cell;
  for (const cv::Size& f : shapes(frames))
    cell = {std::max(cell.width, f.width), std::max(cell.height, f.height)};
  const double w = double(cols) * cell.width, h = double(rows) * cell.height;
  const cv::Size gaps((cols - 1) * kTileGap, (rows - 1) * kTileGap);
  const double room =
      std::min((workArea.width - gaps.width) / w, (workArea.height - gaps.height) / h);
  // Shrunk to fit; small frames enlarged by a whole factor to about 480 pixels across.
  const double scale = room < 1 ? room : std::clamp(std::floor(480.0 / w), 1.0, std::floor(room));
  return {std::max(240, std::min(workArea.width, int(w * scale) + gaps.width)),
          std::max(160, std::min(workArea.height, int(h * scale) + gaps.height))};
}

}  // namespace vf::app
