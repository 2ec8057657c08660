#include "pipeline/stages/blur_sobel.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "pipeline/error.hpp"
#include "pipeline/stages/blur_taps.hpp"
#include "pipeline/stages/sobel_plan.hpp"

namespace vf {
namespace {

// The default shape: 4 bytes x 4 rows per work-item in 32x8 groups, a tile of 128 bytes x 32
// rows, 4 rows per column-sum unit: the most work-items per group whose arrays fit in 48 KB of
// local memory with the halo of radius 8. H200, gray,blur,sobel,hist,brightness on BGR, 26 shapes
// that fit (vec 4/8/16, rows 1-8, groups of 128-256) in one call, median of 20, us: 1920x1080
// 25.9 (next 27.4 at 4 x 2 in 16x16), 1280x720 18.6 (best 18.5) against 30.7 and 29.0 as two
// passes (docs/PERFORMANCE.md, "The blur in the sobel's pass").
constexpr BlurSobelShape kShape{};
// filter=slab: 8 warps of 2 sets (the sobel's tile 224 bytes wide), strips of 4 bands (62 output
// rows at ksize 3), the sobel 8 bytes x 2 rows a work-item in turn (224 of the 256 busy).
constexpr int kSlabVec = 8, kSlabRows = 2;

int sobelRadius(int ksize) { return ksize == 1 ? 1 : ksize / 2; }

}  // namespace

BlurSobelShape BlurSobelShape::of(const Params& sobel) {
  BlurSobelShape s = kShape;
  s.slab = sobel.text("filter") == "slab";
  if (s.slab) {
    s.vec = kSlabVec;
    s.rows = kSlabRows;
    const Size2 strip = sobel.size("strip");
    if (strip.w) s.sets = strip.w;
    if (strip.h) s.bands = strip.h / 16;
    if (sobel.integer("warps")) s.warps = sobel.integer("warps");
  }
  if (sobel.integer("vec")) s.vec = sobel.integer("vec");
  if (sobel.integer("rows")) s.rows = sobel.integer("rows");
  if (sobel.size("wg").w) s.wg = sobel.size("wg");
  return s;
}

std::size_t BlurSobelShape::items() const {
  return slab ? 32 * std::size_t(warps) : std::size_t(wg.w) * std::size_t(wg.h);
}

int BlurSobelShape::slabRows(int ksize) const { return 16 * bands - 2 * sobelRadius(ksize); }

std::size_t BlurSobelShape::localBytes(int radius, int channels, int ksize, bool emulated) const {
  if (slab) {  // the tile (16 + 2R rows of 16 sets x warps + 16 bytes), the emulation's products
    const std::size_t lp = 16 * std::size_t(sets) * std::size_t(warps) + 16;
    return (16 + 2 * std::size_t(sobelRadius(ksize))) * lp +
           (emulated ? std::size_t(warps) * 192 * 4 : 0);
  }
  const std::size_t lp = std::size_t(wg.w) * std::size_t(vec) + 32;
  const std::size_t lh =
      std::size_t(wg.h) * std::size_t(rows) + 2 * std::size_t(sobelRadius(ksize));
  const std::size_t ha = (std::size_t(radius) * std::size_t(channels) + 3) / 4 * 4;
  const std::size_t crows = (lh + std::size_t(cpy) - 1) / std::size_t(cpy) * std::size_t(cpy);
  // The source words (crows + 2 x radius rows), the column sums (float4s), the tile.
  const std::size_t cw = lp + 2 * ha;
  return (crows + 2 * std::size_t(radius)) * cw + crows * cw * sizeof(float) + lh * lp;
}

bool BlurSobelShape::fits(const Params& sobel, const DeviceFacts& facts,
                          const SeparableFilter& filter, const FrameDesc& in, std::size_t pitch) {
  const std::string mode = sobel.text("filter");
  if (mode == "off" || parseBorder(sobel.text("border")) == BorderMode::Wrap) return false;
  const int r = filter.radius();
  if (r > kBlurSobelMaxRadius) return false;
  const BlurSobelShape s = of(sobel);
  const int ksize = sobel.integer("ksize");
  // The tile's 16 bytes of padding hold the folded positions (blur_sobel.cl).
  if (sobelRadius(ksize) * in.channels() + in.channels() - 1 > 16) return false;
  if (s.slab) {
    // The tile's width whole vectors, its 16 rows whole units of rows (blur_sobel_slab.cl).
    if (s.slabColumns() < 16 || s.slabColumns() % s.vec != 0 || 16 % s.rows != 0 ||
        s.slabRows(ksize) < 1)
      throw UserError(
          "sobel: filter=slab takes 16 x sets x warps - 32 >= 16 bytes a group of "
          "whole vec (got strip " +
          std::to_string(s.sets) + "x" + std::to_string(16 * s.bands) + ", warps " +
          std::to_string(s.warps) + ", vec " + std::to_string(s.vec) +
          ") and rows dividing 16 (got " + std::to_string(s.rows) + ")");
    if (!filter.slabOperands() || !facts.littleEndian) return false;
  }
  const std::size_t items = s.items();
  const std::size_t bytes = s.localBytes(r, in.channels(), ksize, facts.nvidiaCc < 8);
  if (items > facts.maxWorkGroupSize || bytes > facts.localMemBytes) {
    if (mode == "on" || mode == "slab")
      spdlog::warn(
          "sobel: filter={}: the blur and the sobel as one pass need {} work-items and {} bytes "
          "of local memory per group here ({}); the device has {} and {}, so they run as two "
          "passes; give a smaller {}",
          mode, items, bytes, s.text(), facts.maxWorkGroupSize, facts.localMemBytes,
          s.slab ? "strip or fewer warps" : "wg, vec or rows");
    return false;
  }
  if (mode == "on" || mode == "slab") return true;
  const std::size_t most =
      sobel.integer("ksize") >= 5 ? kBlurSobelAutoBytesWide : kBlurSobelAutoBytes;
  return !facts.cpu && in.channels() == 1 && r <= kBlurSobelAutoRadius && in.bytes() <= most &&
         pitch % 4 == 0 && facts.littleEndian;
}

BlurSobelPass::BlurSobelPass(ClContext& cl, const Params& sobel, const FrameDesc& in,
                             std::size_t pitch, SeparableFilter& filter)
    : cl_(cl),
      sobel_(sobel),
      in_(in),
      pitch_(pitch),
      filter_(filter),
      shape_(BlurSobelShape::of(sobel)) {}

bool BlurSobelPass::prefetch() const {
  // As the blur's slab kernel (blur_slab_plan.cpp): with one-chunk row products and a next band.
  const std::string pf = sobel_.text("prefetch");
  return pf == "on" || (pf == "auto" && filter_.radius() * in_.channels() <= 8 && shape_.bands > 1);
}

std::size_t BlurSobelPass::tryBuild(const Prologue& pro, const Epilogue& epi) {
  const DeviceFacts& facts = cl_.facts();
  const int r = filter_.radius();
  BuildOptions o;
  o.define("KSIZE", sobel_.integer("ksize"))
      .define("CH", in_.channels())
      .define("VX", shape_.vec)
      .define("PY", shape_.rows)
      .define(sobelModeDefine(sobel_.text("mode")))
      .define("SOBEL_BORDER", static_cast<int>(parseBorder(sobel_.text("border"))))
      .define("RADIUS", r)
      .define("CHANNELS", in_.channels())
      .define(borderDefine(filter_.border()))
      .define("ALIGNED", facts.littleEndian && pitch_ % 4 == 0);
  if (shape_.slab)
    o.define("NS", shape_.sets)
        .define("BANDS", shape_.bands)
        .define("WARPS", shape_.warps)
        .define("PF", prefetch())
        .define("ALIGNED16", facts.littleEndian && pitch_ % 16 == 0)
        .define("MMA_PTX", facts.nvidiaCc >= 8)
        .define("FRAG_OFF", kTapsFragOffsetWords)
        .define("FRAG_LOCAL", 0);
  else
    o.define("WGX", shape_.wg.w)
        .define("WGY", shape_.wg.h)
        .define("TAPS_U", kTapsUshortOffset)
        .define("CPY", shape_.cpy)
        .define("NV_PTX", facts.nvidiaCc > 0);
  const char* name = shape_.slab ? "blur_sobel_slab" : "blur_sobel";
  cl::Kernel k = clCall(std::string("clCreateKernel(") + name + ")", [&] {
    return cl::Kernel(buildThrough(cl_.programs(), std::string(name) + ".cl", o.str(), pro, epi),
                      name);
  });
  const std::size_t most = clCall("clGetKernelWorkGroupInfo(blur_sobel)", [&] {
    return k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_.device());
  });
  if (shape_.items() > most) return most;
  kernel_ = std::move(k);
  radius_ = r;
  return 0;
}

