// blur: separable Gaussian, as cv::GaussianBlur(src, dst, Size(k, k), sigma, sigma, border) on
// 8-bit gray, BGR and BGRA (per channel). Two passes (rows into a 16-bit scratch, then columns),
// each through a local-memory tile with a halo; see kernels/blur.cl for the arithmetic.
//
// Exactness: OpenCV 4.x computes 8-bit Gaussian blur in fixed point (taps with 8 fractional
// bits, 16-bit row sums, rounding shift by 16 at the end). We quantise the taps the same way
// on the host and keep the row sums exact in a ushort scratch, so the output equals OpenCV's
// bit for bit rather than "within 1" (with unquantised float taps, each tap off by up to 1/512,
// the worst case exceeds 1 level). ushort also moves half the bytes of a float scratch.
//
// Live parameters: sigma (taps rewritten, no rebuild unless the derived radius changes) and
// value (a kernel argument). ksize, border and wg are -D options: changing them reconfigures.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/cl/device.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/blur_shape.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

constexpr int kMaxKsize = 151;  // largest explicit ksize
// Largest radius: ksize=0 derives cvRound(6*sigma + 1)|1, 301 at sigma = 50.
constexpr int kMaxRadius = 150;

// The taps buffer: the half kernel as floats (kMaxRadius + 1 of them), then the same values as
// ushorts for the row pass's 16-bit arithmetic (see kernels/blur.cl, ROW_INT).
// From `frag` on, the constant A operands of the warp-level tensor-core kernels (stripFragments,
// slabFragments).
struct TapsBlock {
  float f[kMaxRadius + 1] = {};
  cl_ushort u[kMaxRadius + 1] = {};
  alignas(16) cl_uint frag[4 * 32 * 4] = {};  // 1 + KC operands (KC <= 3) x 32 lanes x 4 words
};
constexpr std::size_t kFragOffsetWords = offsetof(TapsBlock, frag) / sizeof(cl_uint);

// blur_strip.cl's row halo HA (R * CH rounded up to 8, 24 or 40) and row chunks KC.
int stripHalo(int r, int cn) { return r * cn <= 8 ? 8 : 8 + (r * cn - 8 + 15) / 16 * 16; }
int stripChunks(int r, int cn) { return (stripHalo(r, cn) + 8) / 16; }

// The constant A operands of the warp-level tensor-core kernels (blur_strip.cl, blur_rows_mma.cl
// and blur_slab.cl): operand j (0: the column product, 1 + c: the row products' chunk c) of lane
// l = 4g + q, word f (f & 1: row m = g + 8 instead of g; f & 2: inputs k + 16), byte i (k = 4q +
// i) is the tap at the distance `distance(j, m, k)` returns in elements (0 past the radius or off
// the channel grid).
template <class Distance>
void fillFragments(const std::vector<int>& taps, int r, int cn, cl_uint* frag, Distance distance) {
  for (int j = 0; j <= stripChunks(r, cn); ++j)
    for (int l = 0; l < 32; ++l)
      for (int f = 0; f < 4; ++f) {
        const int g = l >> 2, q = l & 3, m = (f & 1) ? g + 8 : g, hi = (f & 2) ? 16 : 0;
        const int step = j == 0 ? 1 : cn;  // columns: rows; rows: elements of one channel
        cl_uint word = 0;
        for (int i = 0; i < 4; ++i) {
          const int d = std::abs(distance(j, m, 4 * q + i + hi));
          if (d % step == 0 && d / step <= r) word |= cl_uint(taps[d / step]) << (8 * i);
        }
        frag[(j * 32 + l) * 4 + f] = word;
      }
}

// blur_strip.cl's (and blur_rows_mma.cl's), as its header defines them:
//   j = 0      columns: A[m][k] = t(k - m - R);
//   j = 1 + c  rows, chunk c: A[m][k] = t((e + 32c - HA - out(m)) / CH), element e = 8q + i for
//              k = 4q + i, 8q + 4 + i for k + 16; out(m) = 2m (m < 8) or 2(m - 8) + 1.
void stripFragments(const std::vector<int>& taps, int r, int cn, cl_uint* frag) {
  const int ha = stripHalo(r, cn);
  fillFragments(taps, r, cn, frag, [&](int j, int m, int k) {
    if (j == 0) return k - m - r;
    const int e = 8 * (k % 16 / 4) + 4 * (k / 16) + k % 4;
    const int out = m < 8 ? 2 * m : 2 * (m - 8) + 1;
    return e + 32 * (j - 1) - ha - out;
  });
}

// blur_slab.cl's, as its header defines them:
//   j = 0      columns: A[m][k] = t(row(k) - 8 - m), row(k) = 2q + (i & 1) + 8 (i >> 1) for
//              k = 4q + i, 16 more for k + 16;
//   j = 1 + c  rows, chunk c: A[m][k] = t((k + 32c - HA - e(m)) / CH), e(m) = 4 (m >> 1) + (m & 1)
//              for m < 8, 4 ((m - 8) >> 1) + 2 + (m & 1) beyond.
void slabFragments(const std::vector<int>& taps, int r, int cn, cl_uint* frag) {
  const int ha = stripHalo(r, cn);
  fillFragments(taps, r, cn, frag, [&](int j, int m, int k) {
    if (j == 0) {
      const int i = k % 4, row = k / 16 * 16 + 2 * (k % 16 / 4) + (i & 1) + 8 * (i >> 1);
      return row - 8 - m;
    }
    const int e = m < 8 ? 4 * (m >> 1) + (m & 1) : 4 * ((m - 8) >> 1) + 2 + (m & 1);
    return k + 32 * (j - 1) - ha - e;
  });
}

// OpenCV's createGaussianKernels for 8-bit data: cvRound(sigma*3*2 + 1) | 1 (cvRound rounds half
// to even, as lrint does in the default rounding mode).
int derivedKsize(double sigma) { return static_cast<int>(std::lrint(sigma * 3 * 2 + 1)) | 1; }

