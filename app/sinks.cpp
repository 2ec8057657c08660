#include "app/sinks.hpp"

#include "app/media/image_sequence.hpp"
#include "app/media/image_sink.hpp"
#include "app/media/media_source.hpp"
#include "app/media/pattern.hpp"
#include "app/media/video_sink.hpp"

namespace vf::app {

namespace {

class NullSink : public FrameSink {
 public:
  void consume(const FrameResult&) override {}
};

// The time base of the frames a source stamps.
media::OutputTiming timingOf(CaptureSource& source) {
  media::OutputTiming t;
  t.fps = source.fps();
  if (auto* m = dynamic_cast<media::MediaSource*>(&source)) {
    t.timeBase = m->format()->streams[m->videoStream()]->time_base;
  } else if (auto* seq = dynamic_cast<media::ImageSequenceSource*>(&source)) {
    t.timeBase = av_inv_q(av_d2q(seq->fps(), 1001000));
  } else {
    t.timeBase = {1, 1000000};  // cameras and GStreamer: the capture clock in microseconds
  }
  return t;
}

}  // namespace

OutputSpec classifyOutput(const Settings& s) {
  media::OutputRequest r;
  r.path = s.output;
  r.format = s.format;
  r.encoder.codec = s.codec.value_or("");
  r.encoder.preset = s.preset.value_or("");
  r.encoder.pixFmt = s.pixFmt.value_or("");
  r.encoder.crf = s.crf;
  r.encoder.bitrate = s.bitrate;
  r.audioCodec = s.audioCodec.value_or("");
  r.audio = s.audio.value_or(true);
  r.maxFrames = s.frames.value_or(-1);
  return media::classifyOutput(r);
}

std::string sequenceFileName(const std::string& pattern, std::int64_t index) {
  const auto p = media::parseFramePattern(pattern, nullptr);
  return p ? p->name(index + 1) : "";
}

std::unique_ptr<FrameSink> openOutput(const OutputSpec& spec, const FrameDesc& desc,
                                      CaptureSource& source) {
  switch (spec.kind) {
    case OutputKind::Video:
      return std::make_unique<media::VideoSink>(spec, desc, timingOf(source),
                                                dynamic_cast<media::MediaSource*>(&source));
    case OutputKind::ImageSequence:
      return std::make_unique<media::ImageSink>(spec, desc,
                                                dynamic_cast<media::MediaSource*>(&source));
    case OutputKind::None:
      break;
  }
  return makeNullSink();
}

std::unique_ptr<FrameSink> makeNullSink() { return std::make_unique<NullSink>(); }

}  // namespace vf::app