void BlurSobelPass::build(const Prologue& pro, const Epilogue& epi) {
  if (const std::size_t most = tryBuild(pro, epi))
    throw UserError("sobel: " + shape_.text() + " exceeds the " + std::to_string(most) +
                    " work-items per group this device runs the blur and the sobel with as one "
                    "pass; give " +
                    (shape_.slab ? "fewer warps" : "a smaller wg") + " or filter=off");
}

StageEvents BlurSobelPass::enqueue(cl::CommandQueue& queue, const cl::Buffer& in,
                                   const cl::Buffer& out, const cl_float4& taps, int value,
                                   const Prologue& pro, const Epilogue& epi,
                                   const std::vector<cl::Event>& wait) {
  if (filter_.radius() != radius_) build(pro, epi);
  std::vector<cl::Event> deps = wait;
  const cl::Buffer& filterTaps = filter_.taps(queue, deps);
  const StageEvents pre = pro.enqueuePrelude(queue, in, deps);
  cl::Kernel& k = kernel_;
  k.setArg(0, in);
  k.setArg(1, out);
  k.setArg(2, in_.width);
  k.setArg(3, in_.height);
  k.setArg(4, static_cast<cl_int>(pitch_));
  k.setArg(5, taps);
  k.setArg(6, value);
  k.setArg(7, filterTaps);
  k.setArg(8, filter_.borderValue());
  pro.setArgs(k, 9);  // the prologue's parameters follow, then the epilogue's
  epi.setArgs(k, 9 + pro.args());
  epi.advance(k, 9 + pro.args());
  // A group's output tile, and its shape in work-items.
  const bool slab = shape_.slab;
  const std::size_t tw =
      slab ? std::size_t(shape_.slabColumns()) : std::size_t(shape_.wg.w) * std::size_t(shape_.vec);
  const std::size_t th = slab ? std::size_t(shape_.slabRows(sobel_.integer("ksize")))
                              : std::size_t(shape_.wg.h) * std::size_t(shape_.rows);
  const cl::NDRange local =
      slab ? cl::NDRange(32, shape_.warps) : cl::NDRange(shape_.wg.w, shape_.wg.h);
  const cl::NDRange global((in_.rowBytes() + tw - 1) / tw * local[0],
                           (std::size_t(in_.height) + th - 1) / th * local[1]);
  cl::Event e = launchKernel(queue, k, global, local, deps);
  filter_.tapsReadBy(e);
  return {pre.first() ? pre.first : e, e};
}