// The taps OpenCV's 8-bit GaussianBlur uses, as integers with 8 fractional bits: first the
// Gaussian of cv::getGaussianKernel (getGaussianKernelBitExact: symmetric, normalised to sum 1,
// in double precision), then quantised by error diffusion from the outside in, the centre
// taking what is left so the taps sum to exactly 256 (getGaussianKernelFixedPoint_ED).
// Returns the half kernel: [0] is the centre, [k] the weight at distance k.
std::vector<int> fixedPointTaps(int ksize, double sigma) {
  const int n = ksize, half = (n - 1) / 2;
  const double scale2X = -0.125 / (sigma * sigma);  // -0.5 / sigma^2, x counted in halves
  std::vector<double> values(half);
  double sum = 0;
  for (int i = 0, x = 1 - n; i < half; ++i, x += 2) {
    values[i] = std::exp(double(x) * double(x) * scale2X);
    sum += values[i];
  }
  sum = sum * 2 + 1;  // the centre's value is exp(0) = 1
  const double mul = 1 / sum;
  std::vector<int> full(n);
  double err = 0;
  int outer = 0;
  for (int i = 0; i < half; ++i) {
    const double adj = values[i] * mul * 256 + err;
    const int v = static_cast<int>(std::nearbyint(adj));  // cvRound: half to even
    err = adj - v;
    full[i] = full[n - 1 - i] = v;
    outer += v;
  }
  full[half] = 256 - 2 * outer;
  return std::vector<int>(full.begin() + half, full.end());
}

// How the kernels tile the frame (see kernels/blur.cl). Chosen per device, radius, channels
// and work-group shape so the tiles fit in local memory.
struct Schedule {
  int vec = 16;          // elements per vector along a row (both passes)
  int rowPx = 1;         // vectors per work-item, row pass
  bool rowInt = false;   // row pass in 16-bit integers on a uchar tile (CPUs), else float
  int colPy = 4;         // rows per work-item, column pass
  bool rowFloat = true;  // row tile of floats (converted once on load) or of the uchar input
  bool colFloat = true;  // column tile of floats or of the ushort scratch

  std::size_t rowBytes(int r, int cn, Size2 wg) const {
    const std::size_t chunks =
        (std::size_t(wg.w) * vec * rowPx + 2 * std::size_t(r) * cn + vec - 1) / vec;
    return std::size_t(wg.h) * chunks * vec * (rowFloat && !rowInt ? 4 : 1);
  }
  std::size_t colBytes(int r, Size2 wg) const {
    return (std::size_t(wg.h) * colPy + 2 * std::size_t(r)) * std::size_t(wg.w) * vec *
           (colFloat ? 4 : 2);
  }
  std::size_t bytes(int r, int cn, Size2 wg) const {
    return std::max(rowBytes(r, cn, wg), colBytes(r, wg));
  }
};

// The schedule for a device: the widest vectors, float tiles, then the most vectors and rows
// per work-item that keep the tiles within the budget; UserError when even the smallest tiles
// exceed the device's local memory.
//
// Measured on PoCL (2-core Xeon, AVX-512, 1080p): explicit 16-wide vectors are what makes the
// work-item loop SIMD at all; 4 vectors (rows) and 4 rows (columns) per work-item amortise
// PoCL's per-work-item bookkeeping (callgrind: 9.4 -> 7.6 instructions per element, rows
// pass); tiles that stay near L1 (wg 16x4 or 8x4: 10-20 KB) beat 32x8's 66-86 KB by ~20%;
// the row pass in 16-bit integers on a uchar tile (twice the lanes of float, a quarter of the
// tile) is ~10% faster again.
// On GPUs a 4-wide vector keeps local-memory accesses conflict-free and the tiles small
// enough for several work-groups per core.
Schedule chooseSchedule(int r, int cn, Size2 wg, bool cpu, std::size_t deviceLocal) {
  const int maxVec = cpu ? 16 : 4, maxPx = cpu ? 4 : 1, maxPy = 4;
  const std::size_t budget = std::min<std::size_t>(cpu ? 64 * 1024 : 32 * 1024, deviceLocal);
  for (int vec = maxVec; vec >= 1; vec /= 2) {
    for (bool f : {true, false}) {
      for (int px = maxPx; px >= 1; px /= 2) {
        for (int py = maxPy; py >= 1; py /= 2) {
          Schedule s;
          s.vec = vec;
          s.rowPx = px;
          s.colPy = py;
          s.rowFloat = s.colFloat = f;
          s.rowInt = cpu;
          if (s.bytes(r, cn, wg) <= budget) return s;
        }
      }
    }
  }
  Schedule smallest;
  smallest.vec = smallest.rowPx = smallest.colPy = 1;
  smallest.rowFloat = smallest.colFloat = false;
  smallest.rowInt = cpu;
  if (smallest.bytes(r, cn, wg) <= deviceLocal) return smallest;
  throw UserError("blur: ksize " + std::to_string(2 * r + 1) + " with wg " + std::to_string(wg.w) +
                  "x" + std::to_string(wg.h) + " needs " +
                  std::to_string(smallest.bytes(r, cn, wg)) +
                  " bytes of local memory; the device has " + std::to_string(deviceLocal) +
                  ": use a smaller wg or ksize");
}

