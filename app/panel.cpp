#include "app/panel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <utility>
#include <vector>

#include "app/theme.hpp"

namespace vf::app {

std::string formatTimecode(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const long long cs = std::llround(seconds * 100);
  const long long h = cs / 360000, m = cs / 6000 % 60, s = cs / 100 % 60, c = cs % 100;
  char b[48];
  if (h > 0)
    std::snprintf(b, sizeof b, "%lld:%02lld:%02lld.%02lld", h, m, s, c);
  else
    std::snprintf(b, sizeof b, "%lld:%02lld.%02lld", m, s, c);
  return b;
}

namespace {

using Run = std::pair<std::string, cv::Scalar>;

// Pieces of text in their colours, one after another; returns the x past the last.
int runs(cv::Mat& m, const Text& t, int x, int baseline, const std::vector<Run>& parts) {
  for (const auto& [s, c] : parts) x = t.draw(m, s, x, baseline, c);
  return x;
}

std::string fixed(double v, int decimals) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

int gap(const PanelFonts& f) { return f.font.px() * 2 / 3; }
int headerHeight(const PanelFonts& f) { return f.bold.lineHeight() + 2 * f.font.lineHeight(); }
int positionHeight(const PanelFonts& f) { return f.font.lineHeight() + 8; }
int graphPlotHeight(const PanelFonts& f) { return f.font.px() * 13 / 2; }

void drawHeader(cv::Mat& m, cv::Rect r, const PanelInfo& in, const PanelFonts& f) {
  const int pad = f.font.px() / 2;
  int y = r.y + f.bold.ascent() + 4;
  const int x = f.bold.draw(m, "vidfilter", r.x + pad, y, theme::kTitle);
  f.small.draw(m, f.small.fit(in.device, r.br().x - x - 2 * pad), x + pad, y, theme::kDim);
  y += f.font.lineHeight();
  std::vector<Run> rate{{in.fps >= 0 ? fixed(in.fps, 1) : std::string("-"), theme::kText},
                        {in.fpsOfRun ? " fps avg" : " fps", theme::kDim}};
  if (in.sourceFps > 0) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", in.sourceFps);  // 10, 29.97, 59.94
    rate.push_back({std::string(" of ") + b, theme::kDim});
  }
  int xx = runs(m, f.font, r.x + pad, y, rate);
  xx = runs(
      m, f.font, xx + f.font.px(), y,
      {{"latency ", theme::kDim}, {formatMs(in.latencyP50), theme::kText}, {" ms", theme::kDim}});
  f.small.draw(m, "p99 " + formatMs(in.latencyP99), xx + pad, y, theme::kDim);
  y += f.font.lineHeight();
  xx = runs(m, f.font, r.x + pad, y,
            {{"dropped ", theme::kDim},
             {std::to_string(in.dropped), in.dropped ? theme::kBudget : theme::kText}});
  f.small.draw(m, f.small.fit(in.formats, r.br().x - xx - 2 * pad - f.font.px()), xx + f.font.px(),
               y, theme::kDim);
}

cv::Rect drawPosition(cv::Mat& m, cv::Rect r, const PanelInfo& in, const PanelFonts& f) {
  const int pad = f.font.px() / 2;
  const int y = r.y + f.font.ascent() + 2;
  int x = r.x + pad;
  if (in.state != PlayState::Playing)
    x = f.bold.draw(m, in.state == PlayState::Paused ? "PAUSED" : "END", x, y, theme::kSelected) +
        pad;
  if (in.seconds < 0) {
    f.font.draw(m, "live", x, y, theme::kText);
    return {};
  }
  x = runs(m, f.font, x, y, {{formatTimecode(in.seconds), theme::kText}});
  if (in.duration > 0) runs(m, f.font, x, y, {{" / " + formatTimecode(in.duration), theme::kDim}});
  std::string frame = "frame " + std::to_string(in.frame);
  if (in.frameCount > 0) frame += " / " + std::to_string(in.frameCount);
  f.small.draw(m, frame, r.br().x - pad, y, theme::kDim, Align::Right);
  const cv::Rect bar(r.x + pad, y + 5, r.width - 2 * pad, 4);
  cv::rectangle(m, bar, theme::kRule, cv::FILLED);
  if (in.duration > 0) {
    const double at = std::clamp(in.seconds / in.duration, 0.0, 1.0);
    cv::rectangle(m, cv::Rect(bar.x, bar.y, std::max(2, int(at * bar.width)), bar.height),
                  theme::kProgress, cv::FILLED);
  }
  return bar;
}

cv::Rect drawGraphSection(cv::Mat& m, cv::Rect r, const PanelInfo& in, const PanelFonts& f) {
  const int pad = f.font.px() / 2;
  const int y = r.y + f.font.ascent() + 2;
  const int x = f.font.draw(m, "frame time", r.x + pad, y, theme::kTitle);
  f.small.draw(m, fixed(in.graph.windowSec, 0) + " s", x + pad, y, theme::kDim);
  // Legend, right-aligned: a swatch before each name.
  int lx = r.br().x - pad;
  for (const auto& [name, colour] :
       {Run{"latency", theme::kLatency}, Run{"device", theme::kDevice}}) {
    lx = lx - f.small.width(name);
    f.small.draw(m, name, lx, y, theme::kDim);
    const int s = f.small.px() * 2 / 3;
    cv::rectangle(m, cv::Rect(lx - s - 4, y - s, s, s), colour, cv::FILLED);
    lx -= s + 4 + f.font.px();
  }
  const cv::Rect plot(r.x + pad, r.y + f.font.lineHeight(), r.width - 2 * pad,
                      r.height - f.font.lineHeight());
  if (in.history) drawFrameGraph(m, plot, *in.history, in.now, in.graph, f.small);
  return plot;
}

}  // namespace

