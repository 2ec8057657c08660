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

int sobelRadius(int ksize) { return ksize == 1 ? 1 : ksize / 2; }

}  // namespace

BlurSobelShape BlurSobelShape::of(const Params& sobel) {
  BlurSobelShape s = kShape;
  if (sobel.integer("vec")) s.vec = sobel.integer("vec");
  if (sobel.integer("rows")) s.rows = sobel.integer("rows");
  if (sobel.size("wg").w) s.wg = sobel.size("wg");
  return s;
}

std::size_t BlurSobelShape::localBytes(int radius, int channels, int ksize) const {
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
  const std::size_t items = std::size_t(s.wg.w) * std::size_t(s.wg.h);
  // The tile's 16 bytes of padding hold the folded positions (blur_sobel.cl).
  if (sobelRadius(sobel.integer("ksize")) * in.channels() + in.channels() - 1 > 16) return false;
  const std::size_t bytes = s.localBytes(r, in.channels(), sobel.integer("ksize"));
  if (items > facts.maxWorkGroupSize || bytes > facts.localMemBytes) {
    if (mode == "on")
      spdlog::warn(
          "sobel: filter=on: the blur and the sobel as one pass need {} work-items and {} bytes "
          "of local memory per group here (wg={}x{}, vec={}, rows={}); the device has {} and {}, "
          "so they run as two passes; give a smaller wg, vec or rows",
          items, bytes, s.wg.w, s.wg.h, s.vec, s.rows, facts.maxWorkGroupSize, facts.localMemBytes);
    return false;
  }
  if (mode == "on") return true;
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

std::size_t BlurSobelPass::tryBuild(const Prologue& pro, const Epilogue& epi) {
  const DeviceFacts& facts = cl_.facts();
  const int r = filter_.radius();
  const std::string options =
      BuildOptions()
          .define("KSIZE", sobel_.integer("ksize"))
          .define("CH", in_.channels())
          .define("VX", shape_.vec)
          .define("PY", shape_.rows)
          .define("WGX", shape_.wg.w)
          .define("WGY", shape_.wg.h)
          .define(sobelModeDefine(sobel_.text("mode")))
          .define("SOBEL_BORDER", static_cast<int>(parseBorder(sobel_.text("border"))))
          .define("RADIUS", r)
          .define("CHANNELS", in_.channels())
          .define(borderDefine(filter_.border()))
          .define("TAPS_U", kTapsUshortOffset)
          .define("CPY", shape_.cpy)
          .define("ALIGNED", facts.littleEndian && pitch_ % 4 == 0)
          .define("NV_PTX", facts.nvidiaCc > 0)
          .str();
  cl::Kernel k = clCall("clCreateKernel(blur_sobel)", [&] {
    return cl::Kernel(buildThrough(cl_.programs(), "blur_sobel.cl", options, pro, epi),
                      "blur_sobel");
  });
  const std::size_t most = clCall("clGetKernelWorkGroupInfo(blur_sobel)", [&] {
    return k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_.device());
  });
  if (std::size_t(shape_.wg.w) * std::size_t(shape_.wg.h) > most) return most;
  kernel_ = std::move(k);
  radius_ = r;
  return 0;
}

void BlurSobelPass::build(const Prologue& pro, const Epilogue& epi) {
  if (const std::size_t most = tryBuild(pro, epi))
    throw UserError("sobel: wg=" + std::to_string(shape_.wg.w) + "x" + std::to_string(shape_.wg.h) +
                    " exceeds the " + std::to_string(most) +
                    " work-items per group this device runs the blur and the sobel with as one "
                    "pass; give a smaller wg or filter=off");
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
  const std::size_t tw = std::size_t(shape_.wg.w) * std::size_t(shape_.vec);
  const std::size_t th = std::size_t(shape_.wg.h) * std::size_t(shape_.rows);
  const cl::NDRange global((in_.rowBytes() + tw - 1) / tw * std::size_t(shape_.wg.w),
                           (std::size_t(in_.height) + th - 1) / th * std::size_t(shape_.wg.h));
  cl::Event e = launchKernel(queue, k, global, cl::NDRange(shape_.wg.w, shape_.wg.h), deps);
  filter_.tapsReadBy(e);
  return {pre.first() ? pre.first : e, e};
}

bool BlurSobelPass::takesRadius(const Prologue& pro, const Epilogue& epi) {
  const int r = filter_.radius();
  if (r == radius_) return true;
  if (r == refused_) return false;
  const std::size_t bytes = shape_.localBytes(r, in_.channels(), sobel_.integer("ksize")) +
                            (epi.empty() ? 0 : epilogueLocalBytes(epi.counters.size(), epi.copies));
  // The kernel for the new radius may run fewer work-items per group than the shape has.
  if (r > kBlurSobelMaxRadius || bytes > cl_.facts().localMemBytes || tryBuild(pro, epi) != 0) {
    refused_ = r;
    return false;
  }
  return true;
}

std::size_t BlurSobelPass::localBytes() const {
  return shape_.localBytes(filter_.radius(), in_.channels(), sobel_.integer("ksize"));
}

std::string BlurSobelPass::schedule() const {
  return "kernel=blur_sobel wg=" + std::to_string(shape_.wg.w) + "x" + std::to_string(shape_.wg.h) +
         " vec=" + std::to_string(shape_.vec) + " rows=" + std::to_string(shape_.rows) +
         " cpy=" + std::to_string(shape_.cpy);
}

}  // namespace vf