// The GPU schedule (kernels/blur_gpu.cl): one fused kernel (passes=1) or columns and rows
// through a 16-bit scratch (passes=2; with mma, by default where the tensor-core kernels apply,
// the rows are kernels/blur_rows_mma.cl: 8K BGRA 216 -> 166 us on the H200). A tile is tw output
// elements x th rows; the column phase gives each work-item one 4-element word column of py rows,
// the row phase vx outputs of a row. wg=0 (the default) sizes the work-group to the column phase's
// units (whole warps, at most 256), so each work-item has about one. The stage's `wg` parameter is
// the CPU kernels' shape only. Defaults from reasoning about an H200 (blur_gpu.cl) and sweeps there
// (docs/PERFORMANCE.md). inner: which tiles of the fused kernel run a copy of the column phase
// without border code: 0 none, 1 those whose words all lie inside the row (the default: 26 ->
// 25 us at 3840x2160 gray on the H200), 2 those whose rows also do (25-26 us there: within the
// timer's step, so not the default).
// mma=1: the tensor-core kernel (kernels/blur_mma.cl; tile tw x th, default 112 x 64, wg 256)
// where it applies (radius <= 8, taps <= 255): 3840x2160 gray 11x11 27 -> 20 us on the H200.
// mma=2: the same products in registers, a strip of nb blocks (32 elements each) x th rows per
// warp (kernels/blur_strip.cl; default nb 2 for gray, 4 otherwise, th 16, wg 128: 4 strips one
// above the other): 7680x4320 BGRA 240 -> 160-180 us. mma=3, the default on NVIDIA compute
// capability 8+ where they apply: the rows first (kernels/blur_slab.cl; nb sets of 16 outputs x
// th rows per warp, chosen per frame, wg 128), each product's result the next one's operand and
// the outputs stored through local memory: 3840x2160 gray 21 -> 17 us, 7680x4320 BGRA 179 ->
// 135 us, 1920x1080 BGR 24 -> 19 us against mma=2 (mma=1 for gray) in the same H200 runs; pf
// loads each band's words during the band before where that pays (gray 4K 17 -> 16 us).
// Elsewhere all three run emulated (tests).
// VIDFILTER_BLUR_GPU="passes=2,wg=256,tw=128,th=32,py=8,vx=16,inner=2,mma=0,nb=4,pf=1" overrides
// any of them (for benchmarking schedules).
struct GpuSchedule {
  // tw, th: -1 until set (the defaults depend on the kernel); mma: -1 until set (auto).
  int passes = 1, wg = 0, tw = -1, th = -1, py = 8, vx = 16, inner = 1, mma = -1, nb = -1, rg = -1;
  int pf = -1;           // mma=3: load the next band during this one (-1: with the strip, below)
  int ow = 0;            // mma=2, 3: output elements per strip
  bool rowsMma = false;  // passes=2: the second pass on the tensor cores (blur_rows_mma.cl)
  bool aligned = true;   // rows a multiple of 4 bytes (8 with mma): interior words load whole
  bool autoWg = false;   // wg chosen here (wg=0), not by VIDFILTER_BLUR_GPU

  static int halo(int r, int cn) { return (r * cn + 3) / 4 * 4; }
  // As blur_gpu.cl lays it out: th rows of the tile width in float4s, plus a padding float4
  // per vx/4 of them when vx > 4.
  std::size_t tileBytes(int r, int cn) const {
    const std::size_t w4 = std::size_t(tw + 2 * halo(r, cn)) / 4;
    return std::size_t(th) * (w4 + (vx == 4 ? 0 : w4 / std::size_t(vx / 4) + 1)) * 16;
  }
  // blur_mma.cl's local memory, by its definitions (VW, RP, VPW, OPW, the emulation's scratch).
  std::size_t mmaBytes(int r, int cn, bool emulated) const {
    const int ha = (r * cn + 7) / 8 * 8, kc = (ha + 16 + r * cn + 31) / 32;
    const int vw = (tw - 16 + 32 * kc + 31) / 32 * 32;
    const std::size_t raw = std::max<std::size_t>(
        std::size_t(th + 16) * (vw + 8), std::size_t(th) * 4 * (tw / 4 + (36 - tw / 4 % 32) % 32));
    const std::size_t vt = std::size_t(th) * 4 * (vw / 2 + (vw / 2 % 32 == 0 ? 4 : 20));
    return (raw + 3) / 4 * 4 + vt + (emulated ? std::size_t(wg / 32) * 192 * 4 : 0);
  }
};

// blur_slab.cl's defaults: work-group, and the warps per compute unit its strips are sized for
// (slabShape).
constexpr int kSlabWg = 128, kSlabWarpsPerUnit = 24;

// blur_rows_mma.cl's work-group: kRowsMmaWarps warps of 8 rows x rg groups of 16 outputs each.
constexpr int kRowsMmaWarps = 4;

// blur_mma.cl takes radius <= 8 (a column product spans 16 + 2R <= 32 rows) and taps that fit
// 8 bits (only a degenerate kernel, all weight in the centre, has a tap of 256).
bool mmaTakes(int r, const std::vector<int>& taps) {
  return r <= 8 && *std::max_element(taps.begin(), taps.end()) <= 255;
}

// The largest row-phase window (elements) the GPU kernels keep in registers, and the largest
// radius; beyond them the portable kernels of blur.cl run.
constexpr int kGpuMaxWindow = 96;
constexpr int kGpuMaxRadius = 16;

bool gpuKernelsTake(int r, int cn) {
  return r <= kGpuMaxRadius && 16 + 2 * GpuSchedule::halo(r, cn) <= kGpuMaxWindow;
}

