#include "app/frame_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "app/theme.hpp"
#include "pipeline/percentile.hpp"

namespace vf::app {

void FrameHistory::add(std::uint64_t index, double t, double deviceMs, double latencyMs) {
  entries_.push_back({index, t, deviceMs, latencyMs, false});
  while (!entries_.empty() && entries_.front().t < t - keep_) entries_.pop_front();
}

void FrameHistory::markShown(std::uint64_t index, double latencyMs) {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->index == index) {
      it->latencyMs = latencyMs;
      it->shown = true;
      return;
    }
    if (it->index < index) return;
  }
}

bool FrameHistory::screenLatency(double* p50, double* p99, double seconds) const {
  std::vector<double> v;
  const double since = lastTime() - seconds;
  for (const auto& e : entries_)
    if (e.shown && e.t >= since) v.push_back(e.latencyMs);
  if (v.empty()) return false;
  std::sort(v.begin(), v.end());
  *p50 = percentile(v, 0.50);
  *p99 = percentile(v, 0.99);
  return true;
}

double niceCeil(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= v * (1 - 1e-9)) return m * p;
  return 10 * p;
}

namespace {

std::string msLabel(double ms) {
  char b[32];
  if (ms >= 10 || ms == std::floor(ms))
    std::snprintf(b, sizeof b, "%.0f", ms);
  else if (ms >= 1)
    std::snprintf(b, sizeof b, "%.1f", ms);
  else
    std::snprintf(b, sizeof b, "%.2g", ms);
  return b;
}

// A horizontal dashed line.
void dashed(cv::Mat& m, int x0, int x1, int y, const cv::Scalar& c, int thickness) {
  for (int x = x0; x <= x1; x += 9) cv::line(m, {x, y}, {std::min(x + 5, x1), y}, c, thickness);
}

// Per column: the largest device time and latency of the frames that fall there, each frame
// holding its value until the next one (a step per frame), broken where frames stop coming
// (-1: none).
struct Columns {
  std::vector<float> dev, lat;
  double top = 0;  // the largest value
};

Columns columnsOf(const FrameHistory& history, double now, double span, int w) {
  auto colOf = [&](double t) {
    const double age = std::clamp(now - t, 0.0, span);
    return w - 1 - int(std::lround(age / span * (w - 1)));
  };
  const double gapSec = 0.5;
  Columns c{std::vector<float>(w, -1.f), std::vector<float>(w, -1.f), 0};
  const FrameHistory::Entry* prevDev = nullptr;
  const FrameHistory::Entry* prevLat = nullptr;
  auto hold = [&](std::vector<float>& v, const FrameHistory::Entry*& prev,
                  const FrameHistory::Entry& e, double value) {
    const int col = colOf(e.t);
    const int from = prev && e.t - prev->t < gapSec ? colOf(prev->t) + 1 : col;
    for (int k = std::max(0, from); k <= col; ++k) v[k] = std::max(v[k], float(value));
    c.top = std::max(c.top, value);
    prev = &e;
  };
  for (const auto& e : history.entries()) {
    if (now - e.t > span + gapSec) continue;
    if (e.deviceMs >= 0) hold(c.dev, prevDev, e, e.deviceMs);
    if (e.shown && e.latencyMs >= 0) hold(c.lat, prevLat, e, e.latencyMs);
  }
  return c;
}

// The plot's own view of the canvas and its y scale.
struct Plot {
  cv::Mat m;
  int w = 0, h = 0;
  double yMax = 1;
  int y0() const { return h - 1; }
  int yOf(double ms) const { return y0() - int(std::lround(std::min(ms, yMax) / yMax * (h - 2))); }
};

// Grid, device time as a filled area, latency as a line through the columns that have one.
void drawCurves(Plot& p, const Columns& c) {
  for (int k = 1; k <= 4; ++k) {  // quarters of the scale
    const int y = p.yOf(p.yMax * k / 4);
    cv::line(p.m, {0, y}, {p.w - 1, y}, theme::kRule, 1);
  }
  for (int x = 0; x < p.w; ++x)
    if (c.dev[x] >= 0) cv::line(p.m, {x, p.y0()}, {x, p.yOf(c.dev[x])}, theme::kDevice, 1);
  std::vector<cv::Point> run;
  auto flush = [&] {
    if (run.size() > 1)
      cv::polylines(p.m, run, false, theme::kLatency, 2, cv::LINE_AA);
    else if (run.size() == 1)
      cv::circle(p.m, run[0], 1, theme::kLatency, cv::FILLED);
    run.clear();
  };
  for (int x = 0; x < p.w; ++x) {
    if (c.lat[x] < 0) {
      flush();
      continue;
    }
    run.emplace_back(x, p.yOf(c.lat[x]));
  }
  flush();
}

// The budget over everything (a dashed line, or off the scale a mark along the top edge) and
// the scale's labels at the top and the middle, each on a patch of the plot's background so
// the curves never cross them.
void drawLabels(Plot& p, const GraphStyle& style, bool budgetOnScale, const Text& small) {
  const int pad = std::max(3, small.px() / 3);
  auto label = [&](const std::string& t, int x, int baseline, const cv::Scalar& c, Align a) {
    const int tw = small.width(t);
    const int left = a == Align::Right ? x - tw : x;
    cv::rectangle(p.m,
                  cv::Rect(left - 3, baseline - small.ascent() - 3, tw + 6, small.ascent() + 6),
                  theme::kSection, cv::FILLED);
    small.draw(p.m, t, x, baseline, c, a);
  };
  if (budgetOnScale) {
    const int yb = p.yOf(style.budgetMs);
    dashed(p.m, 0, p.w - 1, yb, theme::kBudget, 2);
    const bool above = yb - small.lineHeight() > 0;
    label("budget " + msLabel(style.budgetMs) + " ms", p.w - pad,
          above ? yb - pad - 1 : yb + small.ascent() + pad + 1, theme::kBudget, Align::Right);
  } else if (style.budgetMs > 0) {
    dashed(p.m, 0, p.w - 1, 0, theme::kBudget, 1);
    label("budget " + msLabel(style.budgetMs) + " ms above", p.w - pad, small.ascent() + pad,
          theme::kBudget, Align::Right);
  }
  for (const double v : {p.yMax, p.yMax / 2})
    label(msLabel(v) + (v == p.yMax ? " ms" : ""), pad, p.yOf(v) + small.ascent() + pad,
          theme::kDim, Align::Left);
}

}  // namespace

double drawFrameGraph(cv::Mat& canvas, cv::Rect area, const FrameHistory& history, double now,
                      const GraphStyle& style, const Text& small) {
  area &= cv::Rect(0, 0, canvas.cols, canvas.rows);
  if (area.width < 40 || area.height < 24) return 0;
  // Drawn in the plot's own view of the canvas: nothing reaches outside it.
  Plot p{canvas(area), area.width, area.height, 1};
  p.m.setTo(theme::kSection);
  const Columns c = columnsOf(history, now, std::max(0.5, style.windowSec), p.w);
  // The scale holds the budget, unless the frames take far less: then it follows them (their
  // ups and downs stay visible) and the budget is marked above the plot.
  const bool budgetOnScale = style.budgetMs > 0 && style.budgetMs <= 4 * c.top;
  p.yMax = niceCeil(std::max({c.top * 1.1, budgetOnScale ? style.budgetMs * 1.1 : 0.0, 0.1}));
  drawCurves(p, c);
  drawLabels(p, style, budgetOnScale, small);
  return p.yMax;
}

}  // namespace vf::app
