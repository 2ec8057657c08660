#pragma once
// Image-sequence outputs ("out/frame_%05d.png", numbered from 1 as ffmpeg's image2): each frame
// is encoded with FFmpeg's image encoder for the extension (PNG, BMP, TIFF, PPM/PGM are
// lossless; JPEG and WebP are not, with a warning) on a worker thread, and written whole or
// not at all (atomic_file.hpp). Frames keep their exact size.
#include <memory>

#include "app/media/frame_convert.hpp"
#include "app/media/frame_worker.hpp"
#include "app/media/output_spec.hpp"
#include "pipeline/engine.hpp"

namespace vf::media {

class MediaSource;

class ImageSink : public FrameSink {
 public:
  // `input` (may be null): the video the frames come from, whose pixel shape the images keep as
  // the chain changes it (`reshape`: chainReshape, app/sinks.hpp).
  ImageSink(const OutputSpec& spec, const FrameDesc& desc, const MediaSource* input = nullptr,
            AVRational reshape = {1, 1});
  ~ImageSink() override;
  void consume(const FrameResult& frame) override;
  void finish() override;
  std::int64_t framesWritten() const override { return written_; }

 private:
  void write(AVFrame* frame);  // on the worker thread
  void openEncoder(int width, int height, AVPixelFormat format);

  OutputSpec spec_;
  const AVCodec* codec_ = nullptr;
  AVRational sampleAspect_{0, 1};  // the input's pixel shape (0/1: unknown, none written)
  AVPixelFormat sourcePixFmt_ = AV_PIX_FMT_NONE;  // the input's, where the format keeps its chroma
  CodecPtr ctx_;
  PacketPtr packet_;
  FrameConverter converter_;
  std::unique_ptr<FrameWorker> worker_;
  std::int64_t submitted_ = 0, written_ = 0;
  bool finished_ = false;
};

}  // namespace vf::media
