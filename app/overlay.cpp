#include "app/overlay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>

namespace vf::app {

namespace {

constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

// Text size follows the frame: readable on 640x480, not huge on 4K.
double fontScale(const cv::Mat& m) { return std::clamp(m.rows / 1000.0, 0.42, 0.9); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Darkens `r` (clipped to the image) so white text reads on any video.
void shade(cv::Mat& m, cv::Rect r, double keep = 0.35) {
  r &= cv::Rect(0, 0, m.cols, m.rows);
  if (r.area() <= 0) return;
  cv::Mat roi = m(r);
  roi.convertTo(roi, -1, keep, 0);
}

struct Line {
  std::string text;
  cv::Scalar color;
};

// Draws lines of text in a shaded box at `origin`; returns the box.
cv::Rect textBox(cv::Mat& m, cv::Point origin, const std::vector<Line>& lines) {
  const double scale = fontScale(m);
  const int thick = 1;
  int base = 0;
  int w = 0;
  const int lineH = cv::getTextSize("Ag", kFont, scale, thick, &base).height + base + 4;
  for (const auto& l : lines)
    w = std::max(w, cv::getTextSize(l.text, kFont, scale, thick, &base).width);
  const int pad = 6;
  cv::Rect box(origin.x, origin.y, w + 2 * pad, lineH * int(lines.size()) + 2 * pad);
  shade(m, box);
  int y = origin.y + pad + lineH - base - 2;
  for (const auto& l : lines) {
    cv::putText(m, l.text, {origin.x + pad, y}, kFont, scale, l.color, thick, cv::LINE_AA);
    y += lineH;
  }
  return box & cv::Rect(0, 0, m.cols, m.rows);
}

const cv::Scalar kWhite(255, 255, 255), kGrey(150, 150, 150), kYellow(0, 230, 255),
    kGreen(120, 255, 120);

}  // namespace

cv::Mat toBgr(const FrameView& f) {
  const int type = f.format == PixelFormat::Gray8  ? CV_8UC1
                   : f.format == PixelFormat::BGR8 ? CV_8UC3
                                                   : CV_8UC4;
  const cv::Mat src(f.height, f.width, type, f.data, f.stride);
  cv::Mat out;
  if (f.format == PixelFormat::Gray8)
    cv::cvtColor(src, out, cv::COLOR_GRAY2BGR);
  else if (f.format == PixelFormat::BGRA8)
    cv::cvtColor(src, out, cv::COLOR_BGRA2BGR);
  else
    out = src.clone();
  return out;
}

int displayScale(int width, int minWidth) {
  if (width <= 0 || width >= minWidth) return 1;
  return (minWidth + width - 1) / width;
}

cv::Mat composeCompare(const cv::Mat& original, const cv::Mat& filtered) {
  cv::Mat right = filtered;
  if (filtered.size() != original.size()) cv::resize(filtered, right, original.size());
  cv::Mat out;
  cv::hconcat(original, right, out);
  const double scale = fontScale(out);
  for (int k = 0; k < 2; ++k) {
    const char* label = k == 0 ? "original" : "filtered";
    const cv::Point at(k * original.cols + 8, out.rows - 10);
    int base = 0;
    const cv::Size ts = cv::getTextSize(label, kFont, scale, 1, &base);
    shade(out, cv::Rect(at.x - 4, at.y - ts.height - 4, ts.width + 8, ts.height + base + 8));
    cv::putText(out, label, at, kFont, scale, kWhite, 1, cv::LINE_AA);
  }
  cv::line(out, {original.cols, 0}, {original.cols, out.rows - 1}, kWhite, 1);
  return out;
}

cv::Rect drawOverlay(cv::Mat& m, const OverlayInfo& in) {
  std::vector<Line> lines;
  lines.push_back({in.device.empty() ? "vidfilter" : in.device, kGreen});
  lines.push_back({fmt("%.1f fps", in.fps) + "   latency " + fmt("%.2f ms", in.latencyMs) +
                       (in.paused ? "   PAUSED" : ""),
                   in.paused ? kYellow : kWhite});
  lines.push_back({"frames " + std::to_string(in.frames) + "   dropped " +
                       std::to_string(in.dropped) +
                       (in.frameDesc.empty() ? "" : "   " + in.frameDesc),
                   kWhite});
  lines.push_back(
      {"upload " + fmt("%.3f ms", in.uploadMs) + "   download " + fmt("%.3f ms", in.downloadMs),
       kWhite});
  double total = 0;
  for (std::size_t i = 0; i < in.stages.size(); ++i) {
    const auto& s = in.stages[i];
    std::string t = (s.selected ? "> " : "  ") + std::to_string(i + 1) + " " + s.name;
    if (!s.param.empty()) t += " " + s.param;
    t += s.enabled ? "  " + fmt("%.3f ms", s.ms) : "  (off)";
    if (s.enabled) total += s.ms;
    lines.push_back({t, !s.enabled ? kGrey : s.selected ? kYellow : kWhite});
  }
  if (!in.stages.empty()) lines.push_back({"  chain " + fmt("%.3f ms", total), kGreen});
  lines.push_back(
      {in.message.empty() ? "h: keys" : in.message, in.message.empty() ? kGrey : kYellow});
  return textBox(m, {6, 6}, lines);
}

cv::Rect drawHistogram(cv::Mat& m, const std::uint32_t* bins, int channels) {
  if (!bins || channels <= 0) return {};
  const int w = std::min(m.cols - 12, 256 + 12), h = std::min(m.rows / 3, 120);
  if (w < 32 || h < 24) return {};
  const cv::Rect box(m.cols - w - 6, m.rows - h - 6, w, h);
  shade(m, box);
  const cv::Scalar colors[4] = {cv::Scalar(255, 80, 80), cv::Scalar(80, 255, 80),
                                cv::Scalar(80, 80, 255), cv::Scalar(200, 200, 200)};
  const int plotW = box.width - 12, plotH = box.height - 12;
  for (int c = 0; c < channels; ++c) {
    const std::uint32_t* hc = bins + 256 * c;
    // Log scale: filtered frames (edges) pile most pixels into a few bins, which would flatten
    // everything else on a linear scale.
    const double peak = std::log1p(double(*std::max_element(hc, hc + 256)));
    std::vector<cv::Point> pts;
    pts.reserve(256);
    for (int b = 0; b < 256; ++b) {
      const int x = box.x + 6 + b * (plotW - 1) / 255;
      const double level = peak > 0 ? std::log1p(double(hc[b])) / peak : 0;
      const int y = box.y + 6 + plotH - 1 - int(level * (plotH - 1) + 0.5);
      pts.emplace_back(x, y);
    }
    const cv::Scalar col = channels == 1 ? colors[3] : colors[std::min(c, 3)];
    cv::polylines(m, pts, false, col, 1, cv::LINE_8);
  }
  return box;
}

const std::vector<std::string>& helpLines() {
  static const std::vector<std::string> lines{
      "q / Esc   quit",
      "space     pause / resume",
      "1-9       toggle stage N on/off (and select it)",
      "Tab / ]   select the next stage, [ the previous",
      "+ / -     adjust the selected stage's main parameter",
      "s         save a PNG snapshot",
      "o         overlay on/off",
      "h         this help",
  };
  return lines;
}

cv::Rect drawHelp(cv::Mat& m) {
  std::vector<Line> lines{{"keys", kGreen}};
  for (const auto& l : helpLines()) lines.push_back({l, kWhite});
  // Measure first, then centre.
  const double scale = fontScale(m);
  int base = 0, w = 0;
  for (const auto& l : lines)
    w = std::max(w, cv::getTextSize(l.text, kFont, scale, 1, &base).width);
  const int lineH = cv::getTextSize("Ag", kFont, scale, 1, &base).height + base + 4;
  const int bw = w + 12, bh = lineH * int(lines.size()) + 12;
  return textBox(m, {std::max(0, (m.cols - bw) / 2), std::max(0, (m.rows - bh) / 2)}, lines);
}

}  // namespace vf::app
