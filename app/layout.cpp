#include "app/layout.hpp"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace vf::app {

namespace {

// The narrowest picture area worth showing next to the panel.
constexpr int kMinPicture = 96;

struct Arrangement {
  int across = 1, down = 1;  // pictures side by side, and stacked
  double scale = 0;          // the largest that fits
};

// The arrangement of one or two pictures that shows them largest inside `area`.
Arrangement bestFit(cv::Size area, cv::Size frame, bool compare) {
  auto fit = [&](int across, int down) {
    Arrangement a{across, down, 0};
    if (frame.width > 0 && frame.height > 0 && area.width > 0 && area.height > 0)
      a.scale = std::min(double(area.width) / (across * frame.width),
                         double(area.height) / (down * frame.height));
    return a;
  };
  if (!compare) return fit(1, 1);
  const Arrangement side = fit(2, 1), stacked = fit(1, 2);
  return stacked.scale > side.scale ? stacked : side;
}

}  // namespace

ViewLayout layoutView(cv::Size canvas, cv::Size frame, bool compare, int panelWidth) {
  ViewLayout v;
  cv::Rect area(0, 0, canvas.width, canvas.height);
  if (panelWidth > 0 && canvas.width >= panelWidth + kMinPicture) {
    area.width -= panelWidth;
    v.panel = cv::Rect(area.width, 0, panelWidth, canvas.height);
  }
  const Arrangement a = bestFit(area.size(), frame, compare);
  v.scale = a.scale;
  v.stacked = compare && a.down == 2;
  // Never past the area (a canvas a few pixels wide leaves empty pictures, not stray ones).
  const int w =
      std::min(area.width / a.across, std::max(1, int(std::floor(frame.width * a.scale))));
  const int h =
      std::min(area.height / a.down, std::max(1, int(std::floor(frame.height * a.scale))));
  // The block of pictures, centred in its area.
  const int x0 = area.x + (area.width - a.across * w) / 2;
  const int y0 = area.y + (area.height - a.down * h) / 2;
  if (!compare) {
    v.filtered = cv::Rect(x0, y0, w, h);
  } else {
    v.original = cv::Rect(x0, y0, w, h);
    v.filtered = v.stacked ? cv::Rect(x0, y0 + h, w, h) : cv::Rect(x0 + w, y0, w, h);
  }
  return v;
}

cv::Size initialCanvas(cv::Size frame, bool compare, int panelWidth, int panelHeight,
                       cv::Size workArea) {
  const cv::Size area(std::max(kMinPicture, workArea.width - panelWidth),
                      std::max(kMinPicture, workArea.height));
  const Arrangement a = bestFit(area, frame, compare);
  double scale = std::min(1.0, a.scale);
  if (a.scale >= 2) {
    // Small frames: a whole factor, about as tall as the panel, never past the work area.
    const double toPanel = double(panelHeight) / (a.down * frame.height);
    scale = std::clamp(std::round(toPanel), 1.0, std::floor(a.scale));
  }
  const int w = a.across * std::max(1, int(std::floor(frame.width * scale)));
  const int h = a.down * std::max(1, int(std::floor(frame.height * scale)));
  cv::Size canvas(w + panelWidth, std::max(h, panelWidth > 0 ? panelHeight : 0));
  canvas.width = std::min(canvas.width, std::max(workArea.width, kMinPicture + panelWidth));
  canvas.height = std::min(canvas.height, std::max(workArea.height, kMinPicture));
  return canvas;
}

int scaleInterpolation(double scale) {
  if (scale < 1) return cv::INTER_AREA;
  if (scale >= 2) return cv::INTER_NEAREST;
  return cv::INTER_LINEAR;
}

}  // namespace vf::app