int panelHeight(const PanelInfo& in, const PanelFonts& f) {
  int h = headerHeight(f) + gap(f) + positionHeight(f) + gap(f);
  h += f.font.lineHeight() + graphPlotHeight(f) + gap(f);
  h += stageTableHeight(in.table, f.font, f.small) + gap(f);
  if (in.hasHistogram) h += histogramPanelHeight(f.font, f.small) + gap(f);
  return h + f.font.lineHeight() + 4;
}

PanelParts drawPanel(cv::Mat& m, cv::Rect r, const PanelInfo& in, const PanelFonts& f) {
  PanelParts parts;
  r &= cv::Rect(0, 0, m.cols, m.rows);
  if (r.area() <= 0) return parts;
  cv::rectangle(m, r, theme::kPanel, cv::FILLED);
  const int g = gap(f);
  const int footer = f.font.lineHeight() + 4;
  const int table = stageTableHeight(in.table, f.font, f.small);
  const int hist = histogramPanelHeight(f.font, f.small);
  // What fits: the histogram goes first, then the graph shrinks to 3 lines.
  const int fixedPart =
      headerHeight(f) + positionHeight(f) + f.font.lineHeight() + table + footer + 4 * g;
  const bool showHist = in.hasHistogram && r.height >= fixedPart + graphPlotHeight(f) + hist + g;
  // Room to spare goes to the graph, up to half as tall again.
  int graphH = r.height - fixedPart - (showHist ? hist + g : 0);
  graphH = std::clamp(graphH, f.font.px() * 3, graphPlotHeight(f) * 3 / 2);

  int y = r.y + 4;
  drawHeader(m, cv::Rect(r.x, y, r.width, headerHeight(f)), in, f);
  y += headerHeight(f) + g;
  parts.position = drawPosition(m, cv::Rect(r.x, y, r.width, positionHeight(f)), in, f);
  y += positionHeight(f) + g;
  parts.graph = drawGraphSection(m, cv::Rect(r.x, y, r.width, f.font.lineHeight() + graphH), in, f);
  y += f.font.lineHeight() + graphH + g;
  // In a window too short for every row, the rows past the footer's line are cut off (drawn into
  // the rows above it only), never drawn over the footer.
  const int tableEnd = std::clamp(r.br().y - footer - g, y, m.rows);
  cv::Mat above = m.rowRange(0, tableEnd);
  parts.bars = drawStageTable(above, cv::Rect(r.x, y, r.width, std::min(table, tableEnd - y)),
                              in.table, f.font, f.small);
  y += table + g;
  if (showHist) {
    // Room left over makes the histogram taller, up to half again.
    const int room = r.br().y - footer - g - (y + hist);
    const int h = hist + std::clamp(room, 0, hist / 2);
    parts.histogram =
        drawHistogramPanel(m, cv::Rect(r.x, y, r.width, h), in.histogram, f.font, f.small);
  }
  const int fy = r.br().y - 6 - (f.font.lineHeight() - f.font.ascent()) / 2;
  if (!in.message.empty())
    f.font.draw(m, f.font.fit(in.message, r.width - f.font.px()), r.x + f.font.px() / 2, fy,
                theme::kMessage);
  else
    runs(m, f.small, r.x + f.font.px() / 2, fy, {{"h", theme::kText}, {"  keys", theme::kDim}});
  return parts;
}

}  // namespace vf::app
