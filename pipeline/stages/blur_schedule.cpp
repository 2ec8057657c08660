#include "pipeline/stages/blur_schedule.hpp"

#include <algorithm>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stage.hpp"
#include "pipeline/stages/blur_fragments.hpp"
#include "pipeline/stages/blur_shape.hpp"
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

// --- slab: kernels/blur_slab.cl --------------------------------------------------------------

// Four warps per work-group, and strips sized so every compute unit gets 24 warps
// (slabShape).
constexpr int kSlabWarps = 4, kSlabWarpsPerUnit = 24;
// Row operands held in registers up to this many operands in all (rows that start at whole
// words; other rows, whose loads take more registers, up to the second figure); past it they are
// read from local memory at each use, leaving the registers to the column window (FRAG_LOCAL).
// H200, 2026-12-03, median of 30, us, registers / local memory: sigma 20 (17 operands on BGR, 10
// on gray) 3840x2160 BGR 592 / 612, 1920x1080 BGR 379 / 394, 1280x720 BGR 348 / 361, 3840x2160
// gray 126 / 131, 1920x1080 gray 96 / 103; sigma 10 (10 on BGR) 3840x2160 BGR 230 / 241; rows
// not of whole words: 4001x2003 gray sigma 20 198 / 180, BGR 1079 / 1062 (docs/PERFORMANCE.md).
constexpr int kSlabRegisterOperands = 17, kSlabRegisterOperandsUnaligned = 8;
// Point-wise functions read in the loads (a prologue: "gray,blur" as one pass) pay where the
// launch they save is a large share of the time: a gray blur (its source words computed four
// pixels at a time), radius <= 8, sources that prologueSourceFits (point_source.cpp). H200,
// gray,blur on BGR read through
// against two passes in the same run (prologue=on, off), us: 11x11 1280x720 14.5 / 25.3,
// 1366x768 18.6 / 31.3, 1920x1080 16.9 / 25.7, 2560x1440 22.9 / 28.4 (BGRA 28.1 / 27.6),
// 3840x2160 33.9 / 30.5, 4001x2003 52.6 / 45.9; sigma 6 1920x1080 39.3 / 32.8. Each lane
// converts every word it loads: the frame 1.25 times over with the halo, twice in rows that do
// not start at a whole word. A colour blur's words straddle pixels: brightness,blur,sobel on
// 1920x1080 BGR took 82 us read through, 43 as passes.
constexpr int kPrologueRadius = 8;
// The warps of a work-group, side by side, share each row's loads (SHARE) where a warp of its
// own would load at least 4.5 words of a row per word of output in a strip of up to 2 sets
// (sigma 20 on every format, sigma 10 and sigma 6 in colour: 4.5-11), eight warps a group,
// strips of 2 sets, on gray of one. H200, 2026-12-03, median of 30, us, shared (with the fetch
// ahead, below) / not shared: sigma 6 3840x2160 BGR 69 / 84, 1920x1080 BGR 41 / 44, 1280x720
// BGR 27 / 41, 4001x2003 BGR 135 / 162, 3840x2160 BGRA 86 / 97; sigma 20 3840x2160 BGR 205 /
// 589, gray (one set) 74 / 124. Below it sharing loses: 11x11 BGR 3840x2160 59 / 40, ksize 25
// (3.5) 71 / 71 with 2 sets, 96 with 4; sigma 10 gray (3.5) 3840x2160 72 / 58, 4001x2003 112 /
// 93 (docs/PERFORMANCE.md).
constexpr int kSlabSharedWarps = 8, kSlabSharedSets = 2;
// Shared loads fetch the next band's vectors during this band (prefetch) on rows of whole 16-byte
// vectors. H200, 2026-12-03 12:14 UTC, median of 30, us, with / without: sigma 20 3840x2160 BGR
// 206 / 258, 1920x1080 BGR 172 / 191, 7680x4320 BGR 511 / 715, 3840x2160 gray 74 / 78, 7680x4320
// gray 141 / 184; sigma 10 3840x2160 BGR 129 / 177, 7680x4320 BGR 331 / 559.

