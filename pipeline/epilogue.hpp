#pragma once
// An epilogue (Stage::setEpilogue, pipeline/fusion.hpp): the point-wise functions and histogram
// counters after a stage, applied by that stage's kernel to each byte it stores, so that their
// passes never read or write the frame. The generated text a kernel includes
// (kernels/epilogue.cl: EPILOGUE, EPI_DECL, EPI_PASS, EPI_KDECL, EPI_BEGIN, EPI_END and the
// pixel function epi_pixel) and the host side: kernel arguments, the counters' buffers per
// frame. One-channel frames (a byte is a pixel).
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/point_source.hpp"

namespace vf {

class HistogramKernel;

struct Epilogue {
  std::vector<Stage*> stages;  // in chain order; empty: none
  PixelFunction fn;
  std::vector<HistogramKernel*> counters;  // in chain order
  int copies = 1;  // sub-histograms per work-group, lane by lane (see kernels/epilogue.cl)

  bool empty() const { return stages.empty(); }
  // The text that goes before the storing kernel's source ("" when empty).
  std::string header() const;
  // Sets the functions' parameters (their live values) as kernel arguments from `first` on.
  void setArgs(cl::Kernel& kernel, cl_uint first) const;
  // For one frame: the counters' buffers (HistogramKernel::advance: call once per frame, when
  // the kernel is enqueued) as the kernel arguments after the functions' ones.
  void advance(cl::Kernel& kernel, cl_uint first) const;
};

// Local memory an epilogue takes per work-group: its tables ((1 + counters) x 256 bytes) and
// `copies` sub-histograms of 256 counts per counter.
std::size_t epilogueLocalBytes(std::size_t counters, int copies);

// The sub-histograms per work-group for the counters among `stages`: the most any of them asks
// for (HistogramKernel::requestedCopies), else `preferred`, halved until the epilogue fits in
// `localBytes`. 0 when it does not fit with one.
int epilogueCopies(const std::vector<Stage*>& stages, int preferred, std::size_t localBytes);

// The epilogue of `stages` after a stage whose output is `out`: std::logic_error when `out` is
// not one channel or a stage is neither a function keeping one channel nor a counter.
Epilogue makeEpilogue(const std::vector<Stage*>& stages, const FrameDesc& out, int copies);

// kernels/<file> built with `options`, reading through `pro` and storing through `epi` (as it
// is when both are empty).
cl::Program buildThrough(ProgramCache& programs, const std::string& file,
                         const std::string& options, const Prologue& pro, const Epilogue& epi);

}  // namespace vf