GpuSchedule gpuSchedule(int r, int cn, std::size_t rowElems, int height, unsigned computeUnits,
                        std::size_t deviceLocal, std::size_t maxWg, bool littleEndian,
                        bool mmaDefault, bool mmaEmulated, bool mmaFits) {
  GpuSchedule g;
  if (const char* env = std::getenv("VIDFILTER_BLUR_GPU"); env && *env) {
    std::string spec(env);
    const std::pair<const char*, int*> keys[] = {
        {"passes", &g.passes}, {"wg", &g.wg}, {"tw", &g.tw},       {"th", &g.th},
        {"py", &g.py},         {"vx", &g.vx}, {"inner", &g.inner}, {"mma", &g.mma},
        {"nb", &g.nb},         {"rg", &g.rg}, {"pf", &g.pf}};
    std::string names;  // "passes, wg, ..., rg or pf"
    for (std::size_t k = 0; k < std::size(keys); ++k)
      names += (k == 0                     ? ""
                : k + 1 == std::size(keys) ? " or "
                                           : ", ") +
               std::string(keys[k].first);
    std::size_t pos = 0;
    while (pos < spec.size()) {
      const std::size_t comma = std::min(spec.find(',', pos), spec.size());
      const std::string item = spec.substr(pos, comma - pos);
      pos = comma + 1;
      const std::size_t eq = item.find('=');
      const std::string key = item.substr(0, eq);
      int* field = nullptr;
      for (const auto& [name, f] : keys)
        if (key == name) field = f;
      const char* text = eq == std::string::npos ? "" : item.c_str() + eq + 1;
      char* end = nullptr;
      const long v = std::strtol(text, &end, 10);
      if (!field || eq == std::string::npos || end == text || *end != '\0' || v < 0 || v > 65536)
        throw UserError("VIDFILTER_BLUR_GPU: '" + item + "' is not key=value with key " + names +
                        " and a non-negative integer value");
      *field = static_cast<int>(v);
    }
  }
  // mma=1 where blur_mma.cl applies; by default (mma unset) also only with a tile and
  // work-group it takes, so a schedule written for blur_fused keeps blur_fused.
  const int mmaKey = g.mma;  // as given, checked below with the other keys
  const bool mmaAuto = g.mma < 0;
  // By default on NVIDIA: the rows-first kernel (the H200 runs: 4K gray 17 us against 21 for the
  // tile kernel, 8K BGRA 135 us against 179 for the strip kernel).
  if (mmaAuto) g.mma = mmaDefault ? 3 : 0;
  const auto mmaShape = [](int tw, int th, int wg) {
    return (tw < 0 || (tw > 0 && tw % 16 == 0)) && (th < 0 || (th > 0 && th % 16 == 0)) &&
           wg % 32 == 0;
  };
  // passes=2 with mma (by default where the tensor-core kernels apply, unless a tile for
  // blur_rows was given): the second pass is blur_rows_mma.cl.
  const bool rowsMma =
      g.passes == 2 && mmaFits && g.mma >= 1 && (!mmaAuto || (g.tw < 0 && g.th < 0));
  if (!(g.passes == 1 && mmaFits && (!mmaAuto || mmaShape(g.tw, g.th, g.wg)))) g.mma = 0;
  GpuSchedule m = g;  // the tensor-core tile kernel's defaults
  if (m.tw < 0) m.tw = 112;
  if (m.th < 0) m.th = 64;
  if (m.wg == 0) m.wg = 256;
  const std::size_t local = std::min<std::size_t>(48 * 1024, deviceLocal);
  if (g.mma == 1 && mmaAuto && m.mmaBytes(r, cn, mmaEmulated) > local) g.mma = 0;  // blur_fused
  const bool strip = g.mma == 2, slab = g.mma == 3;
  if (g.tw < 0) g.tw = g.mma == 1 ? m.tw : 128;
  const int thKey = g.th;  // as given (-1: the kernel's default)
  if (g.th < 0) g.th = g.mma == 1 ? m.th : strip ? 16 : 32;
  // Every key is checked whichever kernel runs.
  const bool ok = (g.passes == 1 || g.passes == 2) &&
                  (g.vx == 4 || g.vx == 8 || g.vx == 16 || g.vx == 32) && g.wg >= 0 &&
                  std::size_t(g.wg) <= maxWg && g.tw > 0 && g.tw % g.vx == 0 && g.py > 0 &&
                  g.py <= 16 && g.th > 0 && g.th % g.py == 0 && g.inner <= 2 && mmaKey <= 3 &&
                  // nb is ignored where mma=2 or 3 (or the default) does not apply, so a live
                  // change of the radius does not make it an error
                  (g.nb < 0 || mmaKey < 0 || mmaKey == 2 || mmaKey == 3) &&
                  (g.pf < 0 || ((g.pf == 0 || g.pf == 1) && (mmaKey < 0 || mmaKey == 3)));
  if (!ok)
    throw UserError(
        "VIDFILTER_BLUR_GPU: invalid schedule (passes 1|2, vx 4|8|16|32, tw a multiple "
        "of vx, th a multiple of py, py <= 16, inner 0|1|2, mma 0|1|2|3, nb only with mma=2|3, pf "
        "0|1 only with mma=3, wg 0 (auto) to " +
        std::to_string(maxWg) + ")");
  if (strip) {  // blur_strip.cl: each warp a strip of nb blocks x th rows, no local memory
    if (g.wg == 0) g.wg = 128;
    const int minNb = stripHalo(r, cn) / 16 + 1;  // at least one row product per band
    if (g.nb < 0) g.nb = stripHalo(r, cn) == 8 ? 2 : 4;
    if (g.th % 16 != 0 || g.wg % 32 != 0 || g.nb < minNb || g.nb > 16)
      throw UserError(
          "VIDFILTER_BLUR_GPU: invalid schedule for mma=2 (th a multiple of 16, wg a multiple "
          "of 32, nb from " +
          std::to_string(minNb) + " to 16 at this radius and channel count)");
    g.ow = 16 * (2 * g.nb - stripHalo(r, cn) / 8);
    g.aligned = littleEndian && rowElems % 4 == 0;  // blur_strip.cl loads 4-byte words
    return g;
  }
  if (slab) {  // blur_slab.cl: each warp nb sets of 16 outputs x th rows
    if (g.wg == 0) g.wg = kSlabWg;
    if (g.th % 16 != 0 || g.wg % 32 != 0 || g.nb == 0 || g.nb > 16)
      throw UserError(
          "VIDFILTER_BLUR_GPU: invalid schedule for mma=3 (th a multiple of 16, wg a multiple "
          "of 32, nb from 1 to 16)");
    const SlabShape shape =
        slabShape(rowElems, height, computeUnits, kSlabWarpsPerUnit, g.nb, thKey);
    g.nb = shape.nb;
    g.th = shape.th;
    g.ow = 16 * g.nb;
    // Loading the next band during this one holds its words in registers as well: with the
    // one-chunk row products (halo <= 8 elements) and more than one band per strip that pays,
    // 3840x2160 gray 17 -> 16 us on the H200 (96 -> 112 registers); with two chunks (e.g.
    // 7680x4320 BGRA, 116 -> 144 registers) it costs occupancy, 137 -> 151 us; a strip of one
    // band has no next band to load.
    if (g.pf < 0) g.pf = r * cn <= 8 && g.th > 16 ? 1 : 0;
    // Its local memory: each warp's output staging (OS words per row), and the emulation's.
    const std::size_t slabBytes = std::size_t(g.wg / 32) * 16 * (4 * g.nb + 4) * 4 +
                                  (mmaEmulated ? std::size_t(g.wg / 32) * (192 + 32) * 4 : 0);
    if (slabBytes > local)
      throw UserError("VIDFILTER_BLUR_GPU: mma=3 with nb " + std::to_string(g.nb) + " and wg " +
                      std::to_string(g.wg) + " needs " + std::to_string(slabBytes) +
                      " bytes of local memory, the limit is " + std::to_string(local) +
                      ": use a smaller nb or wg");
    g.aligned = littleEndian && rowElems % 4 == 0;  // blur_slab.cl loads 4-byte words
    return g;
  }
  if (g.mma) {
    g.wg = m.wg;
    if (!mmaShape(g.tw, g.th, g.wg))
      throw UserError(
          "VIDFILTER_BLUR_GPU: invalid schedule for mma=1 (tw and th multiples of 16, wg a "
          "multiple of 32)");
    if (g.mmaBytes(r, cn, mmaEmulated) > local)
      throw UserError("blur: the tensor-core tile needs " +
                      std::to_string(g.mmaBytes(r, cn, mmaEmulated)) +
                      " bytes of local memory, the limit is " + std::to_string(local) +
                      "; set VIDFILTER_BLUR_GPU with a smaller tw or th, or mma=0");
    g.aligned = littleEndian && rowElems % 8 == 0;  // blur_mma.cl loads 8-byte words
    return g;
  }
  // A larger radius or more channels widen the halo: halve the tile height until it fits.
  while (g.tileBytes(r, cn) > std::min<std::size_t>(48 * 1024, deviceLocal) && g.th > g.py)
    g.th = std::max(g.py, g.th / 2 / g.py * g.py);
  if (g.tileBytes(r, cn) > deviceLocal)
    throw UserError("blur: the GPU tile needs " + std::to_string(g.tileBytes(r, cn)) +
                    " bytes of local memory, the device has " + std::to_string(deviceLocal) +
                    "; set VIDFILTER_BLUR_GPU with a smaller tw or th");
  if (g.wg == 0) {
    g.autoWg = true;
    // One column-phase unit per work-item, in whole warps, at most 256 (NVIDIA's OpenCL reported
    // 256 as the most it runs for these kernels even for a 288-item group).
    const std::size_t units =
        std::size_t(g.tw + 2 * GpuSchedule::halo(r, cn)) / 4 * std::size_t(g.th / g.py);
    g.wg = static_cast<int>(
        std::min<std::size_t>((units + 31) / 32 * 32, std::min<std::size_t>(maxWg, 256)));
  }
  g.aligned = littleEndian && rowElems % 4 == 0;  // the word loads assume byte 0 is lowest
  g.rowsMma = rowsMma;
  if (rowsMma) {  // rg: groups of 16 outputs per warp (ignored where this pass does not run)
    if (g.rg < 0) g.rg = 8;
    if (g.rg < 2 || g.rg > 16 || g.rg % 2 != 0)
      throw UserError(
          "VIDFILTER_BLUR_GPU: invalid schedule for the tensor-core row pass (rg even, 2 to 16)");
  }
  return g;
}

