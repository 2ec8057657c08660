#include "app/histogram_panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "app/theme.hpp"

namespace vf::app {

namespace {

std::string countLabel(double n) {
  char b[32];
  if (n >= 1e6)
    std::snprintf(b, sizeof b, "%.1fM", n / 1e6);
  else if (n >= 1e4)
    std::snprintf(b, sizeof b, "%.0fk", n / 1e3);
  else if (n >= 1e3)
    std::snprintf(b, sizeof b, "%.1fk", n / 1e3);
  else
    std::snprintf(b, sizeof b, "%.0f", n);
  return b;
}

int plotHeight(const Text& font) { return font.px() * 7; }

}  // namespace

int histogramPanelHeight(const Text& font, const Text& small) {
  return font.lineHeight() + plotHeight(font) + small.lineHeight() + 4;
}

cv::Rect drawHistogramPanel(cv::Mat& m, cv::Rect r, const HistogramView& h, const Text& font,
                            const Text& small) {
  const int pad = font.px() / 2;
  int y = r.y + font.ascent() + 2;
  int x = font.draw(m, "histogram", r.x + pad, y, theme::kTitle);
  const std::string scale = h.log ? "log" : "linear";
  const int scaleW = small.width(scale);
  small.draw(m, small.fit(h.source, r.x + r.width - pad - scaleW - x - font.px()), x + pad, y,
             theme::kDim);
  small.draw(m, scale, r.x + r.width - pad, y, theme::kText, Align::Right);

  // The plot takes what `r` has below the title and above the axis labels.
  const int plotH = std::max(font.px() * 3, r.height - font.lineHeight() - small.lineHeight() - 4);
  const cv::Rect plot(r.x + pad, r.y + font.lineHeight(), r.width - 2 * pad, plotH);
  if (plot.width < 32 || plot.br().y > m.rows) return {};
  cv::rectangle(m, plot, theme::kSection, cv::FILLED);
  for (int v : {64, 128, 192}) {
    const int gx = plot.x + v * (plot.width - 1) / 255;
    cv::line(m, {gx, plot.y}, {gx, plot.y + plot.height - 1}, theme::kRule, 1);
  }
  // Axis labels under the plot.
  const int ay = plot.y + plot.height + small.ascent() + 3;
  for (int v : {0, 64, 128, 192, 255}) {
    const Align a = v == 0 ? Align::Left : v == 255 ? Align::Right : Align::Centre;
    small.draw(m, std::to_string(v), plot.x + v * (plot.width - 1) / 255, ay, theme::kDim, a);
  }
  if (!h.bins || h.channels <= 0) {
    small.draw(m, "no histogram yet", plot.x + plot.width / 2, plot.y + plot.height / 2,
               theme::kDim, Align::Centre);
    return plot;
  }

  const cv::Scalar colours[3] = {theme::kHistBlue, theme::kHistGreen, theme::kHistRed};
  const int shown = std::min(h.channels, 3);  // bgra: alpha is not drawn
  double peak = 0;
  for (int c = 0; c < shown; ++c)
    for (int b = 0; b < 256; ++b) peak = std::max(peak, double(h.bins[c * 256 + b]));
  auto level = [&](double n) {
    if (peak <= 0) return 0.0;
    return h.log ? std::log1p(n) / std::log1p(peak) : n / peak;
  };
  cv::Mat area = m(plot);
  for (int c = 0; c < shown; ++c) {
    const cv::Scalar col = shown == 1 ? theme::kHistGray : colours[c];
    std::vector<cv::Point> pts;
    pts.reserve(258);
    pts.emplace_back(0, plot.height - 1);
    for (int b = 0; b < 256; ++b)
      pts.emplace_back(
          b * (plot.width - 1) / 255,
          plot.height - 1 - int(std::lround(level(h.bins[c * 256 + b]) * (plot.height - 3))));
    pts.emplace_back(plot.width - 1, plot.height - 1);
    // A translucent fill (channels overlap), then the outline at full strength.
    cv::Mat fill = area.clone();
    cv::fillPoly(fill, std::vector<std::vector<cv::Point>>{pts}, col, cv::LINE_AA);
    cv::addWeighted(fill, shown == 1 ? 0.55 : 0.3, area, shown == 1 ? 0.45 : 0.7, 0, area);
    const std::vector<cv::Point> curve(pts.begin() + 1, pts.end() - 1);
    cv::polylines(area, curve, false, col, 1, cv::LINE_AA);
  }
  small.draw(m, "peak " + countLabel(peak), plot.x + plot.width - 4, plot.y + small.ascent() + 3,
             theme::kDim, Align::Right);
  return plot;
}

}  // namespace vf::app
