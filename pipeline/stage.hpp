#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/border.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/cl/opencl.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/params.hpp"

namespace vf {

class Stage;
class HistogramKernel;

// A point-wise stage's per-pixel function, as OpenCL C, for a fused pass (pipeline/fusion.hpp).
// `source` defines `void POINT_FN(const VF_PX* in, VF_PX* out, <params>)` (POINT_FN is a macro the
// pass defines to a name of its own): `in` holds a pixel's inChannels channels, `out` receives
// its outChannels, both in private memory. The caller instantiates it for one pixel (VF_PX is
// uchar) or for 16 pixels at once (VF_PX is uchar16, each channel the 16 pixels' lanes: how CPUs
// vectorise it), so it computes through the pass's type macros only: VF_PX_FLOAT (float or
// float16), VF_PX_U32(x) and VF_PX_F32(x) (a channel widened to uint or float lanes), VF_PX_BITS(x)
// (as_int of float lanes) and VF_PX_BYTE(x) (int or uint lanes in [0, 255] back to channels).
// The function must give the same bytes as the stage's own kernel.
struct PointFn {
  std::string source;
  int inChannels = 1, outChannels = 1;
  std::vector<std::string> params;  // parameter declarations after `out` ("float gain"), in order
  // It needs the whole frame before it (enqueuePrelude: brightness=auto's levels from the
  // histogram): it can only start a fused pass, never continue one.
  bool startsPass = false;
};

// What a stage type is: its name, one-line summary, formats and parameters. One static
// instance per stage type; the registry, the parser and --list-stages read it.
struct StageInfo {
  std::string name;
  std::string summary;
  std::string formats;  // e.g. "gray, bgr, bgra -> same"
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Stage>()> create;
};

// Device data published per frame: returns the buffer holding the data of the frame enqueued
// last (the histogram alternates between two buffers). Call it in enqueue(), after the
// publishing stage has enqueued the same frame.
using PublishedBuffer = std::function<cl::Buffer()>;

// Handed to Stage::configure. `published` carries device data an upstream stage offers to later
// stages about the *same* frame data, in a buffer fixed at configure; `publishedPerFrame` the
// same for data whose buffer changes from frame to frame (the histogram stage publishes
// "histogram" there). The chain clears both after every stage that changes the frame.
// `pitchPixels`: the row pitch of the frames the stage reads and writes, in pixels (at least the
// frame's width; a frame of C channels has rows pitchPixels * C bytes apart, so pixel (x, y) is
// pixel y * pitchPixels + x of every frame of the chain). Only a stage that takesRowPitch() is
// handed one above the width.
struct StageContext {
  ClContext& cl;
  int index = 0;  // position in the chain
  std::map<std::string, cl::Buffer>& published;
  std::map<std::string, PublishedBuffer>* publishedPerFrame = nullptr;  // null: none offered
  int pitchPixels = 0;  // 0: the frame's width (packed rows)

  // The row pitch in pixels of frames `in` (at least their width).
  int rowPixels(const FrameDesc& in) const {
    return pitchPixels > in.width ? pitchPixels : in.width;
  }
};

// Events of one stage's commands for one frame: device time = last.END - first.START.
struct StageEvents {
  cl::Event first;
  cl::Event last;
};

// Data a stage produces besides the frame (the histogram), read back to the host per frame.
struct SideOutput {
  int stage = 0;
  std::string name;   // "histogram"
  cl::Buffer buffer;  // on the device: holds the frame enqueued last (may change per frame,
                      // so take sideOutputs() again after each enqueue)
  std::size_t bytes = 0;
};

// Which side output an entry of FrameResult::side (pipeline/engine.hpp) is: the stage that
// made it (its index in the chain) and its name ("histogram", "levels").
struct SideOutputInfo {
  int stage = 0;
  std::string name;
};

// A stage's output as its input through a symmetric separable filter of 8-bit fixed-point taps
// (the blur: OpenCV's 8-bit Gaussian), offered to the stage after it to compute in its own pass
// (Stage::filter, Stage::takesFilter). The taps live in the offering stage's buffer, laid out as
// pipeline/stages/blur_taps.hpp's TapsBlock, and may change between frames (a live sigma).
class SeparableFilter {
 public:
  virtual int radius() const = 0;  // taps on each side of the centre, for the next frame
  virtual BorderMode border() const = 0;
  virtual int borderValue() const = 0;  // border=constant: the outside value
  // The taps for the frame about to be enqueued on `queue`: a change not yet on the device is
  // written first, and `deps` gets that write's event.
  virtual const cl::Buffer& taps(cl::CommandQueue& queue, std::vector<cl::Event>& deps) = 0;
  // The last command of a frame that read the taps: a later change is written after it.
  virtual void tapsReadBy(const cl::Event& done) = 0;
  // The filter by its own stage's kernels, `in` to `out` (frames of its stage's input), after
  // `wait`: for a stage that computes it in its pass when a live change moves it past the pass.
  virtual StageEvents enqueueAlone(cl::CommandQueue& queue, const cl::Buffer& in,
                                   const cl::Buffer& out, const std::vector<cl::Event>& wait) = 0;