class BlurStage : public Stage {
 public:
  BlurStage() : Stage(blurStageInfo()) {}

  void validate() const override {
    const int k = params().integer("ksize");
    if (k != 0 && k % 2 == 0)
      throw ParamError("ksize",
                       "ksize must be odd, or 0 to derive it from sigma; got " + std::to_string(k));
  }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    validate();
    if (cl_ != &ctx.cl) options_.clear();  // programs belong to a context
    cl_ = &ctx.cl;
    in_ = in;
    const Size2 wg = params().size("wg");
    const std::size_t maxWg = ctx.cl.device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    if (std::size_t(wg.w) * wg.h > maxWg)
      throw UserError("blur: wg " + params().text("wg") + " has " + std::to_string(wg.w * wg.h) +
                      " work-items; the device allows at most " + std::to_string(maxWg));
    rebuildIfChanged();

    ensureScratch();
    // The taps buffer holds the largest radius, so a live radius change never reallocates.
    // Created with its initial contents: configure() has no queue to write on.
    computeTaps();
    TapsBlock init = hostTaps_;
    taps_ = clCall("clCreateBuffer(blur taps)", [&] {
      return cl::Buffer(ctx.cl.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        sizeof(TapsBlock), &init);
    });
    tapsDirty_ = false;
    lastDone_ = cl::Event();
    return in;
  }

  // Called by the host between frames (Engine::post runs it on the submit thread). A new sigma
  // only rewrites the taps; a new derived radius rebuilds (a program-cache hit when that radius
  // was built before). The taps reach the device in enqueue(), see there.
  void update() override {
    if (!cl_) return;  // not configured yet: configure() reads the parameters
    rebuildIfChanged();
    ensureScratch();
    computeTaps();
    tapsDirty_ = true;
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    std::vector<cl::Event> deps = wait;
    if (tapsDirty_) {
      // New taps must not reach frames already in flight. The write goes on this frame's queue
      // (in order: the chain requires it) before its first pass and after the previous frame's
      // last (also by an explicit dependency when that frame's kernels had events), so earlier
      // frames read the old taps and this one the new. It is non-blocking (a blocking write would
      // stall the submit thread until every frame in flight is done), so its host memory must live
      // until the write completes: two staging arrays, each reused only after its last write ended.
      const int slot = nextStaging_;
      nextStaging_ ^= 1;
      if (stagingWrite_[slot]()) stagingWrite_[slot].wait();
      staging_[slot] = hostTaps_;
      std::vector<cl::Event> after;
      if (lastDone_()) after.push_back(lastDone_);
      cl::Event written;
      clCall("clEnqueueWriteBuffer(blur taps)", [&] {
        q.enqueueWriteBuffer(taps_, CL_FALSE, 0, sizeof(TapsBlock), &staging_[slot],
                             after.empty() ? nullptr : &after, &written);
      });
      stagingWrite_[slot] = written;
      deps.push_back(written);
      tapsDirty_ = false;
    }
    const int w = in_.width, h = in_.height, value = params().integer("value");
    const Size2 wg = wg_;  // as built (reqd_work_group_size)
    const std::size_t n = in_.rowBytes();
    if (gpu_) return enqueueGpu(q, in, out, deps, w, h, value, n);

    setArgs(rows_, in, mid_, w, h, value);
    const std::size_t rowTile = std::size_t(wg.w) * sched_.vec * sched_.rowPx;
    const cl::NDRange rowGlobal((n + rowTile - 1) / rowTile * wg.w, roundUp(h, wg.h));
    cl::Event rowsDone = launchKernel(q, rows_, rowGlobal, cl::NDRange(wg.w, wg.h), deps);

    setArgs(cols_, mid_, out, w, h, value);
    const std::size_t colTileW = std::size_t(wg.w) * sched_.vec;
    const std::size_t colTileH = std::size_t(wg.h) * sched_.colPy;
    const cl::NDRange colGlobal((n + colTileW - 1) / colTileW * wg.w,
                                (h + colTileH - 1) / colTileH * wg.h);
    cl::Event colsDone = launchKernel(q, cols_, colGlobal, cl::NDRange(wg.w, wg.h), {rowsDone});
    lastDone_ = colsDone;
    return {rowsDone, colsDone};
  }

 private:
  // Every blur kernel takes (source, destination, width, height, taps, value).
  void setArgs(cl::Kernel& k, const cl::Buffer& src, const cl::Buffer& dst, int w, int h,
               int value) {
    k.setArg(0, src);
    k.setArg(1, dst);
    k.setArg(2, w);
    k.setArg(3, h);
    k.setArg(4, taps_);
    k.setArg(5, value);
  }
  // rows_ is blur_gpu.cl's fused kernel: no scratch, no cols_.
  bool fused() const { return gpu_ && gpuSched_.passes == 1; }

  // The GPU kernels (kernels/blur_gpu.cl): fused, or columns then rows through the scratch.
  // (rows_ holds the first kernel, cols_ the second.)
  StageEvents enqueueGpu(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                         const std::vector<cl::Event>& deps, int w, int h, int value,
                         std::size_t n) {
    const GpuSchedule& g = gpuSched_;
    const std::size_t wg = g.wg;
    const cl::NDRange tiles((n + g.tw - 1) / g.tw * wg, (std::size_t(h) + g.th - 1) / g.th);
    if (fused()) {
      setArgs(rows_, in, out, w, h, value);
      if (g.mma >= 2) {  // blur_strip.cl, blur_slab.cl: a warp per strip of ow elements x th rows
        const std::size_t ow = std::size_t(g.ow), warps = wg / 32;
        const std::size_t stacks = ((std::size_t(h) + g.th - 1) / g.th + warps - 1) / warps;
        cl::Event done = launchKernel(q, rows_, cl::NDRange((n + ow - 1) / ow * 32, stacks * warps),
                                      cl::NDRange(32, warps), deps);
        lastDone_ = done;
        return {done, done};
      }
      cl::Event done = launchKernel(q, rows_, tiles, cl::NDRange(wg, 1), deps);
      lastDone_ = done;
      return {done, done};
    }
    setArgs(rows_, in, mid_, w, h, value);
    const cl::NDRange words(roundUp((n + 3) / 4, wg), (std::size_t(h) + g.py - 1) / g.py);
    cl::Event colsDone = launchKernel(q, rows_, words, cl::NDRange(wg, 1), deps);
    setArgs(cols_, mid_, out, w, h, value);
    cl::Event rowsDone;
    if (g.rowsMma) {  // blur_rows_mma.cl: a warp per 8 rows x rg * 16 outputs
      const std::size_t ow = 16 * std::size_t(g.rg), warps = kRowsMmaWarps;
      const std::size_t stacks = ((std::size_t(h) + 7) / 8 + warps - 1) / warps;
      rowsDone = launchKernel(q, cols_, cl::NDRange((n + ow - 1) / ow * 32, stacks * warps),
                              cl::NDRange(32, warps), {colsDone});
    } else {
      rowsDone = launchKernel(q, cols_, tiles, cl::NDRange(wg, 1), {colsDone});
    }
    lastDone_ = rowsDone;
    return {colsDone, rowsDone};
  }

  // Scratch for the row pass (the fused GPU kernel needs none): allocated at configure time, or
  // when a live change leaves the fused kernel, never per frame.
  void ensureScratch() {
    const std::size_t midBytes = std::max<std::size_t>(in_.bytes() * sizeof(cl_ushort), 1);
    if (fused() || midBytes <= midBytes_) return;
    mid_ = clCall("clCreateBuffer(blur scratch)",
                  [&] { return cl::Buffer(cl_->context(), CL_MEM_READ_WRITE, midBytes); });
    midBytes_ = midBytes;
  }

  int ksize() const {
    const int k = params().integer("ksize");
    return k > 0 ? k : derivedKsize(params().number("sigma"));
  }
  void computeTaps() {
    const std::vector<int> t = fixedPointTaps(ksize(), params().number("sigma"));
    hostTaps_ = TapsBlock{};
    for (std::size_t k = 0; k < t.size(); ++k) {
      hostTaps_.f[k] = static_cast<float>(t[k]);
      hostTaps_.u[k] = static_cast<cl_ushort>(t[k]);
    }
    const int r = static_cast<int>(t.size()) - 1;
    if (!mmaTakes(r, t)) return;
    if (gpu_ && gpuSched_.mma == 3)
      slabFragments(t, r, in_.channels(), hostTaps_.frag);
    else
      stripFragments(t, r, in_.channels(), hostTaps_.frag);
  }

  // Builds the program and kernels for the current parameters unless the ones in use were built
  // with the same options (a sigma that keeps the radius changes only the taps).
  void rebuildIfChanged() {
    const int r = (ksize() - 1) / 2;
    const Size2 wg = params().size("wg");
    const std::size_t local = cl_->device().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    // VIDFILTER_BLUR_SCHEDULE=cpu|gpu overrides the device type (the tests run the GPU schedule
    // on PoCL so CI covers its code path).
    const char* force = std::getenv("VIDFILTER_BLUR_SCHEDULE");
    const bool cpu = force && *force
                         ? std::string(force) == "cpu"
                         : (cl_->device().getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU);
    const std::string border = borderDefine(parseBorder(params().text("border")));
    const int cn = in_.channels();
    if (!cpu && gpuKernelsTake(r, cn)) {
      const std::size_t maxWg = cl_->device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
      // The tensor-core kernel by default on NVIDIA GPUs of compute capability 8.0+ (mma.sync
      // with 8-bit integers); elsewhere VIDFILTER_BLUR_GPU=mma=1 runs it emulated (for tests).
      const unsigned cc = nvidiaComputeCapability(cl_->device());
      const bool nvPtx = cc > 0;
      const bool little = cl_->device().getInfo<CL_DEVICE_ENDIAN_LITTLE>() != 0;
      GpuSchedule g = gpuSchedule(r, cn, in_.rowBytes(), in_.height, cl_->info().computeUnits,
                                  local, maxWg, little, cc >= 8, cc < 8,
                                  mmaTakes(r, fixedPointTaps(ksize(), params().number("sigma"))));
      cl::Kernel rows, cols;
      std::string opts;
      if (g.mma) {  // the tensor-core kernels: blur_mma.cl, blur_strip.cl, blur_slab.cl (mma=1-3)
        const bool strip = g.mma >= 2;
        const std::string name = g.mma == 3 ? "blur_slab" : strip ? "blur_strip" : "blur_mma";
        opts = "-DRADIUS=" + std::to_string(r) + " -DCHANNELS=" + std::to_string(cn) +
               " -DWARPS=" + std::to_string(g.wg / 32) + " -DALIGNED=" + (g.aligned ? "1" : "0") +
               " -DALIGNED16=" + (g.aligned && in_.rowBytes() % 16 == 0 ? "1" : "0") +
               " -DMMA_PTX=" + (cc >= 8 ? "1" : "0") + " -D" + border +
               (g.mma == 3 ? " -DPF=" + std::to_string(g.pf) : std::string()) +
               (strip ? std::string(g.mma == 3 ? " -DNS=" : " -DNB=") + std::to_string(g.nb) +
                            " -DBANDS=" + std::to_string(g.th / 16) +
                            " -DFRAG_OFF=" + std::to_string(kFragOffsetWords)
                      : " -DTW=" + std::to_string(g.tw) + " -DTH=" + std::to_string(g.th) +
                            " -DTAPS_U=" + std::to_string(kMaxRadius + 1));
        if (opts == options_) return;
        cl::Program program = cl_->programs().build(name + ".cl", opts);
        rows = clCall("clCreateKernel(" + name + ")",
                      [&] { return cl::Kernel(program, name.c_str()); });
        const std::size_t most = rows.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device());
        if (most < std::size_t(g.wg))
          throw UserError(
              "blur: the " +
              std::string(g.mma == 3 ? "rows-first"
                          : strip    ? "strip"
                                     : "tensor-core tile") +
              " kernel's " + std::to_string(g.wg) +
              " work-items exceed what this device runs for it (" + std::to_string(most) +
              "); set VIDFILTER_BLUR_GPU=mma=" + std::to_string(g.mma) +
              ",wg=" + std::to_string(most / 32 * 32) + (strip ? " or mma=1" : " or mma=0"));
      } else {
        // passes=2 with the tensor-core row pass: its own program (appended to the options, so a
        // change of either rebuilds).
        const std::string rowsOpts =
            !g.rowsMma ? ""
                       : " -DRADIUS=" + std::to_string(r) + " -DCHANNELS=" + std::to_string(cn) +
                             " -DWARPS=" + std::to_string(kRowsMmaWarps) +
                             " -DRG=" + std::to_string(g.rg) +
                             " -DALIGNED=" + (little && in_.rowBytes() % 8 == 0 ? "1" : "0") +
                             " -DMMA_PTX=" + (cc >= 8 ? "1" : "0") +
                             " -DFRAG_OFF=" + std::to_string(kFragOffsetWords) + " -D" + border;
        // A device may run fewer work-items for these kernels than it reports in general (NVIDIA:
        // 256): an automatic work-group size shrinks to what the built kernel takes, once.
        for (int attempt = 0;; ++attempt) {
          opts = "-DRADIUS=" + std::to_string(r) + " -DCHANNELS=" + std::to_string(cn) +
                 " -DWG=" + std::to_string(g.wg) + " -DTW=" + std::to_string(g.tw) +
                 " -DTH=" + std::to_string(g.th) + " -DPY=" + std::to_string(g.py) +
                 " -DVX=" + std::to_string(g.vx) + " -DALIGNED=" + (g.aligned ? "1" : "0") +
                 " -DALIGNED16=" + (g.aligned && in_.rowBytes() % 16 == 0 ? "1" : "0") +
                 " -DINNER=" + std::to_string(g.inner) + " -DNV_PTX=" + (nvPtx ? "1" : "0") +
                 " -DTAPS_U=" + std::to_string(kMaxRadius + 1) + " -D" + border;
          if (opts + rowsOpts == options_) return;
          cl::Program program = cl_->programs().build("blur_gpu.cl", opts);
          const char* first = g.passes == 1 ? "blur_fused" : "blur_cols";
          rows = clCall(std::string("clCreateKernel(") + first + ")",
                        [&] { return cl::Kernel(program, first); });
          cols = cl::Kernel();
          if (g.passes == 2)
            cols = clCall("clCreateKernel(blur_rows)",
                          [&] { return cl::Kernel(program, "blur_rows"); });
          std::size_t most = std::size_t(g.wg);
          for (const cl::Kernel* k : {&rows, &cols})
            if ((*k)())
              most = std::min(most, k->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device()));
          if (most >= std::size_t(g.wg)) break;
          if (!g.autoWg || attempt > 0)
            throw UserError("blur: the GPU schedule's " + std::to_string(g.wg) +
                            " work-items exceed what this device runs for the blur kernels (" +
                            std::to_string(most) +
                            "); set VIDFILTER_BLUR_GPU=wg=" + std::to_string(most));
          g.wg = static_cast<int>(most >= 32 ? most / 32 * 32 : most);
        }
        if (g.rowsMma) {
          cl::Program program = cl_->programs().build("blur_rows_mma.cl", rowsOpts);
          cols = clCall("clCreateKernel(blur_rows_mma)",
                        [&] { return cl::Kernel(program, "blur_rows_mma"); });
          const std::size_t most = cols.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device());
          if (most < std::size_t(kRowsMmaWarps * 32))
            throw UserError("blur: the tensor-core row pass needs " +
                            std::to_string(kRowsMmaWarps * 32) +
                            " work-items per group, this device runs " + std::to_string(most) +
                            " for it; set VIDFILTER_BLUR_GPU=passes=2,mma=0");
          opts += rowsOpts;
        }
      }
      rows_ = rows;
      cols_ = cols;
      gpu_ = true;
      gpuSched_ = g;
      options_ = opts;
      return;
    }
    const Schedule s = chooseSchedule(r, in_.channels(), wg, cpu, local);
    const std::string opts =
        "-DRADIUS=" + std::to_string(r) + " -DCHANNELS=" + std::to_string(in_.channels()) +
        " -DWGX=" + std::to_string(wg.w) + " -DWGY=" + std::to_string(wg.h) +
        " -DVEC=" + std::to_string(s.vec) + " -DROW_PX=" + std::to_string(s.rowPx) +
        " -DCOL_PY=" + std::to_string(s.colPy) +
        " -DROW_T=" + (s.rowFloat && !s.rowInt ? "float" : "uchar") +
        " -DROW_INT=" + (s.rowInt ? "1" : "0") + " -DTAPS_U=" + std::to_string(kMaxRadius + 1) +
        " -DCOL_T=" + (s.colFloat ? "float" : "ushort") + " -D" + border +
        (cl_->info().platform.find("Portable Computing Language") != std::string::npos
             ? " -DVF_UNALIGNED_TYPES"
             : "");
    if (opts == options_) return;
    cl::Program program = cl_->programs().build("blur.cl", opts);
    cl::Kernel rows =
        clCall("clCreateKernel(blur_rows)", [&] { return cl::Kernel(program, "blur_rows"); });
    cl::Kernel cols =
        clCall("clCreateKernel(blur_cols)", [&] { return cl::Kernel(program, "blur_cols"); });
    for (const cl::Kernel* k : {&rows, &cols}) {
      const std::size_t most = k->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_->device());
      if (std::size_t(wg.w) * wg.h > most)
        throw UserError("blur: wg " + params().text("wg") + " is too large for this device's " +
                        "blur kernels (at most " + std::to_string(most) + " work-items)");
    }
    rows_ = rows;
    cols_ = cols;
    sched_ = s;
    wg_ = wg;
    gpu_ = false;
    options_ = opts;
  }

  ClContext* cl_ = nullptr;
  FrameDesc in_;
  std::string options_;  // build options of rows_ and cols_
  Schedule sched_;
  Size2 wg_;
  bool gpu_ = false;  // rows_/cols_ are blur_gpu.cl's kernels
  GpuSchedule gpuSched_;
  cl::Kernel rows_, cols_;
  cl::Buffer mid_, taps_;
  std::size_t midBytes_ = 0;
  TapsBlock hostTaps_;
  bool tapsDirty_ = false;
  std::array<TapsBlock, 2> staging_;
  std::array<cl::Event, 2> stagingWrite_;
  int nextStaging_ = 0;
  cl::Event lastDone_;
};

}  // namespace