bool BlurSobelPass::takesRadius(const Prologue& pro, const Epilogue& epi) {
  const int r = filter_.radius();
  if (r == radius_) return true;
  if (r == refused_) return false;
  const std::size_t bytes =
      shape_.localBytes(r, in_.channels(), sobel_.integer("ksize"), cl_.facts().nvidiaCc < 8) +
      (epi.empty() ? 0 : epilogueLocalBytes(epi.counters.size(), epi.copies));
  // The kernel for the new radius may run fewer work-items per group than the shape has; the
  // slab form needs the new taps as its operands.
  if (r > kBlurSobelMaxRadius || bytes > cl_.facts().localMemBytes ||
      (shape_.slab && !filter_.slabOperands()) || tryBuild(pro, epi) != 0) {
    refused_ = r;
    return false;
  }
  return true;
}

std::size_t BlurSobelPass::localBytes() const {
  return shape_.localBytes(filter_.radius(), in_.channels(), sobel_.integer("ksize"),
                           cl_.facts().nvidiaCc < 8);
}

std::string BlurSobelShape::text() const {
  if (slab)
    return "strip=" + std::to_string(sets) + "x" + std::to_string(16 * bands) +
           " warps=" + std::to_string(warps) + " vec=" + std::to_string(vec) +
           " rows=" + std::to_string(rows);
  return "wg=" + std::to_string(wg.w) + "x" + std::to_string(wg.h) + " vec=" + std::to_string(vec) +
         " rows=" + std::to_string(rows) + " cpy=" + std::to_string(cpy);
}

std::string BlurSobelPass::schedule() const {
  if (shape_.slab)
    return "kernel=blur_sobel_slab " + shape_.text() + " prefetch=" + (prefetch() ? "on" : "off") +
           " products=" + (cl_.facts().nvidiaCc >= 8 ? "mma.sync" : "emulated");
  return "kernel=blur_sobel " + shape_.text();
}

}  // namespace vf
