#include "pipeline/stages/blur_schedule.hpp"

#include <algorithm>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stage.hpp"
#include "pipeline/stages/blur_fragments.hpp"
#include "pipeline/stages/blur_taps.hpp"

namespace vf {
namespace {

std::string sizeText(Size2 s) { return std::to_string(s.w) + "x" + std::to_string(s.h); }

// --- cpu: kernels/blur.cl ------------------------------------------------------------------

// How blur.cl tiles the frame (its header names each option).
struct CpuTiles {
  int vec = 16;          // elements per vector along a row (both passes)
  int rowPx = 1;         // vectors per work-item, row pass
  bool rowInt = false;   // row pass in 16-bit integers on a uchar tile, else float
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

// The widest vectors, float tiles, then the most vectors and rows per work-item that keep the
// tiles within the budget. On a CPU (PoCL): explicit 16-wide vectors are what makes the
// work-item loop SIMD at all; several vectors and rows per work-item amortise PoCL's
// per-work-item bookkeeping; tiles that stay near the L1 cache beat larger ones; and a row pass
// in 16-bit integers on a uchar tile holds twice the lanes of float per register. On a GPU a
// 4-wide vector keeps local-memory accesses free of bank conflicts and the tiles small enough
// for several work-groups per compute unit. UserError when even the smallest tiles exceed the
// device's local memory.
CpuTiles cpuTiles(int r, int cn, Size2 wg, bool cpu, std::size_t deviceLocal) {
  const int maxVec = cpu ? 16 : 4, maxPx = cpu ? 4 : 1, maxPy = 4;
  const std::size_t budget = std::min<std::size_t>(cpu ? 64 * 1024 : 32 * 1024, deviceLocal);
  for (int vec = maxVec; vec >= 1; vec /= 2)
    for (bool f : {true, false})
      for (int px = maxPx; px >= 1; px /= 2)
        for (int py = maxPy; py >= 1; py /= 2) {
          CpuTiles s;
          s.vec = vec;
          s.rowPx = px;
          s.colPy = py;
          s.rowFloat = s.colFloat = f;
          s.rowInt = cpu;
          if (s.bytes(r, cn, wg) <= budget) return s;
        }
  CpuTiles smallest;
  smallest.vec = smallest.rowPx = smallest.colPy = 1;
  smallest.rowFloat = smallest.colFloat = false;
  smallest.rowInt = cpu;
  if (smallest.bytes(r, cn, wg) <= deviceLocal) return smallest;
  throw UserError("blur: ksize " + std::to_string(2 * r + 1) + " with wg " + sizeText(wg) +
                  " needs " + std::to_string(smallest.bytes(r, cn, wg)) +
                  " bytes of local memory; the device has " + std::to_string(deviceLocal) +
                  ": use a smaller wg or ksize");
}

BlurPlan planCpu(const BlurRequest& q, const DeviceFacts& facts, int r) {
  const Size2 wg = q.wg;
  const std::size_t items = std::size_t(wg.w) * std::size_t(wg.h);
  if (items > facts.maxWorkGroupSize)
    throw UserError("blur: wg " + sizeText(wg) + " has " + std::to_string(items) +
                    " work-items; the device allows at most " +
                    std::to_string(facts.maxWorkGroupSize));
  const int cn = q.frame.channels();
  const CpuTiles s = cpuTiles(r, cn, wg, facts.cpu, facts.localMemBytes);
  BlurPlan p;
  p.kernel = BlurKernel::Cpu;
  p.file = "blur.cl";
  p.options = BuildOptions()
                  .define("RADIUS", r)
                  .define("CHANNELS", cn)
                  .define("WGX", wg.w)
                  .define("WGY", wg.h)
                  .define("VEC", s.vec)
                  .define("ROW_PX", s.rowPx)
                  .define("COL_PY", s.colPy)
                  .define("ROW_T", s.rowFloat && !s.rowInt ? "float" : "uchar")
                  .define("ROW_INT", s.rowInt)
                  .define("TAPS_U", kTapsUshortOffset)
                  .define("COL_T", s.colFloat ? "float" : "ushort")
                  .define(q.border)
                  .defineIf(facts.pocl, "VF_UNALIGNED_TYPES")
                  .str();
  const std::size_t n = q.frame.rowBytes(), h = std::size_t(q.frame.height);
  const std::size_t rowTile = std::size_t(wg.w) * s.vec * s.rowPx;
  const std::size_t colTileW = std::size_t(wg.w) * s.vec, colTileH = std::size_t(wg.h) * s.colPy;
  const cl::NDRange local(wg.w, wg.h);
  p.launches = {
      {"blur_rows", cl::NDRange((n + rowTile - 1) / rowTile * wg.w, roundUp(h, wg.h)), local},
      {"blur_cols",
       cl::NDRange((n + colTileW - 1) / colTileW * wg.w, (h + colTileH - 1) / colTileH * wg.h),
       local}};
  p.groupItems = items;
  p.hint = "use a smaller wg";
  p.text = "kernel=cpu wg=" + sizeText(wg) + " vec=" + std::to_string(s.vec) +
           " row_px=" + std::to_string(s.rowPx) + " col_py=" + std::to_string(s.colPy) +
           " row_int=" + std::to_string(s.rowInt);
  return p;
}

// --- ring: kernels/blur_ring.cl ---------------------------------------------------------------

// The ring of 2R+1 rows stays in registers up to this radius. Past it the cpu kernel's two passes
// are faster: PoCL, 2-core AMD EPYC (AVX-512), 1920x1080, three runs against the cpu kernel in
// the same run, us: ksize 11 gray 478-966 / 849-1,707, BGR 1,594-3,399 / 3,480-6,290; ksize 17
// gray 754-1,525 / 1,335-2,625, BGR 2,714-5,401 / 4,233-4,805; ksize 25 BGR 6,665-8,686 /
// 4,826-5,131; ksize 33 gray 2,867-3,660 / 1,564-2,286.
constexpr int kRingMaxRadius = 8;
// 16 elements a vector (one AVX-512 register of float column sums), 8 work-items a group, 32
// output rows a work-item (bands of 16-64 rows and groups of 1-32 work-items measured within the
// noise of the machine above).
constexpr int kRingVec = 16, kRingWg = 8, kRingBand = 32;

bool ringTakes(int r) { return r <= kRingMaxRadius; }

BlurPlan planRing(const BlurRequest& q, const DeviceFacts& facts, int r) {
  const std::size_t n = q.frame.rowBytes(), h = std::size_t(q.frame.height);
  BlurPlan p;
  p.kernel = BlurKernel::Ring;
  p.file = "blur_ring.cl";
  p.options = BuildOptions()
                  .define("RADIUS", r)
                  .define("CHANNELS", q.frame.channels())
                  .define("VEC", kRingVec)
                  .define("WGX", kRingWg)
                  .define("BAND", kRingBand)
                  .define("TAPS_U", kTapsUshortOffset)
                  .define(q.border)
                  .defineIf(facts.pocl, "VF_UNALIGNED_TYPES")
                  .str();
  const std::size_t strips = (n + kRingVec - 1) / kRingVec;
  p.launches = {{"blur_ring",
                 cl::NDRange(roundUp(strips, kRingWg), (h + kRingBand - 1) / kRingBand),
                 cl::NDRange(kRingWg, 1)}};
  p.groupItems = kRingWg;
  p.hint = "use kernel=cpu";
  p.text = "kernel=ring wg=" + std::to_string(kRingWg) + " vec=" + std::to_string(kRingVec) +
           " band=" + std::to_string(kRingBand);
  return p;
}

// --- tiled: kernels/blur_tiled.cl ------------------------------------------------------------

// A tile of 128 outputs x 32 rows, 8 rows per work-item in the column phase, 16 outputs per
// work-item in the row phase (blur_tiled.cl's header says why); the work-group as many whole
// warps as the column phase has work-items' worth of words, at most 256.
constexpr int kTiledTw = 128, kTiledTh = 32, kTiledPy = 8, kTiledVx = 16, kTiledMaxWg = 256;

int tiledHalo(int r, int cn) { return (r * cn + 3) / 4 * 4; }

// The row phase's window (16 outputs and both halos) must fit the kernel's registers: at most
// 96 elements, so a row halo of 40.
bool tiledTakes(int r, int cn) { return r <= 16 && 16 + 2 * tiledHalo(r, cn) <= 96; }

// blur_tiled.cl's tile: th rows of the tile width in float4s, plus a padding float4 per
// vx/4 of them.
std::size_t tiledTileBytes(int th, int halo) {
  const std::size_t w4 = std::size_t(kTiledTw + 2 * halo) / 4;
  return std::size_t(th) * (w4 + w4 / std::size_t(kTiledVx / 4) + 1) * 16;
}

BlurPlan planTiled(const BlurRequest& q, const DeviceFacts& facts, int r, std::size_t limit) {
  const int cn = q.frame.channels(), halo = tiledHalo(r, cn);
  int th = kTiledTh;
  // A wider halo widens the tile: halve its height until it fits.
  while (tiledTileBytes(th, halo) > std::min<std::size_t>(48 * 1024, facts.localMemBytes) &&
         th > kTiledPy)
    th = std::max(kTiledPy, th / 2 / kTiledPy * kTiledPy);
  if (tiledTileBytes(th, halo) > facts.localMemBytes)
    throw UserError("blur: the tiled kernel needs " + std::to_string(tiledTileBytes(th, halo)) +
                    " bytes of local memory, the device has " +
                    std::to_string(facts.localMemBytes) + ": use kernel=cpu");
  std::size_t cap = std::min<std::size_t>(facts.maxWorkGroupSize, kTiledMaxWg);
  if (limit > 0) cap = std::min(cap, limit >= 32 ? limit / 32 * 32 : limit);
  const std::size_t units = std::size_t(kTiledTw + 2 * halo) / 4 * std::size_t(th / kTiledPy);
  const std::size_t wg = std::min(roundUp(units, 32), cap);
  const std::size_t pitch = q.rowPitch();
  const bool aligned = facts.littleEndian && pitch % 4 == 0;  // the word loads: byte 0 lowest
  BlurPlan p;
  p.kernel = BlurKernel::Tiled;
  p.file = "blur_tiled.cl";
  p.options = BuildOptions()
                  .define("RADIUS", r)
                  .define("CHANNELS", cn)
                  .define("WG", wg)
                  .define("TW", kTiledTw)
                  .define("TH", th)
                  .define("CPY", kTiledPy)
                  .define("VX", kTiledVx)
                  .define("ALIGNED", aligned)
                  .define("ALIGNED16", aligned && pitch % 16 == 0)
                  .define("NV_PTX", facts.nvidiaCc > 0)
                  .define("TAPS_U", kTapsUshortOffset)
                  .define(q.border)
                  .str();
  const std::size_t tiles = (q.frame.rowBytes() + kTiledTw - 1) / kTiledTw;
  p.launches = {{"blur_fused",
                 cl::NDRange(tiles * wg, (std::size_t(q.frame.height) + th - 1) / std::size_t(th)),
                 cl::NDRange(wg, 1)}};
  p.groupItems = wg;
  p.groupShrinks = true;
  p.text = "kernel=tiled wg=" + std::to_string(wg) + " tile=" + std::to_string(kTiledTw) + "x" +
           std::to_string(th);
  return p;
}

std::string reachError(const char* kernel, const std::string& reach, int r, int cn) {
  return std::string("blur: kernel=") + kernel + " takes " + reach + "; ksize " +
         std::to_string(2 * r + 1) + " on " + std::to_string(cn) +
         " channel(s) is past that: use kernel=auto";
}

}  // namespace

const char* blurKernelName(BlurKernel k) {
  switch (k) {
    case BlurKernel::Cpu:
      return "cpu";
    case BlurKernel::Ring:
      return "ring";
    case BlurKernel::Tiled:
      return "tiled";
    case BlurKernel::Slab:
      return "slab";
  }
  return "?";
}

BlurKernel chooseBlurKernel(const BlurRequest& q, const DeviceFacts& facts) {
  const int r = static_cast<int>(q.taps.size()) - 1, cn = q.frame.channels();
  const bool tiled = tiledTakes(r, cn), slab = facts.littleEndian && slabTakes(q.taps, cn);
  if (q.kernel == "cpu") return BlurKernel::Cpu;
  if (q.kernel == "ring") {
    if (!ringTakes(r)) throw UserError(reachError("ring", "radius <= 8", r, cn));
    return BlurKernel::Ring;
  }
  if (q.kernel == "tiled") {
    if (!tiled)
      throw UserError(reachError("tiled", "radius <= 16 and radius x channels <= 40", r, cn));
    return BlurKernel::Tiled;
  }
  if (q.kernel == "slab") {
    if (!slab && facts.littleEndian && q.taps[0] >= 256)
      throw UserError("blur: kernel=slab takes taps below 256; ksize " + std::to_string(2 * r + 1) +
                      " of this sigma puts all the weight (256) in the centre tap: use "
                      "kernel=auto");
    if (!slab) throw UserError(reachError("slab", kSlabReach, r, cn));
    return BlurKernel::Slab;
  }
  if (facts.nvidiaCc >= 8 && slab && !facts.cpu) return BlurKernel::Slab;  // mma.sync, 8 bits
  if (facts.cpu && ringTakes(r)) return BlurKernel::Ring;
  if (facts.cpu || !tiled) return BlurKernel::Cpu;
  return BlurKernel::Tiled;
}

BlurPlan planBlur(const BlurRequest& q, const DeviceFacts& facts, std::size_t groupLimit) {
  const int r = static_cast<int>(q.taps.size()) - 1;
  switch (chooseBlurKernel(q, facts)) {
    case BlurKernel::Slab:
      return planSlab(q, facts, r, groupLimit);
    case BlurKernel::Ring:
      return planRing(q, facts, r);
    case BlurKernel::Tiled:
      return planTiled(q, facts, r, groupLimit);
    case BlurKernel::Cpu:
      break;
  }
  return planCpu(q, facts, r);
}

}  // namespace vf
