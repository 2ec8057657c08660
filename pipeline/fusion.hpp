#pragma once
// Fusion: the chain's stages grouped into as few passes over the frame as their data allows,
// planned at configure time from what each stage says of itself (Stage::pointFn,
// Stage::histogramCounter), never from a list of stage names, so a stage that does not opt in
// runs its own kernels and new stages work unchanged.
//
// The rule: a run of consecutive enabled stages, each point-wise (a PointFn: the output pixel
// a function of the input pixel at the same place) or a histogram counter (hist), becomes one
// pass that reads the frame once, applies the functions in order and counts each histogram at
// its place, and writes the run's output once. A function that needs the whole frame first
// (PointFn::startsPass, brightness=auto: its levels come from the histogram) ends the run
// before it and starts the next one, after its prelude. A run becomes a fused pass only when
// it holds at least two stages and one function; any other stage is its own pass.
//
// Prologues: a stage that can read its input through point-wise functions (Stage::
// takesPrologue: the blur's tensor-core kernel and the sobel's direct kernel, each judging the
// frame the first function reads) takes the functions at the end of the run before it, those
// after the run's last counter (prologueStart): "gray,blur" is one pass, the blur loading BGR
// pixels and converting each to gray as it reads it; "gray,hist,blur" stays two (the count
// needs the gray frame written once anyway).
//
// Epilogues: a stage that can put its output through point-wise functions and histogram counters
// as it stores it (Stage::takesEpilogue: the sobel's direct kernel on gray frames) takes the
// run of such stages right after it, as far as each keeps the channels and none needs the whole
// frame first: "sobel,hist,brightness" is one pass, the histogram counted from the gradients as
// they are stored and brightness applied after; "gray,sobel,hist,brightness" (a prologue and an
// epilogue) is one pass too.
//
// Filters: a stage that can compute the stage before it in its own pass (Stage::takesFilter:
// the sobel computing the blur's SeparableFilter into its tile) takes it, with the prologue
// the filter would have read through and its own epilogue: "blur,sobel" is one pass, and the
// whole chain "gray,blur,sobel,hist,brightness" is one.
#include <cstddef>
#include <string>
#include <vector>

namespace vf {

// What the planner needs to know of one enabled stage.
struct FusionTraits {
  bool point = false;       // has a PointFn
  bool startsPass = false;  // its PointFn needs the whole frame before it
  bool counter = false;     // counts a histogram of the frame passing through (hist)
  // can read its input through the functions from prologueStart on (judged on their source)
  bool prologue = false;
  bool keepsChannels = false;  // its PointFn makes as many channels as it takes
  bool epilogue = false;       // can put its output through the functions and counters after it
  bool readsFilter = false;    // computes the stage right before it (a filter) in its own pass
};

// The position in `traits` of the first function a stage at position k would read through:
// back over the functions before it, to the start of their run (a stage that is not one, or
// one that starts a pass, which is included) or to just after a counter. k when there is none.
std::size_t prologueStart(const std::vector<FusionTraits>& traits, std::size_t k);

// One pass: chain indices of its stages, in order; fused passes have two or more. A prologue
// or epilogue pass (fused too) is one stage's kernel, at position `reader` of `stages`, reading
// through the functions before it (prologue) and storing through the stages after it
// (epilogue); with `filter`, the stage before the reader is a filter it computes in its pass
// (the prologue's functions then come before that one).
struct PassPlan {
  std::vector<std::size_t> stages;
  bool fused = false;
  bool prologue = false;
  bool epilogue = false;
  std::size_t reader = 0;
  bool filter = false;
};

// Whether a stage with `t` can be part of an epilogue: a counter, or a function that keeps the
// channels and needs nothing of the frame before it.
bool epilogueMember(const FusionTraits& t);

// The passes for the enabled stages `indices` (in chain order) with `traits` (same order).
// fuse false: every stage its own pass.
std::vector<PassPlan> planPasses(const std::vector<std::size_t>& indices,
                                 const std::vector<FusionTraits>& traits, bool fuse);

// "gray+brightness": the names of a pass's stages joined by '+' (how every timing report
// names a fused pass).
std::string passLabel(const std::vector<std::string>& stageNames);

}  // namespace vf
