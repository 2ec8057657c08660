#pragma once
// The blur and the sobel after it as one pass (kernels/blur_sobel.cl): the sobel computes the
// blur's SeparableFilter in its own kernel (Stage::setFilter), so the blurred frame is never
// written. The sobel stage owns one where the chain fuses the two (pipeline/fusion.hpp); its
// prologue and epilogue, where it has them, are this kernel's too.
//
// Where it runs (BlurSobelShape::fits; the sobel's `filter` parameter): on GPUs by default, on
// rows of whole words (a row's words are loaded whole; others take the blur's byte path, which
// the two passes do faster) and for blur radii up to kBlurSobelAutoRadius; filter=on runs it
// wherever it fits (CPUs too, for tests). Never under the sobel's border=wrap, whose folded
// positions lie outside the tile.
#include <memory>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/epilogue.hpp"
#include "pipeline/point_source.hpp"
#include "pipeline/stage.hpp"

namespace vf {

// The largest blur radius filter=auto fuses (sigma 2.5 derives radius 8).
constexpr int kBlurSobelAutoRadius = 8;
// The largest any schedule takes: the row sums are unrolled over the radius.
constexpr int kBlurSobelMaxRadius = 16;

// The work of one work-item and group: `vec` bytes x `rows` rows of the sobel's output, `wg`
// work-items, `cpy` rows per work-item in the blur's column sums.
struct BlurSobelShape {
  int vec = 8, rows = 4, cpy = 4;
  Size2 wg{16, 16};

  // The sobel's parameters (vec, rows and wg where they are set) on a device: its shape.
  static BlurSobelShape of(const Params& sobel, const DeviceFacts& facts);
  // Local memory per work-group for a blur of `radius` over `channels` and a sobel of `ksize`.
  std::size_t localBytes(int radius, int channels, int ksize) const;
  // Whether the sobel with `sobel` computes `filter` of frames `in` in its pass on `facts`.
  static bool fits(const Params& sobel, const DeviceFacts& facts, const SeparableFilter& filter,
                   const FrameDesc& in);
};

class BlurSobelPass {
 public:
  // For the sobel with `sobel` on frames `in` (the blur's output: the same size and format).
  BlurSobelPass(ClContext& cl, const Params& sobel, const FrameDesc& in, SeparableFilter& filter);

  // Builds the kernel for the filter's radius, reading through `pro` and storing through `epi`
  // (a program-cache hit when built before). UserError when the device runs fewer work-items
  // of it per group than the shape has.
  void build(const Prologue& pro, const Epilogue& epi);

  // One frame: the sobel's scaled smoothing taps and border value, its prologue's and
  // epilogue's arguments. Rebuilds first when a live change moved the filter's radius.
  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                      const cl_float4& taps, int value, const Prologue& pro, const Epilogue& epi,
                      const std::vector<cl::Event>& wait);

  std::string schedule() const;
  std::size_t localBytes() const;  // per work-group, without an epilogue's

 private:
  ClContext& cl_;
  const Params& sobel_;
  FrameDesc in_;
  SeparableFilter& filter_;
  BlurSobelShape shape_;
  int radius_ = -1;  // what kernel_ was built for
  cl::Kernel kernel_;
};

}  // namespace vf