 protected:
  ~SeparableFilter() = default;
};

// One filter. Anatomy: parameters (declared in its StageInfo) -> validate() -> configure()
// (programs built, buffers allocated, once per input size/format) -> enqueue() per frame.
class Stage {
 public:
  explicit Stage(const StageInfo& info) : info_(info), params_(info.params) {}
  virtual ~Stage() = default;
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  const StageInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }
  Params& params() { return params_; }
  const Params& params() const { return params_; }

  // Checks across parameters (throws ParamError). Called after parsing, before configure.
  virtual void validate() const {}

  // Files the stage reads (a user kernel's source): an output must never be written over them.
  virtual std::vector<std::string> filesRead() const { return {}; }

  // Whether every kernel the stage may run takes frames whose rows are further apart than their
  // bytes (StageContext::pitchPixels), with any parameters and live change. Such a stage keeps
  // the frame's size. Default: no (the chain then keeps its frames packed).
  virtual bool takesRowPitch() const { return false; }

  // Prepares for frames described by `in`: checks the format (UserError naming the stage when
  // it cannot take it), builds programs, allocates scratch. Returns what it produces.
  // Never called per frame; called again when the input size or format changes.
  virtual FrameDesc configure(StageContext& ctx, const FrameDesc& in) = 0;

  // Re-reads live parameters after params() changed (no program rebuild). Default: none.
  virtual void update() {}

  // The schedule in effect since the last configure() or update(), as key=value text (blur:
  // "kernel=slab strip=4x32 warps=4 ..."): what the schedule parameters and the device's facts
  // chose. For logs, the benchmark and tests; "" when the stage has no choice to report.
  virtual std::string schedule() const { return ""; }

  // True when the stage leaves the frame as it is (the histogram): the chain hands the same
  // buffer on, and `out` passed to enqueue() equals `in`.
  virtual bool passthrough() const { return false; }

