#include "app/view.hpp"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "app/mat_view.hpp"
#include "app/theme.hpp"

namespace vf::app {

cv::Mat toBgr(const FrameView& f) {
  const cv::Mat src = matOf(f);
  cv::Mat out;
  if (f.format == PixelFormat::Gray8)
    cv::cvtColor(src, out, cv::COLOR_GRAY2BGR);
  else if (f.format == PixelFormat::BGRA8)
    cv::cvtColor(src, out, cv::COLOR_BGRA2BGR);
  else
    out = src.clone();
  return out;
}

cv::Size displaySize(cv::Size frame, double sar) {
  if (!(sar > 0) || std::abs(sar - 1) < 1e-9) return frame;
  return {std::max(1, int(std::lround(frame.width * sar))), frame.height};
}

void placeFrame(cv::Mat& canvas, const cv::Mat& frame, cv::Rect at, double scale) {
  if (frame.empty() || at.area() <= 0) return;
  cv::Mat dst = canvas(at & cv::Rect(0, 0, canvas.cols, canvas.rows));
  if (frame.size() == dst.size()) {
    frame.copyTo(dst);
  } else if (scale < 1) {
    // Area averaging is OpenCV's fast path at whole factors and 10x slower in between: average
    // by the whole factor, then interpolate the rest (less than 2x) linearly.
    const int k = std::min({int(1 / scale), frame.cols, frame.rows});
    cv::Mat mid = frame;
    if (k >= 2) cv::resize(frame, mid, {frame.cols / k, frame.rows / k}, 0, 0, cv::INTER_AREA);
    cv::resize(mid, dst, dst.size(), 0, 0, cv::INTER_LINEAR);
  } else {
    cv::resize(frame, dst, dst.size(), 0, 0, scaleInterpolation(scale));
  }
}

const std::vector<std::pair<std::string, std::string>>& helpKeys() {
  static const std::vector<std::pair<std::string, std::string>> keys{
      {"q  Esc", "quit"},
      {"space", "pause / play"},
      {". ,", "one frame forward / back (files)"},
      {"Left Right", "seek 5 s back / forward (files)"},
      {"Down Up", "seek 60 s back / forward (files)"},
      {"1 ... 9", "stage N on / off (and select it)"},
      {"Tab  ] [", "select the next / previous stage"},
      {"+ -", "move the selected stage's parameter"},
      {"c", "compare: original beside filtered"},
      {"l", "histogram scale: log / linear"},
      {"u", "fused passes / every stage alone (timings)"},
      {"o", "panel on / off"},
      {"f  F11", "full screen"},
      {"s", "save the filtered frame as PNG"},
      {"h", "this help"},
  };
  return keys;
}

void shade(cv::Mat& m, cv::Rect r, double keep) {
  r &= cv::Rect(0, 0, m.cols, m.rows);
  if (r.area() <= 0) return;
  cv::Mat roi = m(r);
  roi.convertTo(roi, -1, keep, 0);
}

namespace {

// The largest rectangle of `frame`'s aspect ratio inside `at`, centred: the original in compare
// mode when the chain changed the frame's size or shape (resize, crop).
cv::Rect fitted(cv::Rect at, cv::Size frame) {
  if (frame.width <= 0 || frame.height <= 0) return at;
  const double s = std::min(double(at.width) / frame.width, double(at.height) / frame.height);
  const int w = std::clamp(int(std::lround(frame.width * s)), 1, std::max(1, at.width));
  const int h = std::clamp(int(std::lround(frame.height * s)), 1, std::max(1, at.height));
  return {at.x + (at.width - w) / 2, at.y + (at.height - h) / 2, w, h};
}

void label(cv::Mat& canvas, cv::Rect picture, const std::string& text, const Text& t) {
  const int pad = t.px() / 2;
  const cv::Rect box(picture.x + 6, picture.y + 6, t.width(text) + 2 * pad, t.lineHeight());
  if (box.width + 12 > picture.width || box.height + 12 > picture.height) return;
  shade(canvas, box, 0.3);
  t.draw(canvas, text, box.x + pad, box.y + t.ascent() + (t.lineHeight() - t.ascent()) / 2 - 1,
         theme::kText);
}

}  // namespace

void drawKeyHelp(cv::Mat& canvas, cv::Rect area, const PanelFonts& f,
                 const std::vector<std::pair<std::string, std::string>>& keys) {
  int keyW = 0, textW = 0;
  for (const auto& [k, d] : keys) {
    keyW = std::max(keyW, f.bold.width(k));
    textW = std::max(textW, f.font.width(d));
  }
  const int pad = f.font.px(), lh = f.font.lineHeight() + 2;
  const cv::Size box(keyW + textW + 3 * pad + pad, lh * int(keys.size() + 1) + 2 * pad);
  const cv::Rect r(area.x + std::max(0, (area.width - box.width) / 2),
                   area.y + std::max(0, (area.height - box.height) / 2), box.width, box.height);
  shade(canvas, r, 0.15);
  cv::rectangle(canvas, r & cv::Rect(0, 0, canvas.cols, canvas.rows), theme::kRule, 1);
  int y = r.y + pad + f.bold.ascent();
  f.bold.draw(canvas, "keys", r.x + pad, y, theme::kTitle);
  for (const auto& [k, d] : keys) {
    y += lh;
    f.bold.draw(canvas, k, r.x + pad, y, theme::kSelected);
    f.font.draw(canvas, d, r.x + 2 * pad + keyW + pad, y, theme::kText);
  }
}

ViewRenderer::ViewRenderer() = default;
ViewRenderer::~ViewRenderer() = default;

const PanelFonts& ViewRenderer::fonts(int px) {
  if (!fonts_ || fonts_->font.px() != px) fonts_ = std::make_unique<PanelFonts>(px);
  return *fonts_;
}

cv::Mat ViewRenderer::render(cv::Size canvas, const ViewContent& c) {
  cv::Mat out(std::max(1, canvas.height), std::max(1, canvas.width), CV_8UC3, theme::kLetterbox);
  const PanelFonts& f = fonts(theme::fontPx(out.size()));
  const bool compare = c.compare && !c.original.empty();
  const cv::Size shownFiltered = displaySize(c.filtered.size(), c.filteredSar);
  const cv::Size shownOriginal = displaySize(c.original.size(), c.originalSar);
  layout_ = layoutView(out.size(), shownFiltered, compare,
                       c.overlay ? theme::panelWidth(f.font.px()) : 0);
  parts_ = PanelParts{};
  placeFrame(out, c.filtered, layout_.filtered, layout_.scale);
  if (compare) {
    const bool sameShape = shownOriginal == shownFiltered;
    const cv::Rect at = sameShape ? layout_.original : fitted(layout_.original, shownOriginal);
    placeFrame(out, c.original, at,
               sameShape ? layout_.scale : double(at.height) / std::max(1, c.original.rows));
    label(out, at, "original", f.small);
    label(out, layout_.filtered, "filtered", f.small);
  }
  if (layout_.panel.area() > 0) parts_ = drawPanel(out, layout_.panel, c.panel, f);
  if (c.help) {
    const int pictures = layout_.panel.area() > 0 ? layout_.panel.x : out.cols;
    drawKeyHelp(out, cv::Rect(0, 0, pictures, out.rows), f, helpKeys());
  }
  return out;
}

cv::Size ViewRenderer::initialSize(const ViewContent& c, cv::Size frame, cv::Size workArea) {
  cv::Size size = workArea;
  // The font follows the canvas, and the panel the font: settle in two rounds.
  for (int round = 0; round < 2; ++round) {
    const PanelFonts& f = fonts(theme::fontPx(size));
    const int pw = c.overlay ? theme::panelWidth(f.font.px()) : 0;
    const int ph = c.overlay ? panelHeight(c.panel, f) : 0;
    size = initialCanvas(displaySize(frame, c.filteredSar), c.compare, pw, ph, workArea);
  }
  return size;
}

}  // namespace vf::app
