#pragma once
// The engine's sink for video outputs (files, stdout, network): each filtered frame is
// converted to the encoder's pixel format on the sink thread and encoded and muxed on a worker
// thread of its own, so encoding overlaps decoding and the device. The input's other streams
// come through a PacketRelay from the source. finish() always closes the container so that
// what was written plays, then reports any failure.
#include <deque>
#include <memory>
#include <optional>

#include "app/media/encoder.hpp"
#include "app/media/frame_worker.hpp"
#include "app/media/muxer.hpp"
#include "app/media/packet_relay.hpp"
#include "app/media/written_file.hpp"
#include "pipeline/engine.hpp"

namespace vf::media {

class MediaSource;

struct OutputTiming {
  AVRational timeBase{0, 0};  // of the frames' FrameTime ({0, 0}: unknown)
  double fps = 0;             // nominal
};

class VideoSink : public FrameSink {
 public:
  // Opens the encoder and the output (the file is created here, so errors come before the
  // first frame). `input`: the FFmpeg source, whose other streams, tags and chapters are
  // carried over (null for cameras and image sequences).
  // `reshape`: how the chain changes the pixels' shape (chainReshape, app/sinks.hpp).
  VideoSink(const OutputSpec& spec, const FrameDesc& desc, const OutputTiming& timing,
            MediaSource* input, AVRational reshape = {1, 1});
  ~VideoSink() override;

  void consume(const FrameResult& frame) override;
  void finish() override;
  std::int64_t framesWritten() const override;
  bool cutShort() const override { return cutShort_; }

 private:
  void encode(AVFrame* frame);  // on the worker thread
  void drainPackets();
  void drainRelay(bool complete);
  void close(std::exception_ptr failure);
  // The frame before submitted `times` more times, in the slots of a constant-rate output.
  void repeatPrevious(std::int64_t times);
  // After a run that wrote no frame: the regular file this output made or replaced is removed.
  void removeEmptyFile() const;

  OutputSpec spec_;
  FrameDesc desc_;
  Muxer muxer_;
  std::unique_ptr<VideoEncoder> encoder_;
  std::shared_ptr<PacketRelay> relay_;
  std::deque<PacketPtr> held_;  // side packets waiting for the video written to reach them
  FrameConverter converter_;
  PacketPtr packet_;
  std::unique_ptr<FrameWorker> worker_;
  FramePtr previous_;  // constant-rate outputs: the last frame written (its picture, referenced)
  std::optional<WrittenFile> opened_;  // none: not a regular file
  std::int64_t frames_ = 0;
  bool warnedSize_ = false, warnedRate_ = false, finished_ = false;
  bool watchAlpha_ = false;  // the frames' alpha is not written: warn once a frame has any
  bool closedWhole_ = true;  // the container was finished without an error
  bool cutShort_ = false;    // a stop left out repeats of a gap (cutShort())
};

}  // namespace vf::media
