#include "app/tile_view.hpp"

#include <algorithm>
#include <opencv2/imgproc.hpp>

#include "app/theme.hpp"
#include "app/view.hpp"

namespace vf::app {

namespace {

// Darkens `r` of `m` to `keep` of its brightness (behind text).
void shade(cv::Mat& m, cv::Rect r, double keep) {
  r &= cv::Rect(0, 0, m.cols, m.rows);
  if (r.area() <= 0) return;
  cv::Mat roi = m(r);
  roi.convertTo(roi, -1, keep, 0);
}

// A line of text in a shaded box at (x, y) (its top left), cut to `maxWidth`.
void boxedLine(cv::Mat& canvas, const std::string& text, int x, int y, int maxWidth, const Text& t,
               const cv::Scalar& colour) {
  const int pad = t.px() / 2;
  if (maxWidth < 2 * pad + t.px() || t.lineHeight() + 2 > canvas.rows) return;
  const std::string s = t.fit(text, maxWidth - 2 * pad);
  const cv::Rect box(x, y, t.width(s) + 2 * pad, t.lineHeight());
  shade(canvas, box, 0.3);
  t.draw(canvas, s, box.x + pad, box.y + t.ascent() + (t.lineHeight() - t.ascent()) / 2 - 1,
         colour);
}

// `text` centred in `cell`, over a shaded box.
void centred(cv::Mat& canvas, const std::string& text, cv::Rect cell, const Text& t,
             const cv::Scalar& colour) {
  const int pad = t.px() / 2;
  const std::string s = t.fit(text, cell.width - 4 * pad);
  const int w = t.width(s) + 2 * pad;
  if (s.empty() || cell.height < t.lineHeight()) return;
  boxedLine(canvas, s, cell.x + (cell.width - w) / 2, cell.y + (cell.height - t.lineHeight()) / 2,
            w + 1, t, colour);
}

}  // namespace

TileRenderer::TileRenderer() = default;
TileRenderer::~TileRenderer() = default;

const Text& TileRenderer::font(int px) {
  if (!font_ || font_->px() != px) font_ = std::make_unique<Text>(px);
  return *font_;
}

cv::Mat TileRenderer::render(cv::Size canvas, const TilesContent& c) {
  cv::Mat out(std::max(1, canvas.height), std::max(1, canvas.width), CV_8UC3, theme::kPanel);
  std::vector<cv::Size> sizes;
  for (const TileContent& t : c.tiles)
    sizes.push_back(t.frameSize.area() > 0 ? t.frameSize : t.picture.size());
  layout_ = layoutTiles(out.size(), sizes, c.large);
  const Text& t = font(theme::fontPx(out.size()));
  for (std::size_t i = 0; i < c.tiles.size(); ++i) {
    const cv::Rect cell = layout_.cells[i];
    if (cell.area() <= 0) continue;
    const TileContent& tile = c.tiles[i];
    out(cell).setTo(theme::kLetterbox);
    const cv::Rect pic = layout_.pictures[i];
    const bool shown = !tile.picture.empty() && pic.area() > 0;
    if (shown) {
      const double scale = double(pic.width) / tile.picture.cols;
      placeFrame(out, tile.picture, pic, scale);
    }
    if (!shown || tile.failed)
      centred(out, tile.status, cell, t, tile.failed ? theme::kFailed : theme::kDim);
    if (c.overlay && !tile.line.empty()) {
      const cv::Rect at = shown ? pic : cell;
      boxedLine(out, tile.line, at.x + 4, at.y + 4, at.width - 8, t, theme::kText);
    }
  }
  if (!c.note.empty()) {
    const int w = t.width(c.note) + t.px() + 1;
    boxedLine(out, c.note, (out.cols - w) / 2, out.rows - t.lineHeight() - 8, w, t,
              theme::kMessage);
  }
  return out;
}

}  // namespace vf::app
