#include "pipeline/stages/sobel_plan.hpp"

#include "pipeline/border.hpp"

namespace vf {
namespace {

struct Schedule {
  int vec, rows;
  const char* load;
  const char* kernel;
  Size2 wg = kWg;
};
// CPU (PoCL): the tile kernel, 16 bytes x 16 rows per work-item loaded by rows: tall strips
// amortise the halo rows, and loading whole rows per work-item does the border arithmetic once
// per row.
constexpr Schedule kCpuSchedule{16, 16, "rows", "tile"};
// GPU: the direct kernel, which needs about a quarter of the tile kernel's issue slots per
// byte: 16 bytes x 4 rows per work-item on the float path and on the f16x2 path (whose pairs of
// pixels per instruction halve the work per byte). H200, 3840x2160 BGR: ksize 3 38 us at 16x4
// against 44 at 8x2. The tile kernel, when named, 16 bytes x 4 rows loaded by vectors, coalesced.
constexpr Schedule kGpuSchedule{16, 4, "items", "direct"};
// ksize 3 on colour frames in groups of 32x4: H200, 2026-12-05, one call, us, 32x4 against
// 8x4: BGR 1920x1080 14.3 / 15.3, 3840x2160 33.3 / 35.2, 7680x4320 105.9 / 109.8; BGRA 16.0 /
// 16.4, 37.9 / 38.9, 119.5 / 123.7 (16x4 and 8x8 between them; docs/PERFORMANCE.md, "The
// sobel's schedule").
constexpr Schedule kGpuColour{16, 4, "items", "direct", {32, 4}};
// ksize 3 storing through an epilogue that counts: 8 bytes x 4 rows, twice the work-items of 16
// bytes for the same frame (each of the 32x8 groups counts a quarter of the bytes it did). H200,
// gray,blur,sobel,hist,brightness on BGR in one call, us: 1920x1080 28.8 against 30.7 at 16
// bytes, 3840x2160 51.8 against 55.1 (docs/PERFORMANCE.md, "Epilogues").
constexpr Schedule kGpuDirectCounting{8, 4, "items", "direct"};
// ksize 5 and 7: the work-group loads its rows into local memory once (load=local), and each
// work-item slides 2R rows of taps down 4 bytes x 8 rows (their registers), in groups of 64x4.
// Where each work-item loaded its own rows, the halo words' loads took most of the time. H200,
// one call, us, against 4 x 8 in 8x4 groups each work-item loading its own rows: ksize 7
// 3840x2160 BGR 80.3 / 245.2, BGRA 109.3 / 311.0, gray 31.5 / 46.0; ksize 5 BGR 57.9 / 88.7
// (docs/PERFORMANCE.md, "Sobel 5 and 7 from the work-group's rows").
constexpr Schedule kGpuLocal{4, 8, "local", "direct", {64, 4}};

// Point-wise functions read in the direct kernel's loads (a prologue: "gray,sobel" as one pass)
// pay for ksize 3 and 5 on sources that prologueSourceFits (point_source.cpp); past that, and
// for ksize 7, two passes are as fast or faster (each source word loaded is converted, twice in
// rows that do not start at a whole word). H200,
// gray,sobel on BGR, read through against two passes in the same run (prologue=on, off), us:
// ksize 3 1280x720 14.1 / 22.2, 1366x768 27.0 / 30.0, 1920x1080 14.9 / 22.4, 2560x1440 18.7 /
// 23.2 (BGRA 26.7 / 23.5), 3840x2160 30.2 / 29.2 (BGRA 54.7 / 30.9); ksize 5 1920x1080 22.7 /
// 30.0, 3840x2160 51.7 / 43.1; ksize 7 1920x1080 29.0 / 31.0, 1366x768 36.9 / 35.1, 2560x1440
// 45.3 / 41.1.
constexpr int kPrologueKsize = 5;

// Source rows the direct kernel loads ahead of the row whose arithmetic runs (kernels/
// sobel_gpu.cl, AHEAD): the loads' latency then passes under that arithmetic, at the cost of the
// registers holding the words. H200, ahead 1 against 0 in the same call, us: ksize 1 3840x2160
// BGR 27.0 / 33.0; ksize 3 BGRA 44.7 / 49.4, 4001x2003 BGR 36.1 / 42.2; ksize 5 3840x2160 BGRA
// 122 / 196, gray 31 / 33, BGR the same at 3840x2160 but 102 / 86 at 4001x2003; ksize 7 gray
// 51 / 38 and BGR 209 / 168 at 16 x 16 (its taps fill the registers already), BGRA at 4 x 8
// 260 / 278 against 16 x 16 without (docs/PERFORMANCE.md, "Rows loaded ahead").
int defaultAhead(int ksize, int channels) {
  if (ksize <= 3) return 1;
  return ksize == 5 ? (channels == 3 ? 0 : 1) : (channels == 4 ? 1 : 0);
}

}  // namespace

std::vector<int> smoothingHalf(int ksize) {
  switch (ksize) {
    case 1:
      return {1};
    case 3:
      return {2, 1};
    case 5:
      return {6, 4, 1};
    default:
      return {20, 15, 6, 1};
  }
}

std::string sobelModeDefine(const std::string& mode) {
  return mode == "l2" ? "MODE_L2" : mode == "x" ? "MODE_X" : mode == "y" ? "MODE_Y" : "MODE_MAG";
}

SobelPlan planSobel(const Params& p, const DeviceFacts& facts, const FrameDesc& in, Size2 wg,
                    bool counting) {
  SobelPlan s;
  const int ksize = p.integer("ksize");
  const Schedule def = facts.cpu ? kCpuSchedule : kGpuSchedule;
  const std::string kernel = p.text("kernel");
  // kernel=slab runs the kernel planned here wherever the slab kernel does not (sobel_slab.hpp).
  const bool automatic = kernel == "auto" || kernel == "slab";
  s.direct = kernel == "direct" || (automatic && std::string(def.kernel) == "direct");
  const std::string mode = p.text("mode"), half = p.text("half");
  // The f16x2 instructions are inline PTX; min.f16x2 needs compute capability 8.0 or later.
  const bool nvHalf = s.direct && facts.nvidiaCc >= 8;
  const Schedule gpuDirect = ksize > 3                         ? kGpuLocal
                             : counting                        ? kGpuDirectCounting
                             : ksize == 3 && in.channels() > 1 ? kGpuColour
                                                               : kGpuSchedule;
  const bool gpuDefault = s.direct && !facts.cpu;
  const Schedule& use = gpuDefault ? gpuDirect : def;
  s.load = p.text("load") == "auto" ? use.load : p.text("load");
  // The group's shape, unless given: the schedule's where its load is the one taken.
  s.wg = wg.w != 0 ? wg : s.load == use.load ? use.wg : kWg;
  // An automatic group larger than the device allows (colour frames' 32x4 on a small GPU): 8x4.
  if (wg.w == 0 && s.load != "local" &&
      std::size_t(s.wg.w) * std::size_t(s.wg.h) > facts.maxWorkGroupSize)
    s.wg = kWg;
  const bool h2 = s.direct && !s.local() && (half == "on" || (half == "auto" && nvHalf));
  s.half = h2 && ksize == 3 && mode != "l2";
  s.vec = p.integer("vec") ? p.integer("vec") : use.vec;
  s.rows = p.integer("rows") ? p.integer("rows") : use.rows;
  s.ahead =
      p.text("ahead") == "auto" ? defaultAhead(ksize, in.channels()) : std::stoi(p.text("ahead"));
  const std::string pro = p.text("prologue");
  s.prologue =
      s.direct && in.channels() == 1 && pro != "off" && (pro == "on" || ksize <= kPrologueKsize);
  s.anySource = pro == "on";
  s.epilogue = s.direct && in.channels() == 1 && p.text("epilogue") != "off";
  const std::string modeDefine = sobelModeDefine(mode);
  // The local tile, as each kernel lays it out: the tile kernel's rows with 16 bytes of room on
  // each side for the halo; the direct kernel's (kernels/sobel_gpu_tile.cl) with the halo words.
  const int r = ksize == 1 ? 1 : ksize / 2, haloWords = (r * in.channels() + 3) / 4;
  const auto tileRows = std::size_t(s.wg.h) * std::size_t(s.rows) + std::size_t(2 * r);
  if (!s.direct)
    s.tileBytes = (std::size_t(s.wg.w) * std::size_t(s.vec) + 32) * tileRows;
  else if (s.local())
    s.tileBytes = 4 * (std::size_t(s.wg.w) * std::size_t(s.vec / 4) + 2 * haloWords) * tileRows;
  if (!s.direct || s.local())  // the tile's shape; the direct kernel alone runs with any
    s.options.define("WGX", s.wg.w).define("WGY", s.wg.h);
  s.options.define("KSIZE", ksize)
      .define("CH", in.channels())
      .define("VX", s.vec)
      .define("PY", s.rows)
      .define("TAIL_SHIFT", s.direct && !s.local() && in.rowBytes() % std::size_t(s.vec) != 0)
      .define("LOCAL_ROWS", s.local())
      .define("AHEAD", s.ahead)
      .define(modeDefine)
      .define(borderDefine(parseBorder(p.text("border"))))
      .defineIf(s.load == "rows" && !s.direct, "LOAD_BY_ROWS")
      .defineIf(s.direct && p.text("slide") != "taps", "SLIDE_PIXELS")
      .defineIf(h2, "H2")
      .defineIf(h2 && nvHalf, "H2_PTX")
      .define("PERM_PTX", s.direct && facts.nvidiaCc > 0);
  return s;
}

}  // namespace vf
