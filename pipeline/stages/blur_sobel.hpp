#pragma once
// The blur and the sobel after it as one pass (kernels/blur_sobel.cl): the sobel computes the
// blur's SeparableFilter in its own kernel (Stage::setFilter), so the blurred frame is never
// written. The sobel stage owns one where the chain fuses the two (pipeline/fusion.hpp); its
// prologue and epilogue, where it has them, are this kernel's too: the chain
// gray,blur,sobel,hist,brightness is one launch.
//
// Where it runs (BlurSobelShape::fits; the sobel's `filter` parameter): by default on GPUs, on
// gray frames of rows of whole words, blur radii up to kBlurSobelAutoRadius, up to
// kBlurSobelAutoBytes (ksize 5 and 7: kBlurSobelAutoBytesWide). Past those the two passes are
// faster: the group's halo work grows with the radius and the channels, and on larger frames the
// tensor-core blur's pass and the sobel's direct kernel keep the device busier than the tiles
// (H200, docs/PERFORMANCE.md, "The blur in the sobel's pass"). filter=on runs it wherever it
// fits (CPUs too, for tests). Never under the sobel's border=wrap, whose folded positions lie
// outside the tile. A live sigma past its reach (takesRadius) runs the stages apart inside the
// sobel's pass (SobelStage), so the chain is not planned again.
#include <cstddef>
#include <memory>
#include <string>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/epilogue.hpp"
#include "pipeline/point_source.hpp"
#include "pipeline/stage.hpp"

namespace vf {

// The largest blur radius filter=auto fuses (sigma 2.5 derives radius 8), and the largest gray
// frames: 1920x1080, 2560x1440 for ksize 5 and 7. H200, gray,blur,sobel,hist,brightness on BGR,
// median of 30, us, one pass / two: sigma 1.5 1280x720 21.7 / 26.1, 1920x1080 26.5 / 29.2,
// 2560x1440 38.7 / 38.2, 3840x2160 66.2 / 51.7; sigma 2.5 1920x1080 28.6 / 29.5, 2560x1440 41.6 /
// 37.3; ksize 5 2560x1440 43.2 / 51.4, 3840x2160 76.5 / 77.8; ksize 7 2560x1440 51.5 / 58.4.
constexpr int kBlurSobelAutoRadius = 8;
constexpr std::size_t kBlurSobelAutoBytes = 1920 * 1080, kBlurSobelAutoBytesWide = 2560 * 1440;
// The largest any schedule takes: the row sums are unrolled over the radius.
constexpr int kBlurSobelMaxRadius = 16;

// The work of one work-item and group: `vec` bytes x `rows` rows of the sobel's output, `wg`
// work-items, `cpy` rows per work-item in the blur's column sums.
struct BlurSobelShape {
  int vec = 4, rows = 4, cpy = 4;
  Size2 wg{32, 8};

  // The default, with the sobel's vec, rows and wg where they are set.
  static BlurSobelShape of(const Params& sobel);
  // Local memory per work-group for a blur of `radius` over `channels` and a sobel of `ksize`.
  std::size_t localBytes(int radius, int channels, int ksize) const;
  // Whether the sobel with `sobel` computes `filter` of frames `in` (rows `pitch` bytes apart)
  // in its pass on `facts`.
  static bool fits(const Params& sobel, const DeviceFacts& facts, const SeparableFilter& filter,
                   const FrameDesc& in, std::size_t pitch);
};

class BlurSobelPass {
 public:
  // For the sobel with `sobel` on frames `in` (the blur's output: the same size and format),
  // their rows `pitch` bytes apart.
  BlurSobelPass(ClContext& cl, const Params& sobel, const FrameDesc& in, std::size_t pitch,
                SeparableFilter& filter);

  // Builds the kernel for the filter's radius, reading through `pro` and storing through `epi`
  // (a program-cache hit when built before). UserError when the device runs fewer work-items
  // of it per group than the shape has.
  void build(const Prologue& pro, const Epilogue& epi);

  // One frame: the sobel's scaled smoothing taps and border value, its prologue's and
  // epilogue's arguments. Rebuilds first when a live change moved the filter's radius.
  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                      const cl_float4& taps, int value, const Prologue& pro, const Epilogue& epi,
                      const std::vector<cl::Event>& wait);

  // Whether it takes the filter's radius for the next frame, building the kernel for a new one:
  // a live sigma may move it past kBlurSobelMaxRadius, the device's local memory with `epi`'s,
  // or the work-items per group the device runs the rebuilt kernel with. A radius refused once
  // is not tried again until another has been.
  bool takesRadius(const Prologue& pro, const Epilogue& epi);

  SeparableFilter& filter() const { return filter_; }
  std::string schedule() const;
  std::size_t localBytes() const;  // per work-group, without an epilogue's

 private:
  // build's work: 0 when built, else the work-items per group the device runs it with (the
  // kernel in hand is kept).
  std::size_t tryBuild(const Prologue& pro, const Epilogue& epi);

  ClContext& cl_;
  const Params& sobel_;
  FrameDesc in_;
  std::size_t pitch_;
  SeparableFilter& filter_;
  BlurSobelShape shape_;
  int radius_ = -1;   // what kernel_ was built for
  int refused_ = -1;  // the last radius takesRadius refused
  cl::Kernel kernel_;
};

}  // namespace vf
