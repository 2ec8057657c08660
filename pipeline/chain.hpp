#pragma once
#include <memory>
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/error.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/fusion.hpp"
#include "pipeline/stage.hpp"

namespace vf {

class FusedPass;

// A chain string that does not parse or validate. what() is the full message with the chain
// and a caret line under the offending token; message() is the first line alone.
class ChainError : public UserError {
 public:
  ChainError(const std::string& message, const std::string& chain, std::size_t pos,
             std::size_t len);
  const std::string& message() const { return message_; }
  std::size_t position() const { return pos_; }
  std::size_t length() const { return len_; }

 private:
  std::string message_;
  std::size_t pos_, len_;
};

// Events of one frame through the chain, indexed like the stages (a disabled stage has none). A
// fused pass's events are its first stage's; its other stages have none (Chain::timingNames).
struct ChainRun {
  std::vector<StageEvents> stages;
  cl::Event done;  // the last command this frame enqueued on the compute queue
};

// Stages in order, configured for one input size and format, with the intermediate buffers
// between them. The chain enqueues; it never waits (runOnce, for tests and tools, does).
class Chain {
 public:
  Chain();
  ~Chain();
  Chain(Chain&&);
  Chain& operator=(Chain&&);

  // FFmpeg-style: "blur=sigma=2:border=replicate,sobel=mode=l2,hist,brightness=auto".
  // Throws ChainError (stage and parameter named, caret under the token).
  static Chain parse(const std::string& text);

  void add(std::unique_ptr<Stage> stage);
  std::size_t size() const { return stages_.size(); }
  Stage& stage(std::size_t i) { return *stages_.at(i); }
  const Stage& stage(std::size_t i) const { return *stages_.at(i); }
  std::string str() const;  // canonical chain text (non-default parameters only)

  // Turns a stage off (the frame passes it unchanged) or on. Takes effect at the next
  // configure(); returns true when that is needed.
  bool setEnabled(std::size_t i, bool enabled);
  bool enabled(std::size_t i) const { return enabled_.at(i); }

  // Fusion (pipeline/fusion.hpp). Auto (the default): on GPUs; on CPUs each stage's own kernels,
  // which PoCL runs as fast as the generated pass or faster (bench's fusion section, 1080p BGR,
  // three runs, unfused / fused: hist,brightness 2.7-3.4 / 3.1-3.5 ms, brightness,brightness
  // 1.2-1.5 / 1.5-1.6), so fewer launches gain nothing there. On: everywhere (tests, bench). Off:
  // every stage runs its own kernels (the per-stage split of the time, and the reference the fused
  // passes are tested against). Takes effect at the next configure(); returns true when that is
  // needed.
  enum class Fusion { Auto, On, Off };
  bool setFusion(Fusion mode);
  Fusion fusion() const { return fuse_; }

  // The rows of the chain's frames on the device (its input, the frames between its passes and
  // its output). Padded: each row starts kPitchAlign pixels after the last one's start, rounded
  // up, so every row starts on a whole vector and a width that is not a multiple of it runs the
  // kernels' aligned paths (only where every enabled stage takesRowPitch(); else packed). Auto
  // (the default): padded on GPUs, packed on CPUs (their caches take any row alike, and the
  // engine hands a CPU device its host slots as they are). Packed: rows rowBytes() apart. Takes
  // effect at the next configure(); returns true when that is needed.
  enum class RowPitch { Auto, Packed, Padded };
  static constexpr int kPitchAlign = 64;
  bool setRowPitch(RowPitch mode);
  RowPitch rowPitch() const { return pitchMode_; }
  // Whether configure() pads the rows of frames on `cl` whose width is not a multiple of
  // kPitchAlign, and the row pitch in pixels it gives frames `in`, by the rule above.
  bool padsRows(const ClContext& cl) const;
  int pitchPixelsFor(const ClContext& cl, const FrameDesc& in) const;
  static int paddedWidth(int width) {
    return (width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  }

  // Programs built per frame size (ProgramVariant: for several chains of different frame sizes
  // running at once on one CPU device). Takes effect at the next configure(). programVariant():
  // the variant to build under, "" unless set.
  void setProgramsPerFrameSize(bool on) { perFrameSize_ = on; }
  std::string programVariant() const { return perFrameSize_ ? input_.str() : ""; }

  // The passes of the configured chain, in order: a stage of its own or a fused pass.
  struct Pass {
    std::string label;                // "blur", or "gray+hist+brightness" for a fused pass
    std::vector<std::size_t> stages;  // chain indices
    bool fused = false;
    std::string schedule;  // a fused pass's (FusedPass::schedule), else the stage's
  };
  std::vector<Pass> passes() const;
  // What each stage's entry of ChainRun::stages times, indexed like the stages: the stage's name,
  // a fused pass's label on its first stage, "" on its other stages (their time is in the
  // first's). Every timing report (the engine's stats, --stats, the preview, the bench) names
  // them this way.
  std::vector<std::string> timingNames() const;

  // Builds every stage for input frames described by `in`. UserError on a format mismatch
  // ("sobel: needs gray input, got bgr; put gray before it").
  void configure(ClContext& cl, const FrameDesc& in);
  bool configured() const { return configured_; }
  const FrameDesc& input() const { return input_; }
  const FrameDesc& output() const { return output_; }
  // The configured row pitch: in pixels (padded: the same for every frame of the chain; packed:
  // the input's width, each frame's rows its own rowBytes()), and in bytes for the input and
  // the output, with the bytes of a whole frame.
  int pitchPixels() const { return pitchPx_; }
  bool padded() const { return pitchPx_ > input_.width; }
  std::size_t inputPitch() const { return std::size_t(pitchPx_) * input_.channels(); }
  std::size_t outputPitch() const {
    return padded() ? std::size_t(pitchPx_) * output_.channels() : output_.rowBytes();
  }
  std::size_t inputBytes() const { return inputPitch() * std::size_t(input_.height); }
  std::size_t outputBytes() const { return outputPitch() * std::size_t(output_.height); }
  // Size and format each stage produces (after configure), indexed like the stages.
  const std::vector<FrameDesc>& stageOutputs() const { return stageOut_; }

  // Enqueues all enabled stages on `queue`: reads `in` (input() frames, rows inputPitch() apart:
  // inputBytes()), writes `out` (outputBytes()), the first command waits on `wait`. Side outputs
  // are read back into `side` (one vector per sideOutputs() entry, resized here) on the same queue,
  // so a later frame cannot overwrite them first; they are valid once run.done completes.
  // stageEvents false: the stages' kernels are enqueued without events (run.stages holds null
  // events for them: no per-stage time), except the first and the last pass's, so the frame's
  // device span is still known and run.done still marks its end; the queue must be in order
  // (ours all are). Saves host time on drivers where events are costly (the engine times only
  // some frames).
  ChainRun enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                   const std::vector<cl::Event>& wait,
                   std::vector<std::vector<std::uint8_t>>* side = nullptr, bool stageEvents = true);

