#include "app/sinks.hpp"

#include <climits>
#include <cstdint>
#include <filesystem>

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
  r.inputFormat = s.inputFormat;
  // One still image in (a .png or .jpg file, not a pattern or a glob): one image out, as ffmpeg
  // writes it, without --frames 1.
  if (s.input && !s.inputs && !s.inputsList &&
      s.input->find_first_of("%*?[") == std::string::npos) {
    std::error_code ec;
    r.oneImageIn = media::isImageExtension(media::lowerExtension(*s.input)) &&
                   std::filesystem::is_regular_file(*s.input, ec);
  }
  return media::classifyOutput(r);
}

std::string sequenceFileName(const std::string& pattern, std::int64_t index) {
  const auto p = media::parseFramePattern(pattern, nullptr);
  return p ? p->name(index + 1) : "";
}

AVRational chainReshape(const Chain& chain) {
  AVRational f{1, 1};
  FrameDesc in = chain.input();
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const FrameDesc& out = chain.stageOutputs()[i];
    if (chain.stage(i).name() == "resize") {
      AVRational r{1, 1};  // sides up to 65535: the products in 64 bits
      av_reduce(&r.num, &r.den, std::int64_t{in.width} * out.height,
                std::int64_t{in.height} * out.width, INT_MAX);
      f = av_mul_q(f, r);
    }
    in = out;
  }
  return f;
}

PixelShapes pixelShapes(const CaptureSource& source, const Chain& chain) {
  PixelShapes p;
  const auto* media = dynamic_cast<const media::MediaSource*>(&source);
  if (!media) return p;  // cameras, GStreamer: square
  const AVRational sar = media->sampleAspect();
  const AVRational shaped = media::reshapedAspect(sar, chainReshape(chain));
  // A damaged file's shape (past 16:1 either way) is taken as square.
  const auto usable = [](AVRational r) {
    return r.num > 0 && r.den > 0 && av_q2d(r) >= 1.0 / 16 && av_q2d(r) <= 16;
  };
  if (usable(sar)) p.input = av_q2d(sar);
  if (usable(shaped)) p.output = av_q2d(shaped);
  return p;
}

std::unique_ptr<FrameSink> openOutput(const OutputSpec& spec, const Chain& chain,
                                      CaptureSource& source) {
  auto* media = dynamic_cast<media::MediaSource*>(&source);
  switch (spec.kind) {
    case OutputKind::Video:
      return std::make_unique<media::VideoSink>(spec, chain.output(), timingOf(source), media,
                                                chainReshape(chain));
    case OutputKind::ImageSequence:
      return std::make_unique<media::ImageSink>(spec, chain.output(), media, chainReshape(chain));
    case OutputKind::None:
      break;
  }
  return makeNullSink();
}

std::unique_ptr<FrameSink> makeNullSink() { return std::make_unique<NullSink>(); }

}  // namespace vf::app
