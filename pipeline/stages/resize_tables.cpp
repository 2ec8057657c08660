#include "pipeline/stages/resize_tables.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vf {

namespace {

constexpr float kCoefScale = 2048.f;  // OpenCV's INTER_RESIZE_COEF_SCALE (11 bits)

int floorInt(double v) { return static_cast<int>(std::floor(v)); }

// saturate_cast<short>(float): round half to even, as cvRound.
float fixedWeight(float w) { return static_cast<float>(std::lrint(w * kCoefScale)); }

// Keys' cubic with A = -0.75 (OpenCV's interpolateCubic), in float as OpenCV computes it.
void cubicCoeffs(float x, float c[4]) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

ResizeAxis nearestAxis(int src, int dst, double invScale) {
  ResizeAxis a;
  const double step = 1. / invScale;
  for (int d = 0; d < dst; ++d) {
    a.idx.push_back(std::min(floorInt(d * step), src - 1));
    a.w.push_back(kCoefScale);
  }
  return a;
}

// Linear and cubic taps (and the area mode's linear taps when enlarging): OpenCV's table loop.
ResizeAxis interpAxis(Interp interp, int src, int dst, double invScale) {
  const bool cubic = interp == Interp::Cubic;
  const bool area = interp == Interp::Area;
  const double scale = 1. / invScale;
  ResizeAxis a;
  a.taps = cubic ? 4 : 2;
  for (int d = 0; d < dst; ++d) {
    float f;
    int s;
    if (!area) {
      f = static_cast<float>((d + 0.5) * scale - 0.5);
      s = floorInt(f);
      f -= static_cast<float>(s);
    } else {
      s = floorInt(d * scale);
      f = static_cast<float>((d + 1) - (s + 1) * invScale);
      f = f <= 0 ? 0.f : f - std::floor(f);
    }
    if (!cubic && s < 0) f = 0, s = 0;
    if (!cubic && s >= src - 1) f = 0, s = src - 1;
    float c[4];
    if (cubic) {
      cubicCoeffs(f, c);
    } else {
      c[0] = 1.f - f;
      c[1] = f;
    }
    for (int k = 0; k < a.taps; ++k) {
      a.idx.push_back(std::clamp(s + k - a.taps / 2 + 1, 0, src - 1));
      a.w.push_back(fixedWeight(c[k]));
    }
  }
  return a;
}

// Shrinking by area: OpenCV's computeResizeAreaTab, one output index's entries padded to the
// widest cell with zero weights.
ResizeAxis areaAxis(int src, int dst, double scale) {
  std::vector<std::vector<std::pair<int, float>>> cells(dst);
  std::size_t taps = 1;
  for (int d = 0; d < dst; ++d) {
    const double f1 = d * scale, f2 = f1 + scale;
    const double cell = std::min(scale, src - f1);
    int s2 = std::min(floorInt(f2), src - 1);
    const int s1 = std::min(static_cast<int>(std::ceil(f1)), s2);
    auto& c = cells[d];
    if (s1 - f1 > 1e-3) c.push_back({s1 - 1, static_cast<float>((s1 - f1) / cell)});
    for (int s = s1; s < s2; ++s) c.push_back({s, static_cast<float>(1.0 / cell)});
    if (f2 - s2 > 1e-3)
      c.push_back({s2, static_cast<float>(std::min(std::min(f2 - s2, 1.), cell) / cell)});
    taps = std::max(taps, c.size());
  }
  ResizeAxis a;
  a.taps = static_cast<int>(taps);
  for (const auto& c : cells) {
    for (std::size_t k = 0; k < taps; ++k) {
      const bool real = k < c.size();
      a.idx.push_back(real ? c[k].first : (c.empty() ? 0 : c.back().first));
      a.w.push_back(real ? c[k].second : 0.f);
    }
  }
  return a;
}

}  // namespace

Interp parseInterp(const std::string& name) {
  if (name == "nearest") return Interp::Nearest;
  if (name == "linear") return Interp::Linear;
  if (name == "area") return Interp::Area;
  if (name == "cubic") return Interp::Cubic;
  throw std::invalid_argument("unknown interpolation '" + name + "'");
}

ResizeTables resizeTables(Interp interp, int srcW, int srcH, int dstW, int dstH, double invScaleX,
                          double invScaleY) {
  ResizeTables t;
  if (interp == Interp::Nearest) {
    t.x = nearestAxis(srcW, dstW, invScaleX);
    t.y = nearestAxis(srcH, dstH, invScaleY);
  } else if (interp == Interp::Area && invScaleX <= 1 && invScaleY <= 1) {
    t.fixedPoint = false;
    t.x = areaAxis(srcW, dstW, 1. / invScaleX);
    t.y = areaAxis(srcH, dstH, 1. / invScaleY);
  } else {
    t.x = interpAxis(interp, srcW, dstW, invScaleX);
    t.y = interpAxis(interp, srcH, dstH, invScaleY);
  }
  return t;
}

ResizeTarget resizeTarget(int w, int h, Size2 size, double scale) {
  ResizeTarget t;
  if (size.w == 0 && size.h == 0) {
    t.width = std::max(1, static_cast<int>(std::lrint(w * scale)));
    t.height = std::max(1, static_cast<int>(std::lrint(h * scale)));
    t.invScaleX = t.invScaleY = scale;
    return t;
  }
  t.width = size.w > 0 ? size.w : std::max(1, static_cast<int>(std::lrint(double(w) * size.h / h)));
  t.height =
      size.h > 0 ? size.h : std::max(1, static_cast<int>(std::lrint(double(h) * size.w / w)));
  t.invScaleX = double(t.width) / w;
  t.invScaleY = double(t.height) / h;
  return t;
}

}  // namespace vf
