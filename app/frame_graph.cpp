#include "app/frame_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "app/theme.hpp"

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
  *p50 = v[(v.size() - 1) / 2];
  *p99 = v[std::min(v.size() - 1, std::size_t(std::ceil(0.99 * double(v.size()))) - 1)];
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

}  // namespace

double drawFrameGraph(cv::Mat& canvas, cv::Rect area, const FrameHistory& history, double now,
                      const GraphStyle& style, const Text& small) {
  area &= cv::Rect(0, 0, canvas.cols, canvas.rows);
  if (area.width < 40 || area.height < 24) return 0;
  // Drawn in the plot's own view of the canvas: nothing reaches outside it.
  cv::Mat m = canvas(area);
  const cv::Rect r(0, 0, area.width, area.height);
  m.setTo(theme::kSection);
  const int w = r.width;
  const double span = std::max(0.5, style.windowSec);
  auto colOf = [&](double t) {
    const double age = std::clamp(now - t, 0.0, span);
    return w - 1 - int(std::lround(age / span * (w - 1)));
  };

  // Per column: the largest device time and latency of the frames that fall there, each frame
  // holding its value until the next one (a step per frame), broken where frames stop coming.
  const double gapSec = 0.5;
  std::vector<float> dev(w, -1.f), lat(w, -1.f);
  double top = 0;
  const FrameHistory::Entry* prevDev = nullptr;
  const FrameHistory::Entry* prevLat = nullptr;
  for (const auto& e : history.entries()) {
    if (now - e.t > span + gapSec) continue;
    const int c = colOf(e.t);
    if (e.deviceMs >= 0) {
      const int from = prevDev && e.t - prevDev->t < gapSec ? colOf(prevDev->t) + 1 : c;
      for (int k = std::max(0, from); k <= c; ++k) dev[k] = std::max(dev[k], float(e.deviceMs));
      top = std::max(top, e.deviceMs);
      prevDev = &e;
    }
    if (e.shown && e.latencyMs >= 0) {
      const int from = prevLat && e.t - prevLat->t < gapSec ? colOf(prevLat->t) + 1 : c;
      for (int k = std::max(0, from); k <= c; ++k) lat[k] = std::max(lat[k], float(e.latencyMs));
      top = std::max(top, e.latencyMs);
      prevLat = &e;
    }
  }
  // The scale holds the budget, unless the frames take far less: then it follows them (their
  // ups and downs stay visible) and the budget is marked above the plot.
  const bool budgetOnScale = style.budgetMs > 0 && style.budgetMs <= 4 * top;
  const double yMax =
      niceCeil(std::max({top * 1.1, budgetOnScale ? style.budgetMs * 1.1 : 0.0, 0.1}));
  const int y0 = r.y + r.height - 1;
  auto yOf = [&](double ms) {
    return y0 - int(std::lround(std::min(ms, yMax) / yMax * (r.height - 2)));
  };

  // Grid: quarters of the scale, labelled at the top and the middle.
  for (int k = 1; k <= 4; ++k) {
    const int y = yOf(yMax * k / 4);
    cv::line(m, {r.x, y}, {r.x + w - 1, y}, theme::kRule, 1);
  }
  // Device time: a filled area.
  for (int c = 0; c < w; ++c)
    if (dev[c] >= 0) cv::line(m, {r.x + c, y0}, {r.x + c, yOf(dev[c])}, theme::kDevice, 1);
  // Latency: a line through the columns that have one.
  std::vector<cv::Point> run;
  auto flush = [&] {
    if (run.size() > 1)
      cv::polylines(m, run, false, theme::kLatency, 2, cv::LINE_AA);
    else if (run.size() == 1)
      cv::circle(m, run[0], 1, theme::kLatency, cv::FILLED);
    run.clear();
  };
  for (int c = 0; c < w; ++c) {
    if (lat[c] < 0) {
      flush();
      continue;
    }
    run.emplace_back(r.x + c, yOf(lat[c]));
  }
  flush();
  // Labels on a patch of the plot's background, so the curves never cross them.
  const int pad = std::max(3, small.px() / 3);
  auto label = [&](const std::string& t, int x, int baseline, const cv::Scalar& c, Align a) {
    const int tw = small.width(t);
    const int left = a == Align::Right ? x - tw : x;
    cv::rectangle(m, cv::Rect(left - 3, baseline - small.ascent() - 3, tw + 6, small.ascent() + 6),
                  theme::kSection, cv::FILLED);
    small.draw(m, t, x, baseline, c, a);
  };
  // The budget, over everything: a dashed line, or off the scale a mark along the top edge.
  if (budgetOnScale) {
    const int yb = yOf(style.budgetMs);
    dashed(m, r.x, r.x + w - 1, yb, theme::kBudget, 2);
    const bool above = yb - small.lineHeight() > r.y;
    label("budget " + msLabel(style.budgetMs) + " ms", r.x + w - pad,
          above ? yb - pad - 1 : yb + small.ascent() + pad + 1, theme::kBudget, Align::Right);
  } else if (style.budgetMs > 0) {
    dashed(m, r.x, r.x + w - 1, r.y, theme::kBudget, 1);
    label("budget " + msLabel(style.budgetMs) + " ms above", r.x + w - pad,
          r.y + small.ascent() + pad, theme::kBudget, Align::Right);
  }
  for (const double v : {yMax, yMax / 2})
    label(msLabel(v) + (v == yMax ? " ms" : ""), r.x + pad, yOf(v) + small.ascent() + pad,
          theme::kDim, Align::Left);
  return yMax;
}

}  // namespace vf::app