BlurPlan planSlab(const BlurRequest& q, const DeviceFacts& facts, int r, std::size_t limit) {
  const int cn = q.frame.channels(), kc = slabChunks(r, cn);
  const std::size_t n = q.frame.rowBytes();
  const int pairs = 2 * slabColumnChunks(r);  // the column window's pairs of slabs
  const auto shapeOf = [&](int nb) {
    return slabShape(n, q.frame.height, facts.computeUnits, kSlabWarpsPerUnit, pairs, nb,
                     q.strip.h > 0 ? q.strip.h : -1);
  };
  SlabShape shape = shapeOf(q.strip.w > 0 ? q.strip.w : -1);
  // Shared where a warp would load at least 4.5 words of a row per word of its output (the
  // window, NS + 2 KC - 1 words, over NS) in a strip of at most kSlabSharedSets sets, the
  // shared strips' width (gray: one set).
  const int sets = std::min(shape.nb, kSlabSharedSets);
  const bool share = q.share == "on" || (q.share == "auto" && 2 * (sets + 2 * kc - 1) >= 9 * sets);
  if (share && q.strip.w <= 0) shape = shapeOf(cn == 1 ? 1 : sets);
  int warps = q.warps > 0 ? q.warps : share ? kSlabSharedWarps : kSlabWarps;
  if (q.warps <= 0 && limit > 0) warps = std::max(1, std::min(warps, int(limit / 32)));
  const std::size_t wg = std::size_t(warps) * 32;
  if (wg > facts.maxWorkGroupSize)
    throw UserError("blur: warps=" + std::to_string(warps) + " is " + std::to_string(wg) +
                    " work-items; the device allows at most " +
                    std::to_string(facts.maxWorkGroupSize));
  // Loading the next band during this one holds its words in registers as well: that pays with
  // the one-chunk row products (halo <= 8 elements) of a strip with a next band; with two chunks
  // the registers it takes cost more occupancy than the early loads gain. Shared loads take a
  // few vectors a work-item for it, and pay everywhere measured (the figures above planSlab).
  const bool pf =
      q.prefetch == "on" ||
      (q.prefetch == "auto" && (share ? q.rowPitch() % 16 == 0 : r * cn <= 8 && shape.th > 16));
  const bool emulated = facts.nvidiaCc < 8;
  const bool aligned = q.rowPitch() % 4 == 0;  // rows start at whole words
  const int registerOperands = aligned ? kSlabRegisterOperands : kSlabRegisterOperandsUnaligned;
  const bool fragLocal =
      q.operands == "local" || (q.operands == "auto" && slabOperands(r, cn) > registerOperands);
  // Local memory: each warp's output staging (16 rows of 4 NS + 4 words), with SHARE two
  // buffers of 16 staged rows (SS words each, blur_slab.cl), the row operands with FRAG_LOCAL,
  // and the emulation's products.
  const int stagedWords = 4 * warps * shape.nb + (16 * kc - 8) / 2;
  const std::size_t stagedRow = 4 * std::size_t(((8 + 4 * stagedWords + 15) / 16) | 1);
  const std::size_t bytes = std::size_t(warps) * 16 * (4 * shape.nb + 4) * 4 +
                            (share ? 2 * 16 * stagedRow * 4 : 0) +
                            (fragLocal ? std::size_t(kc) * 32 * 16 : 0) +
                            (emulated ? std::size_t(warps) * (192 + 32) * 4 : 0);
  const std::size_t local = std::min<std::size_t>(48 * 1024, facts.localMemBytes);
  if (bytes > local)
    throw UserError("blur: kernel=slab with strip " + std::to_string(shape.nb) + "x" +
                    std::to_string(shape.th) + " and " + std::to_string(warps) + " warps needs " +
                    std::to_string(bytes) + " bytes of local memory, the limit is " +
                    std::to_string(local) + ": use a narrower strip or fewer warps");
  BlurPlan p;
  p.kernel = BlurKernel::Slab;
  p.file = "blur_slab.cl";
  p.options = BuildOptions()
                  .define("RADIUS", r)
                  .define("CHANNELS", cn)
                  .define("WARPS", warps)
                  .define("ALIGNED", aligned)
                  .define("ALIGNED16", aligned && q.rowPitch() % 16 == 0)
                  .define("MMA_PTX", !emulated)
                  .define(q.border)
                  .define("PF", pf)
                  .define("SHARE", share)
                  .define("NS", shape.nb)
                  .define("BANDS", shape.th / 16)
                  .define("FRAG_OFF", kTapsFragOffsetWords)
                  .define("FRAG_LOCAL", fragLocal)
                  .str();
  // A warp per strip of 16 NS outputs x TH rows; a work-group's warps one above the other, or
  // with SHARE side by side.
  const std::size_t ow = 16 * std::size_t(shape.nb), w = std::size_t(warps);
  const std::size_t bands = (std::size_t(q.frame.height) + shape.th - 1) / shape.th;
  const cl::NDRange global = share ? cl::NDRange((n + ow * w - 1) / (ow * w) * 32, bands * w)
                                   : cl::NDRange((n + ow - 1) / ow * 32, (bands + w - 1) / w * w);
  p.launches = {{"blur_slab", global, cl::NDRange(32, w)}};
  p.groupItems = wg;
  p.groupShrinks = q.warps <= 0;  // the kernel's registers may allow fewer warps a group
  p.prologue = cn == 1 && q.prologue != "off" && (q.prologue == "on" || r <= kPrologueRadius);
  p.anySource = q.prologue == "on";
  p.hint = "use fewer warps";
  p.text = "kernel=slab strip=" + std::to_string(shape.nb) + "x" + std::to_string(shape.th) +
           " warps=" + std::to_string(warps) + " share=" + (share ? "on" : "off") +
           " prefetch=" + (pf ? "on" : "off") + " operands=" + (fragLocal ? "local" : "registers") +
           " products=" + (emulated ? "emulated" : "mma.sync");
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
