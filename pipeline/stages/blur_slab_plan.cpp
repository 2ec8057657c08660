// The slab kernel's plan (kernels/blur_slab.cl): its strip, warps, shared and early loads, row
// operands' place and local memory, from the device's facts, the frame and the parameters.
#include <algorithm>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/blur_fragments.hpp"
#include "pipeline/stages/blur_schedule.hpp"
#include "pipeline/stages/blur_shape.hpp"
#include "pipeline/stages/blur_taps.hpp"

namespace vf {
namespace {

// Four warps per work-group, and strips sized so every compute unit gets 24 warps
// (slabShape); two where the strips are 64 rows tall at radius <= 8 (from about 3840x2160 in
// colour up). H100, 2026-12-06, median of 20, us, 2 / 4 warps: 11x11 BGR 3840x2160 32.3 / 36.4
// (the next band ahead), 7680x4320 101.9 / 105.0; BGRA 3840x2160 45.0 / 48.2; 9x9 BGRA 3840x2160
// 40.4 / 44.2 (ahead), 7680x4320 132.8 / 135.9; shorter strips: 11x11 BGR 1920x1080 (4x16) 15.6 /
// 14.9 (docs/PERFORMANCE.md).
constexpr int kSlabWarps = 4, kSlabTallWarps = 2, kSlabWarpsPerUnit = 24;
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

}  // namespace

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
  // window, NS + slabWindowWords - 1 words, over NS) in a strip of at most kSlabSharedSets sets,
  // the shared strips' width (gray: one set).
  const int sets = std::min(shape.nb, kSlabSharedSets);
  const int words = sets + slabWindowWords(r, cn) - 1;
  const bool share = q.share == "on" || (q.share == "auto" && 2 * words >= 9 * sets);
  if (share && q.strip.w <= 0) shape = shapeOf(cn == 1 ? 1 : sets);
  const bool tall = pairs == 2 && shape.th >= 64;
  int warps = q.warps > 0 ? q.warps : share ? kSlabSharedWarps : tall ? kSlabTallWarps : kSlabWarps;
  if (q.warps <= 0 && limit > 0) warps = std::max(1, std::min(warps, int(limit / 32)));
  const std::size_t wg = std::size_t(warps) * 32;
  if (wg > facts.maxWorkGroupSize)
    throw UserError("blur: warps=" + std::to_string(warps) + " is " + std::to_string(wg) +
                    " work-items; the device allows at most " +
                    std::to_string(facts.maxWorkGroupSize));
  // Loading the next band during this one holds its words in registers as well: that pays where
  // a set's window is at most 3 words (halo <= 16 elements) in a strip with a next band; with 4
  // or more the registers it takes cost more occupancy than the early loads gain. H100,
  // 2026-12-06, median of 30, us, 11x11 BGR with / without: 3840x2160 36.2 / 38.7, 7680x4320
  // 105.2 / 114.5; 9x9 BGRA 3840x2160 44.2 / 47.6; 11x11 BGRA (4 words) 7680x4320 156.7 / 150.0.
  // Shared loads take a few vectors a work-item for it, and pay everywhere measured (the figures
  // above planSlab).
  const bool pf =
      q.prefetch == "on" ||
      (q.prefetch == "auto" && (share ? q.rowPitch() % 16 == 0 : r * cn <= 16 && shape.th > 16));
  const bool emulated = facts.nvidiaCc < 8;
  const bool aligned = q.rowPitch() % 4 == 0;  // rows start at whole words
  const int registerOperands = aligned ? kSlabRegisterOperands : kSlabRegisterOperandsUnaligned;
  const bool fragLocal =
      q.operands == "local" || (q.operands == "auto" && slabOperands(r, cn) > registerOperands);
  // Local memory: each warp's output staging (16 rows of 4 NS + 4 words), with SHARE two
  // buffers of 16 staged rows (SS words each, blur_slab.cl), the row operands with FRAG_LOCAL,
  // and the emulation's products.
  const int ha = slabHalo(r, cn), stagedWords = 4 * warps * shape.nb + ha / 2;
  const std::size_t stagedRow = 4 * std::size_t(((ha % 16 + 4 * stagedWords + 15) / 16) | 1);
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

}  // namespace vf
