#pragma once
// The sobel on NVIDIA's tensor cores (kernels/sobel_slab.cl): its gradients as 8-bit integer
// matrix products, a strip per warp, at scale 1 in modes mag, x and y; on other devices the same
// products emulated in OpenCL C (slow: for tests). The sobel stage runs it on its own frames
// where the plan says (kernel=slab, SobelSlabPlan::use), and its other kernel where the pass is
// fused (a prologue, an epilogue or the blur before it) or the scale is not 1. kernel=auto takes
// it for ksize 5 and 7 on NVIDIA GPUs of compute capability 8+.
#include <cstddef>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/cl/device_facts.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/params.hpp"
#include "pipeline/stage.hpp"

namespace vf {

struct SobelSlabPlan {
  bool use = false;  // kernel=slab (or auto's choice) and the parameters are the kernel's
  int sets = 0, rows = 0, warps = 0;  // a warp's strip: sets of 16 bytes x rows; per group
  bool prefetch = false;
  BuildOptions options;
  cl::NDRange global, local;
  std::string text;  // the schedule, "kernel=slab strip=2x32 warps=4 prefetch=on ..."
};

// Whether the sobel declines the histograms and point-wise stages after it (Stage::takesEpilogue)
// so that the slab kernel runs its pass: with `slab` planned, epilogue=auto and frames past
// kSlabOwnPassPixels (ksize 7) or kSlabOwnPassPixelsKsize5, where the slab kernel and a pass of
// their own are faster than the direct kernel storing through them.
bool slabDeclinesEpilogue(const SobelSlabPlan& slab, const Params& sobel, const FrameDesc& in);
// H100, 2026-12-06, us, gray,blur,sobel=ksize=K,hist,brightness on BGR, the sobel storing through
// hist and brightness / the slab kernel and their pass: ksize 7 2560x1440 47.6 / 53.7, 3840x2160
// 74.8 / 64.5, 7680x4320 223.4 / 175.1; ksize 5 3840x2160 62.8 / 65.7, 7680x4320 183.8 / 175.6
// (docs/PERFORMANCE.md, "Sobel 5 and 7 on the tensor cores").
constexpr std::size_t kSlabOwnPassPixels = 2560 * 1440, kSlabOwnPassPixelsKsize5 = 3840 * 2160;

// The plan for the sobel's parameters on frames `in` whose rows lie `pitch` bytes apart.
// UserError when the device's limits rule the strip or warps given out.
SobelSlabPlan planSobelSlab(const Params& sobel, const DeviceFacts& facts, const FrameDesc& in,
                            std::size_t pitch);

// The plan's kernel and its constant operands, built once per configuration.
class SobelSlabPass {
 public:
  SobelSlabPass(ClContext& cl, const Params& sobel, const FrameDesc& in, std::size_t pitch,
                SobelSlabPlan plan);

  // One frame from `in` to `out`; value: BORDER_CONSTANT's.
  cl::Event enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, int value,
                    const std::vector<cl::Event>& wait);

  const SobelSlabPlan& plan() const { return plan_; }

 private:
  FrameDesc in_;
  std::size_t pitch_;
  SobelSlabPlan plan_;
  cl::Buffer operands_;
  cl::Kernel kernel_;
};

}  // namespace vf
