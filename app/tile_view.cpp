#include "app/tile_view.hpp"

#include <algorithm>
#include <opencv2/imgproc.hpp>

#include "app/theme.hpp"
#include "app/view.hpp"

namespace vf::app {

std::string tileLine(const Text& t, const TileContent& tile, int room) {
  std::string line = tile.line + tile.figures;
  if (t.width(line) > room && room - t.width(tile.figures) >= 4 * t.px())
    line = t.fit(tile.line, room - t.width(tile.figures)) + tile.figures;
  return line;
}

namespace {

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

// `text` in lines of at most `width` pixels, broken between words (at most `most` lines, the
// last cut with "..." when there is more).
std::vector<std::string> wrap(const std::string& text, int width, const Text& t, int most) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size() && static_cast<int>(lines.size()) < most) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    const std::string longer = line.empty() ? word : line + " " + word;
    if (line.empty() || t.width(longer) <= width) {
      line = longer;
      at = end + 1;
      continue;
    }
    lines.push_back(line);
    line.clear();
  }
  if (!line.empty() && static_cast<int>(lines.size()) < most) lines.push_back(line);
  if (at < text.size() && !lines.empty()) lines.back() += " ...";  // more than fits
  for (std::string& l : lines) l = t.fit(l, width);
  return lines;
}

// `text` centred in `cell`, in up to three lines, each over a shaded box.
void centred(cv::Mat& canvas, const std::string& text, cv::Rect cell, const Text& t,
             const cv::Scalar& colour) {
  const int pad = t.px() / 2;
  const std::vector<std::string> lines = wrap(text, cell.width - 4 * pad, t, 3);
  const int n = static_cast<int>(lines.size());
  if (n == 0 || cell.height < n * t.lineHeight()) return;
  int y = cell.y + (cell.height - n * t.lineHeight()) / 2;
  for (const std::string& s : lines) {
    const int w = t.width(s) + 2 * pad;
    boxedLine(canvas, s, cell.x + (cell.width - w) / 2, y, w + 1, t, colour);
    y += t.lineHeight();
  }
}

}  // namespace

TileRenderer::TileRenderer() = default;
TileRenderer::~TileRenderer() = default;

const PanelFonts& TileRenderer::fonts(int px) {
  if (!fonts_ || fonts_->font.px() != px) fonts_ = std::make_unique<PanelFonts>(px);
  return *fonts_;
}

const std::vector<std::pair<std::string, std::string>>& tileHelpKeys() {
  static const std::vector<std::pair<std::string, std::string>> keys{
      {"q  Esc", "quit (every input)"},
      {"space", "pause / play (every input)"},
      {"1 ... 9", "that input alone (again: the grid)"},
      {"0", "the grid"},
      {"o", "overlay lines on / off"},
      {"f  F11", "full screen"},
      {"h", "this help"},
  };
  return keys;
}

cv::Mat TileRenderer::render(cv::Size canvas, const TilesContent& c) {
  cv::Mat out(std::max(1, canvas.height), std::max(1, canvas.width), CV_8UC3, theme::kPanel);
  std::vector<cv::Size> sizes;
  for (const TileContent& t : c.tiles)
    sizes.push_back(t.frameSize.area() > 0 ? t.frameSize : t.picture.size());
  layout_ = layoutTiles(out.size(), sizes, c.large);
  const PanelFonts& f = fonts(theme::fontPx(out.size()));
  const Text& t = f.font;
  for (std::size_t i = 0; i < c.tiles.size(); ++i) {
    const cv::Rect cell = layout_.cells[i];
    if (cell.area() <= 0) continue;
    const TileContent& tile = c.tiles[i];
    out(cell).setTo(theme::kLetterbox);
    const cv::Rect pic = layout_.pictures[i];
    const bool shown = !tile.picture.empty() && pic.area() > 0;
    if (shown) {
      const double scale = double(pic.height) / std::max(1, tile.picture.rows);
      placeFrame(out, tile.picture, pic, scale);
    }
    if (!shown || tile.failed)
      centred(out, tile.status, cell, t, tile.failed ? theme::kFailed : theme::kDim);
    if (c.overlay && !tile.line.empty()) {
      // Over the picture; where a narrow one (a portrait frame) would cut the line, across its
      // cell, the letterbox beside the picture taking the rest.
      cv::Rect at = shown ? pic : cell;
      if (shown && t.width(tile.line + tile.figures) > pic.width - 8 - t.px())
        at = cv::Rect(cell.x, pic.y, cell.width, pic.height);
      boxedLine(out, tileLine(t, tile, at.width - 8 - t.px()), at.x + 4, at.y + 4, at.width - 8, t,
                theme::kText);
    }
  }
  if (!c.note.empty()) {
    const int w = t.width(c.note) + t.px() + 1;
    boxedLine(out, c.note, (out.cols - w) / 2, out.rows - t.lineHeight() - 8, w, t,
              theme::kMessage);
  }
  if (c.help) drawKeyHelp(out, cv::Rect(0, 0, out.cols, out.rows), f, tileHelpKeys());
  return out;
}

}  // namespace vf::app