  // Enqueues this stage for one frame on `queue`, reading `in` and writing `out`, after `wait`.
  virtual StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                              const std::vector<cl::Event>& wait) = 0;

  // Side outputs to read back per frame (after enqueue, in queue order). The buffers may differ
  // from frame to frame: call it after each enqueue() and read before the next one.
  virtual std::vector<SideOutput> sideOutputs() const { return {}; }

  // ---- Fusion (pipeline/fusion.hpp). A stage opts in by overriding these; by default it runs
  // its own kernels. All are asked after configure().
  // A point-wise stage's function (null: the stage is not point-wise for this frame).
  virtual const PointFn* pointFn() const { return nullptr; }
  // Sets the function's parameters (its live values) as kernel arguments from index `first`.
  virtual void setPointArgs(cl::Kernel& /*kernel*/, cl_uint /*first*/) {}
  // For a function that startsPass: the commands it needs for this frame before the pass,
  // reading the pass's input `in` (brightness=auto: the levels). Null events when none.
  virtual StageEvents enqueuePrelude(cl::CommandQueue& /*queue*/, const cl::Buffer& /*in*/,
                                     const std::vector<cl::Event>& /*wait*/) {
    return {};
  }
  // A passthrough stage that only counts a histogram of the frame (hist): a fused pass counts
  // for it through this (HistogramKernel::advance) instead of its own kernel. Null: it does not.
  virtual HistogramKernel* histogramCounter() { return nullptr; }
  // A stage that can read its input through point-wise functions, applied to each pixel as it
  // loads it (a prologue: the functions' pass folded into this one), with the schedule
  // configure() chose, where the first function reads frames `source`. Default: it cannot.
  virtual bool takesPrologue(const FrameDesc& /*source*/) const { return false; }
  // From the next frame on, reads through the functions of `fns` (configured, in chain order,
  // each a pointFn(); the first reads frames `in`, the last gives what configure() was given):
  // enqueue()'s `in` is then the first function's input, and the stage enqueues the first
  // function's prelude when it has one. Empty `fns`: reads its input as it is.
  // Called after configure(), only where takesPrologue(in); a later configure() clears it.
  virtual void setPrologue(const std::vector<Stage*>& fns, const FrameDesc& in);
  // A stage that can put each byte it stores through the point-wise functions and histogram
  // counters after it (an epilogue: their passes folded into this one), with the schedule
  // configure() chose. Default: it cannot.
  virtual bool takesEpilogue() const { return false; }
  // From the next frame on, stores its output through `stages` (configured, in chain order, each
  // a pointFn() that keeps the channels or a histogramCounter()): the output is the last one's,
  // and the counters count for their stages (HistogramKernel::advance, once per frame).
  // Called after configure(), only where takesEpilogue(); a later configure() clears it.
  virtual void setEpilogue(const std::vector<Stage*>& stages);
  // A stage whose output is its input through a SeparableFilter it offers to the stage after
  // it (null: none for this frame and these parameters).
  virtual SeparableFilter* filter() { return nullptr; }
  // A stage that can compute `filter`, of frames `in`, in its own pass before its own work, with
  // the schedule configure() chose. Default: it cannot.
  virtual bool takesFilter(const SeparableFilter& /*filter*/, const FrameDesc& /*in*/) const {
    return false;
  }
  // From the next frame on, computes `filter` (the configured stage right before it) in its own
  // pass: enqueue()'s `in` is then the filter's input (or its prologue's). Null: reads its input
  // as it is. Called after configure() and before setPrologue() and setEpilogue(), only where
  // takesFilter(); a later configure() clears it.
  virtual void setFilter(SeparableFilter* filter);

 private:
  const StageInfo& info_;
  Params params_;
};

// Enqueues `kernel`; a failure throws ClError naming the kernel ("clEnqueueNDRangeKernel(sobel):
// CL_INVALID_WORK_GROUP_SIZE"). `local` may be cl::NullRange. Null events in `wait` are
// skipped. Inside a StageEventsOff scope it returns a null event and asks the driver for none:
// on NVIDIA an event on a profiling queue costs ~7 us of host time per command, which bounds
// the engine at 1080p (docs/PERFORMANCE.md).
cl::Event launchKernel(cl::CommandQueue& queue, const cl::Kernel& kernel, const cl::NDRange& global,
                       const cl::NDRange& local, const std::vector<cl::Event>& wait);

// While one lives, launchKernel on this thread enqueues without events (Chain::enqueue uses it
// for frames whose stages are not timed). kernelsLaunched() counts launchKernel calls on this
// thread, so a caller can tell whether a stage enqueued anything. A stage must therefore enqueue
// its commands through launchKernel, or with events of its own, and return as `last` the event
// of its last command (or a null one): the chain orders what follows by the in-order queue.
class StageEventsOff {
 public:
  explicit StageEventsOff(bool off = true);
  ~StageEventsOff();
  StageEventsOff(const StageEventsOff&) = delete;
  StageEventsOff& operator=(const StageEventsOff&) = delete;

 private:
  bool previous_;
};
std::uint64_t kernelsLaunched();

// Rounds `global` up to a multiple of `local` (odd frame sizes: kernels guard their stores).
inline std::size_t roundUp(std::size_t global, std::size_t local) {
  return (global + local - 1) / local * local;
}

}  // namespace vf
