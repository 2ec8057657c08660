#pragma once
// OpenCL C for point-wise functions (Stage::pointFn) called from a generated kernel: the fused
// pass (fused_pass.hpp) and a stage reading its input through a prologue (Stage::setPrologue).
#include <functional>
#include <string>
#include <vector>

#include "pipeline/cl/program_cache.hpp"
#include "pipeline/stage.hpp"

namespace vf {

// A run of point-wise stages as one pixel function,
// `inline void <name>(const VF_PX* in, VF_PX* out <params>)`: a pixel of `inChannels` channels
// through every function in order, `outChannels` out; VF_PX is uchar, or uchar16 with `lanes` 16
// (the channels of 16 pixels, a vector each). `params` and `args` declare and pass the functions'
// parameters, in order (kernel arguments of the caller), their names starting with `prefix`
// (two functions in one kernel take different ones). With `count`, histogram counters
// (Stage::histogramCounter) may be among the stages: each takes a parameter `__local uint*
// <prefix>lh<k>` (k counts them from 0) and count(k, v, channels) gives the lines counting the
// pixel where it is, the array v<v> of `channels` channels; `counterChannels` lists each counter's
// channels. The functions' type macros (see PointFn) are defined around the source only.
// Throws std::logic_error when a stage is neither or the channels do not follow.
using CountLines = std::function<std::string(int counter, int v, int channels)>;
struct PixelFunction {
  std::string source, params, args;
  int outChannels = 0;
  std::vector<int> counterChannels;
};
PixelFunction pixelFunction(const std::vector<Stage*>& stages, int inChannels,
                            const std::string& name, int lanes = 1, const CountLines& count = {},
                            const std::string& prefix = "");

// The functions a stage reads its input through (Stage::setPrologue), and what the reading
// kernel needs of them: the text to put before its source (kernels/prologue.cl's PROLOGUE,
// PRO_CH, PRO_OUT, PRO_DECL, PRO_PASS and the pixel function pro_pixel) and its arguments.
struct Prologue {
  std::vector<Stage*> fns;  // in chain order; empty: none
  FrameDesc in;             // what the first function reads
  PixelFunction fn;

  bool empty() const { return fns.empty(); }
  // The text that goes before the reading kernel's source ("" when empty).
  std::string header() const;
  // kernels/<file> built with `options` to read through the functions (as it is without any).
  cl::Program build(ProgramCache& programs, const std::string& file,
                    const std::string& options) const;
  // How many kernel arguments the functions' parameters take.
  cl_uint args() const;
  // Sets the functions' parameters (their live values) as kernel arguments from `first` on.
  void setArgs(cl::Kernel& kernel, cl_uint first) const;
  // The first function's prelude when it needs the whole frame first (brightness=auto's levels),
  // reading `src` after `deps`, which then become its last event; null events when it needs
  // none (`deps` left as they are).
  StageEvents enqueuePrelude(cl::CommandQueue& queue, const cl::Buffer& src,
                             std::vector<cl::Event>& deps) const;
};
// Whether a prologue reading `source` is as small as those measured faster than the functions'
// own pass (by the blur's and the sobel's auto rule): at most the bytes and the pixels of
// 2560x1440 BGR.
bool prologueSourceFits(const FrameDesc& source);

// The prologue of `fns` on frames `in`, for a stage configured for `out`: std::logic_error when
// the functions do not make frames of `out`'s size and format.
Prologue makePrologue(const std::vector<Stage*>& fns, const FrameDesc& in, const FrameDesc& out);

// The parameters' type in a declaration: "__global const float* gain_bias" ->
// "__global const float*".
std::string declType(const std::string& decl);

}  // namespace vf
