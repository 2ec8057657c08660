#include "pipeline/stages/sobel_slab.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/blur_fragments.hpp"
#include "pipeline/stages/blur_shape.hpp"
#include "pipeline/stages/sobel_plan.hpp"

namespace vf {
namespace {

// The default strip: 2 sets of 16 bytes, the tallest of 64, 32 and 16 rows that gives every
// compute unit 40 warps (slabShape), in groups of 2 warps. H100, 2026-12-06, one call, ksize 5 /
// 7, us, this / the best of 2x16 to 3x64 in groups of 1, 2 and 4 warps: 1920x1080 gray
// 13.7 / 12.2, 13.7 / 12.1 (2x32; the rule gives 2x16), BGR 16.8 / 16.6, 22.1 / 21.3;
// 3840x2160 gray 19.5 / 18.8, 20.1 / 19.2, BGR 42.2 / 42.2, 52.4 / 52.4, BGRA 52.8 / 52.8, 66.2 /
// 66.2; 7680x4320 BGR 143.3 / 139.0, 176.7 / 174.2. Four sets of 64 rows in groups of 4 warps,
// the blur's choice there, took 64.9 at 3840x2160 BGR ksize 7 (docs/PERFORMANCE.md).
constexpr int kSets = 2, kWarps = 2, kWarpsPerUnit = 40;
// Four sets where strips of 4 x 64 rows still give every compute unit 40 warps (from about
// 3840x2160 in colour up): H100, 2026-12-06, median of 20, us, 4x64 / the 2-set rule: ksize 5
// 3840x2160 BGR 38.4 / 40.2, BGRA 49.1 / 51.2, 7680x4320 BGR 123.0 / 141.2, BGRA 158.7 / 183.2;
// ksize 7 3840x2160 BGR 46.6 / 47.4, 7680x4320 BGR 154.2 / 166.1, BGRA 201.5 / 219.3; at
// 1920x1080 BGR, where the rule gives 2x32, 4x64 took 23.3 against 17.1.
constexpr int kWideSets = 4;
// ksize 5 and 7 take the slab kernel by default on NVIDIA GPUs of compute capability 8+ (where
// mma.sync runs): H100, 2026-12-06, us, slab / direct: ksize 7 3840x2160 BGR 52.4 / 80.0, gray
// 19.6 / 30.0, 7680x4320 BGRA 232.7 / 384.2; ksize 5 3840x2160 BGR 42.2 / 56.7, 1920x1080 BGR
// 16.8 / 23.0. ksize 3 stays on the direct kernel's f16x2 path (3840x2160 BGR 35.1 against 44.1).
constexpr int kAutoKsize = 5;

// The taps at offsets -R .. R (kernels/sobel_slab.cl): the smoothing's (ksize 1: [1], padded with
// zeros to the derivative's radius) and the derivative's.
std::vector<int> smoothingTaps(int ksize) {
  switch (ksize) {
    case 1:
      return {0, 1, 0};
    case 3:
      return {1, 2, 1};
    case 5:
      return {1, 4, 6, 4, 1};
    default:
      return {1, 6, 15, 20, 15, 6, 1};
  }
}
std::vector<int> derivativeTaps(int ksize) {
  switch (ksize) {
    case 1:
    case 3:
      return {-1, 0, 1};
    case 5:
      return {-1, -2, 0, 2, 1};
    default:
      return {-1, -4, -5, 0, 5, 4, 1};
  }
}

// What the slab kernel computes: ksize 1 to 7, modes mag, x and y (scale 1 is checked per frame:
// the scale is live).
bool sobelSlabTakes(const Params& p) { return p.text("mode") != "l2"; }

}  // namespace

bool slabDeclinesEpilogue(const SobelSlabPlan& slab, const Params& p, const FrameDesc& in) {
  const std::size_t pixels = std::size_t(in.width) * std::size_t(in.height);
  const std::size_t past = p.integer("ksize") == 5 ? kSlabOwnPassPixelsKsize5 : kSlabOwnPassPixels;
  return slab.use && p.text("epilogue") == "auto" && pixels > past;
}

SobelSlabPlan planSobelSlab(const Params& p, const DeviceFacts& facts, const FrameDesc& in,
                            std::size_t pitch) {
  SobelSlabPlan s;
  const int ksize = p.integer("ksize"), cn = in.channels(), r = ksize == 1 ? 1 : ksize / 2;
  const std::string kernel = p.text("kernel");
  s.use = (kernel == "slab" || (kernel == "auto" && facts.nvidiaCc >= 8 && ksize >= kAutoKsize)) &&
          sobelSlabTakes(p);
  if (!s.use) return s;
  const std::size_t n = in.rowBytes();
  const Size2 strip = p.size("strip");
  const auto shapeOf = [&](int sets) {
    return slabShape(n, in.height, facts.computeUnits, kWarpsPerUnit, 2,
                     strip.w > 0 ? strip.w : sets, strip.h > 0 ? strip.h : -1);
  };
  SlabShape shape = shapeOf(kWideSets);
  if (strip.w <= 0 && shape.th < 64) shape = shapeOf(kSets);
  s.sets = shape.nb;
  s.rows = shape.th;
  s.warps = p.integer("warps") > 0 ? p.integer("warps") : kWarps;
  const std::size_t wg = std::size_t(s.warps) * 32;
  if (wg > facts.maxWorkGroupSize)
    throw UserError("sobel: warps=" + std::to_string(s.warps) + " is " + std::to_string(wg) +
                    " work-items; the device allows at most " +
                    std::to_string(facts.maxWorkGroupSize));
  // The next band's words loaded during this one where the row products take one chunk and the
  // strip has a next band (the blur's slab rule).
  const std::string pf = p.text("prefetch");
  s.prefetch = pf == "on" || (pf == "auto" && r * cn <= 8 && s.rows > 16);
  const bool emulated = facts.nvidiaCc < 8;
  const std::size_t bytes = std::size_t(s.warps) * 16 * (4 * std::size_t(s.sets) + 4) * 4 +
                            (emulated ? std::size_t(s.warps) * 192 * 4 : 0);
  // A kernel's own local arrays: at most 48 KB on NVIDIA's OpenCL, whatever the device has.
  const std::size_t local = std::min<std::size_t>(48 * 1024, facts.localMemBytes);
  if (bytes > local)
    throw UserError("sobel: kernel=slab with strip " + std::to_string(s.sets) + "x" +
                    std::to_string(s.rows) + " and " + std::to_string(s.warps) + " warps needs " +
                    std::to_string(bytes) + " bytes of local memory, the limit is " +
                    std::to_string(local) + ": use a narrower strip or fewer warps");
  s.options.define("KSIZE", ksize)
      .define("CH", cn)
      .define(sobelModeDefine(p.text("mode")))
      .define(borderDefine(parseBorder(p.text("border"))))
      .define("NS", s.sets)
      .define("BANDS", s.rows / 16)
      .define("WARPS", s.warps)
      .define("ALIGNED", pitch % 4 == 0)
      .define("ALIGNED16", pitch % 16 == 0)
      .define("MMA_PTX", !emulated)
      .define("PF", s.prefetch);
  const std::size_t ow = 16 * std::size_t(s.sets), w = std::size_t(s.warps);
  const std::size_t strips =
      (std::size_t(in.height) + std::size_t(s.rows) - 1) / std::size_t(s.rows);
  s.global = cl::NDRange((n + ow - 1) / ow * 32, (strips + w - 1) / w * w);
  s.local = cl::NDRange(32, w);
  s.text = "kernel=slab strip=" + std::to_string(s.sets) + "x" + std::to_string(s.rows) +
           " warps=" + std::to_string(s.warps) + " prefetch=" + (s.prefetch ? "on" : "off") +
           " products=" + (emulated ? "emulated" : "mma.sync");
  return s;
}

SobelSlabPass::SobelSlabPass(ClContext& cl, const Params& sobel, const FrameDesc& in,
                             std::size_t pitch, SobelSlabPlan plan)
    : in_(in), pitch_(pitch), plan_(std::move(plan)) {
  const int ksize = sobel.integer("ksize"), cn = in.channels(), r = ksize == 1 ? 1 : ksize / 2;
  const std::vector<int> s = smoothingTaps(ksize), d = derivativeTaps(ksize);
  const auto at = [r](const std::vector<int>& taps) {
    return [&taps, r](int k) {
      const int i = k + r;  // the offset's place in the taps, from -r
      return std::abs(k) <= r ? taps[std::size_t(i)] : 0;
    };
  };
  // The row and column halos as kernels/sobel_slab.cl defines them: the blur's slab kernel's at
  // radius <= 3 (one column chunk).
  const int kc = slabChunks(r, cn), ha = slabHalo(r, cn), hr = slabColumnHalo(r);
  std::vector<cl_uint> frag(std::size_t(2 + 2 * kc) * 128);
  slabOperand(at(s), true, hr, cn, 0, frag.data());
  slabOperand(at(d), true, hr, cn, 0, frag.data() + 128);
  for (int c = 0; c < kc; ++c) {
    slabOperand(at(s), false, ha, cn, c, frag.data() + (2 + c) * 128);
    slabOperand(at(d), false, ha, cn, c, frag.data() + (2 + kc + c) * 128);
  }
  operands_ = clCall("clCreateBuffer(sobel operands)", [&] {
    return cl::Buffer(cl.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      frag.size() * sizeof(cl_uint), frag.data());
  });
  kernel_ = clCall("clCreateKernel(sobel_slab)", [&] {
    return cl::Kernel(cl.programs().build("sobel_slab.cl", plan_.options.str()), "sobel_slab");
  });
  const std::size_t most = clCall("clGetKernelWorkGroupInfo(sobel_slab)", [&] {
    return kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl.device());
  });
  if (std::size_t(plan_.warps) * 32 > most)
    throw UserError("sobel: kernel=slab with " + std::to_string(plan_.warps) + " warps is " +
                    std::to_string(plan_.warps * 32) + " work-items a group; this device runs it " +
                    "with at most " + std::to_string(most) + ": give fewer warps");
}

cl::Event SobelSlabPass::enqueue(cl::CommandQueue& queue, const cl::Buffer& in,
                                 const cl::Buffer& out, int value,
                                 const std::vector<cl::Event>& wait) {
  kernel_.setArg(0, in);
  kernel_.setArg(1, out);
  kernel_.setArg(2, in_.width);
  kernel_.setArg(3, in_.height);
  kernel_.setArg(4, static_cast<cl_int>(pitch_));
  kernel_.setArg(5, operands_);
  kernel_.setArg(6, value);
  return launchKernel(queue, kernel_, plan_.global, plan_.local, wait);
}

}  // namespace vf
