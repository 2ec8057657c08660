#include "app/stage_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>

#include "app/frame_graph.hpp"
#include "app/theme.hpp"

namespace vf::app {

std::string formatMs(double ms) {
  char b[32];
  if (ms >= 100)
    std::snprintf(b, sizeof b, "%.0f", ms);
  else if (ms >= 10)
    std::snprintf(b, sizeof b, "%.1f", ms);
  else if (ms >= 1)
    std::snprintf(b, sizeof b, "%.2f", ms);
  else
    std::snprintf(b, sizeof b, "%.3f", ms);
  return b;
}

namespace {

// Column positions for a table of width r.width.
struct Columns {
  int index, name, nameEnd, barLeft, barWidth, p50Right, p99Right;
};

Columns columns(cv::Rect r, int px) {
  Columns c{};
  const int pad = px / 2;
  c.index = r.x + pad;
  c.name = r.x + pad + px * 17 / 10;
  c.p99Right = r.x + r.width - pad;
  c.p50Right = c.p99Right - px * 7 / 2;
  const int barRight = c.p50Right - px * 3;
  c.barWidth = px * 11 / 2;
  c.barLeft = barRight - c.barWidth;
  c.nameEnd = c.barLeft - pad;
  return c;
}

// A bar of `v` against `scale` with a tick at `tick` (< 0: none), centred on `midY`.
void bar(cv::Mat& m, const Columns& c, int midY, int px, double v, double tick, double scale) {
  const int h = std::max(4, px * 11 / 20);
  const cv::Rect trough(c.barLeft, midY - h / 2, c.barWidth, h);
  cv::rectangle(m, trough, theme::kRule, cv::FILLED);
  if (!(scale > 0)) return;
  if (v > 0) {
    const bool over = v > scale;
    const int len = std::max(2, int(std::lround(std::min(v / scale, 1.0) * c.barWidth)));
    cv::rectangle(m, cv::Rect(trough.x, trough.y, len, h), over ? theme::kBudget : theme::kDevice,
                  cv::FILLED);
  }
  if (tick > 0) {
    const int x = trough.x + std::min(c.barWidth - 2, int(std::lround(tick / scale * c.barWidth)));
    cv::rectangle(m, cv::Rect(x, trough.y - 2, 2, h + 4), theme::kP99, cv::FILLED);
  }
}

}  // namespace

int stageTableHeight(const StageTable& t, const Text& font, const Text& small) {
  int h = small.lineHeight() + 2;  // column heads
  for (const auto& s : t.stages) {
    h += font.lineHeight();
    if (!s.applied.empty() && s.enabled) h += small.lineHeight();
  }
  return h + 6 + 3 * font.lineHeight();  // rule, upload, download, total
}

cv::Rect drawStageTable(cv::Mat& m, cv::Rect r, const StageTable& t, const Text& font,
                        const Text& small) {
  const int px = font.px();
  const Columns c = columns(r, px);
  double total = t.uploadP50 + t.downloadP50;
  double slowest = std::max(t.uploadP99, t.downloadP99);
  for (const auto& s : t.stages) {
    if (s.enabled && s.timed) total += s.p50;
    if (s.enabled && s.timed) slowest = std::max(slowest, s.p99);
  }
  const double scale = t.budgetMs > 0 ? t.budgetMs : niceCeil(std::max(total, slowest));
  int y = r.y + small.ascent() + 2;
  small.draw(m, "stage", c.name, y, theme::kDim);
  small.draw(m, t.budgetMs > 0 ? "of " + formatMs(t.budgetMs) + " ms" : "ms", c.barLeft, y,
             theme::kDim);
  small.draw(m, "p50", c.p50Right, y, theme::kDim, Align::Right);
  small.draw(m, "p99", c.p99Right, y, theme::kDim, Align::Right);
  y += small.lineHeight() - small.ascent() + 2;

  auto row = [&](const std::string& idx, const std::string& name, const std::string& param,
                 const cv::Scalar& colour, bool on, bool timed, double p50, double p99) {
    const int base = y + font.ascent() + (font.lineHeight() - font.ascent()) / 2 - 2;
    if (!idx.empty()) font.draw(m, idx, c.index, base, colour);
    int x = font.draw(m, font.fit(name, c.nameEnd - c.name), c.name, base, colour);
    if (!param.empty() && x + px / 2 < c.nameEnd)
      small.draw(m, small.fit(param, c.nameEnd - x - px / 2), x + px / 2, base,
                 on ? theme::kDim : theme::kRule);
    const int mid = base - font.ascent() / 2;
    if (on && timed) {
      bar(m, c, mid, px, p50, p99, scale);
      font.draw(m, formatMs(p50), c.p50Right, base, theme::kText, Align::Right);
      if (p99 > 0) small.draw(m, formatMs(p99), c.p99Right, base, theme::kDim, Align::Right);
    } else {
      bar(m, c, mid, px, 0, -1, 0);
      small.draw(m, on ? "-" : "off", c.p50Right, base, theme::kDim, Align::Right);
    }
    y += font.lineHeight();
  };

  for (std::size_t i = 0; i < t.stages.size(); ++i) {
    const StageRow& s = t.stages[i];
    const cv::Scalar colour = !s.enabled   ? theme::kDim
                              : s.selected ? theme::kSelected
                                           : theme::kText;
    if (s.selected)  // a band behind the row +/- acts on
      cv::rectangle(m, cv::Rect(r.x + 2, y, r.width - 4, font.lineHeight()), theme::kSection,
                    cv::FILLED);
    const std::string idx = std::to_string(i + 1);
    row(idx, s.name, s.param, colour, s.enabled, s.timed, s.p50, s.p99);
    if (!s.applied.empty() && s.enabled) {
      small.draw(m, small.fit(s.applied, r.x + r.width - c.name - px / 2), c.name,
                 y + small.ascent() + 1, theme::kTitle);
      y += small.lineHeight();
    }
  }
  cv::line(m, {c.name, y + 2}, {c.p99Right, y + 2}, theme::kRule, 1);
  y += 6;
  row("", "upload", "", theme::kDim, true, true, t.uploadP50, t.uploadP99);
  row("", "download", "", theme::kDim, true, true, t.downloadP50, t.downloadP99);
  row("", "frame total", "", theme::kText, true, true, total, -1);
  return cv::Rect(c.barLeft, r.y, c.barWidth, y - r.y);
}

}  // namespace vf::app