// On the H200 (132 compute units, 24 warps each: 3,168), 3840x2160 gray took 21 us at th 64
// (2,040 warps) and 17 at th 32 (4,080); 7680x4320 BGRA 135 us at th 64 against 157 at th 32;
// 1920x1080 BGR 28 us at th 64 (1,530 warps) and 19 at th 16.
SlabShape slabShape(std::size_t rowElems, int height, unsigned computeUnits, int warpsPerUnit,
                    int nb, int th) {
  SlabShape s;
  const auto warps = [&](int b, int t) {
    return ((rowElems + 16 * std::size_t(b) - 1) / (16 * std::size_t(b))) *
           ((std::size_t(std::max(height, 1)) + std::size_t(t) - 1) / std::size_t(t));
  };
  const std::size_t enough =
      std::size_t(std::max(computeUnits, 1u)) * std::size_t(std::max(warpsPerUnit, 1));
  s.nb = nb >= 1 ? nb : 4;
  if (th >= 1)
    s.th = th;
  else
    for (s.th = 64; s.th > 16 && warps(s.nb, s.th) < enough;) s.th /= 2;
  if (nb < 1)
    while (s.nb > 1 && warps(s.nb, s.th) < enough) s.nb /= 2;
  return s;
}

const StageInfo& blurStageInfo() {
  static const StageInfo info{
      "blur",
      "separable Gaussian blur, as cv::GaussianBlur (bit-exact with OpenCV's 8-bit path)",
      "gray, bgr, bgra -> same",
      {
          {"sigma",
           ParamType::Float,
           "1.5",
           0,
           50,
           true,
           false,
           {},
           "standard deviation of the Gaussian, in pixels (both directions)",
           true},
          {"ksize",
           ParamType::Int,
           "0",
           0,
           kMaxKsize,
           false,
           false,
           {},
           "kernel size, odd; 0 derives it from sigma as OpenCV does: round(6*sigma + 1) | 1",
           false},
          {"border", ParamType::Enum, "reflect101", 0, 0, false, false, borderNames(),
           "how pixels outside the frame are read (see pipeline/border.hpp)", false},
          {"value",
           ParamType::Int,
           "0",
           0,
           255,
           false,
           false,
           {},
           "the outside pixel value for border=constant",
           true},
          {"wg",
           ParamType::Size,
           "16x4",
           1,
           1024,
           false,
           false,
           {},
           "work-group shape (schedule only: the result does not depend on it)",
           false},
      },
      [] { return std::make_unique<BlurStage>(); }};
  return info;
}

}  // namespace vf
