#pragma once
// The resize's sampling, computed on the host once per size: for every output column (row) the
// source columns (rows) it reads and their weights, exactly as cv::resize computes them for
// 8-bit frames (imgproc/src/resize.cpp), so the kernel only gathers and sums.
//
//   nearest  1 tap:  s = min(floor(d * S/D), S-1) (INTER_NEAREST, in double as OpenCV)
//   linear   2 taps: f = (d+0.5)*S/D - 0.5, taps floor(f) and floor(f)+1 with weights 1-frac,
//                    frac, clamped at the edges; weights in OpenCV's 11-bit fixed point
//   cubic    4 taps: floor(f)-1 .. floor(f)+2, Keys' kernel with A = -0.75, indices clamped
//                    (replicate), 11-bit fixed point
//   area     shrinking on both axes: every source pixel the output pixel's cell covers, weighted
//            by the covered fraction (computeResizeAreaTab), float; otherwise the linear taps
//            with OpenCV's area-mode fraction ((d+1) - (s+1)*D/S)
//
// Fixed point (nearest, linear, cubic): out = (sum_y wy * sum_x wx * src + 2^21) >> 22, OpenCV's
// scalar path; its SIMD paths round some sums differently, by at most one level.
#include <vector>

#include "pipeline/params.hpp"

namespace vf {

enum class Interp { Nearest, Linear, Area, Cubic };

Interp parseInterp(const std::string& name);  // "nearest" ... as the stage's enum

// One axis: taps per output index, then for output d and tap k the source index idx[d*taps+k]
// (always inside the frame) and its weight w[d*taps+k] (an integer in float for fixed point).
struct ResizeAxis {
  int taps = 1;
  std::vector<int> idx;
  std::vector<float> w;
};

struct ResizeTables {
  bool fixedPoint = true;  // weights are 11-bit integers (else float area weights)
  ResizeAxis x, y;
};

// `invScaleX` is D/S as cv::resize takes it: dsize.width / ssize.width when the size is given,
// the factor itself when only a factor is (cv::resize(src, dst, Size(), fx, fy)).
ResizeTables resizeTables(Interp interp, int srcW, int srcH, int dstW, int dstH, double invScaleX,
                          double invScaleY);

// The output size the resize stage's parameters give for an input of w x h: `size` (one side -1
// keeps the aspect ratio, rounded) or, when size is 0x0, round(w*scale) x round(h*scale), at
// least 1 each. inv* receive the factors cv::resize would use (see resizeTables).
struct ResizeTarget {
  int width = 0, height = 0;
  double invScaleX = 1, invScaleY = 1;
};
ResizeTarget resizeTarget(int w, int h, Size2 size, double scale);

}  // namespace vf