  // The side outputs of the frame enqueued last (their buffers may change from frame to frame).
  std::vector<SideOutput> sideOutputs() const;
  // The files the stages read (Stage::filesRead), in chain order.
  std::vector<std::string> filesRead() const;
  // Enqueues non-blocking reads of those side outputs into dst[k] (sideOutputs()[k].bytes each)
  // on `queue` after `after` (a null event: after what the in-order queue holds), and returns
  // the last read's event (`after` when there are none). Enqueue them on the frame's queue
  // before the next frame, which may overwrite the buffers.
  cl::Event readSideOutputs(cl::CommandQueue& queue, const std::vector<std::uint8_t*>& dst,
                            const cl::Event& after) const;

  // Replaces stage i with wrap(stage i): a decorator around it (pipeline/fault_injection.hpp).
  // The chain must be configured again.
  template <class Wrap>
  void wrapStage(std::size_t i, Wrap&& wrap) {
    stages_.at(i) = wrap(std::move(stages_.at(i)));
    configured_ = false;
  }

  // Device buffers for the configured chain: one holding `frame` (an input frame, its rows packed
  // on the host), written in the chain's row pitch (blocking); one for an output frame.
  cl::Buffer inputBuffer(ClContext& cl, cl::CommandQueue& queue, const void* frame) const;
  cl::Buffer outputBuffer(ClContext& cl) const;

  // One frame, blocking: upload `in`, run, download into `out` (which must have output()'s
  // size and format), each copied row by row into and out of the device's pitch. For tests and
  // tools, not for streaming.
  ChainRun runOnce(ClContext& cl, cl::CommandQueue& queue, const FrameView& in,
                   const FrameView& out, std::vector<std::vector<std::uint8_t>>* side = nullptr);

 private:
  // Throws ChainError under a stage that reads BGR where color=to= made hsv, lab or yuv frames.
  void checkColourSpaces() const;

  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<bool> enabled_;
  // Parsed from text: the text and each stage's place in it, for a caret under a stage that
  // refuses the frame it is configured for (npos: added otherwise).
  std::string text_;
  std::vector<std::pair<std::size_t, std::size_t>> spans_;
  std::vector<FrameDesc> stageOut_;
  std::map<std::string, cl::Buffer> published_;
  std::map<std::string, PublishedBuffer> publishedPerFrame_;
  FrameDesc input_, output_;
  bool configured_ = false;
  cl::Buffer scratch_[2];
  std::size_t scratchBytes_ = 0;
  ClContext* cl_ = nullptr;
  Fusion fuse_ = Fusion::Auto;
  RowPitch pitchMode_ = RowPitch::Auto;
  int pitchPx_ = 0;
  bool perFrameSize_ = false;
  std::vector<PassPlan> passes_;
  std::vector<std::unique_ptr<FusedPass>> fused_;  // indexed like passes_; null: not fused

  void planFusion(ClContext& cl);
  bool producer(const PassPlan& p) const;
  std::string label(const PassPlan& p) const;
};

}  // namespace vf
