#include "app/media/image_sink.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "app/media/atomic_file.hpp"
#include "app/media/colour_kept.hpp"
#include "app/media/media_source.hpp"
#include "app/media/pixel_format_choice.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

const AVCodec* imageEncoder(const std::string& ext) {
  const char* name = ext == "png"                    ? "png"
                     : ext == "bmp"                  ? "bmp"
                     : ext == "tif" || ext == "tiff" ? "tiff"
                     : ext == "ppm" || ext == "pnm"  ? "ppm"
                     : ext == "pgm"                  ? "pgm"
                     : ext == "jpg" || ext == "jpeg" ? "mjpeg"
                     : ext == "webp"                 ? "libwebp"
                                                     : "png";
  return avcodec_find_encoder_by_name(name);
}

}  // namespace

ImageSink::ImageSink(const OutputSpec& spec, const FrameDesc& desc, const MediaSource* input,
                     AVRational reshape)
    : spec_(spec), codec_(imageEncoder(spec.extension)), packet_(makePacket()) {
  // As ffmpeg's image2: PNG's pHYs, JPEG's JFIF density and the like say the pixels' shape.
  if (input) sampleAspect_ = reshapedAspect(input->sampleAspect(), reshape);
  // A JPEG keeps a YUV input's chroma layout (4:2:0 from most video, as ffmpeg writes it); the
  // other image formats are written in RGB, which every viewer reads (a YUV TIFF is not).
  if (input && codec_ && codec_->id == AV_CODEC_ID_MJPEG) sourcePixFmt_ = input->pixFmt();
  if (input && input->format() && input->videoStream() >= 0)
    if (const double r = rotationOf(input->format()->streams[input->videoStream()]); r != 0)
      spdlog::warn(
          "{}: the input's rotation ({:g} degrees) is not kept: images have no place for it, so "
          "they show the picture unrotated; write .mp4 or .mov to keep it",
          spec.path, r);
  if (input && input->format()) {  // what images cannot hold, named as other outputs name it
    const AVFormatContext* f = input->format();
    std::string others;
    for (unsigned i = 0; i < f->nb_streams; ++i)
      if (static_cast<int>(i) != input->videoStream()) {
        const char* type = av_get_media_type_string(f->streams[i]->codecpar->codec_type);
        others +=
            fmt::format("{}{} stream #{}", others.empty() ? "" : ", ", type ? type : "data", i);
      }
    if (f->nb_chapters > 0) others += std::string(others.empty() ? "" : ", ") + "chapters";
    if (!others.empty())
      spdlog::warn("{}: images hold the picture alone: the input's {} not written", spec.path,
                   others);
  }
  if (!codec_)
    throw app::UsageError("output " + quote(spec.path) + ": this FFmpeg has no encoder for ." +
                          spec.extension + " images; use .png");
  if (codec_->id == AV_CODEC_ID_MJPEG || codec_->id == AV_CODEC_ID_WEBP)
    spdlog::warn("{}: {} is lossy; use .png for exact frames", spec.path,
                 codec_->id == AV_CODEC_ID_MJPEG ? "JPEG" : "WebP");
  if (input) warnColourLost(spec.path, input->colour(), "image2", codec_->id, true);
  openEncoder(desc.width, desc.height,
              nearestFormat(codec_, desc.format, sourcePixFmt_));  // errors come now
  spdlog::info("writing {} ({} {})", spec.path, codecName(codec_),
               av_get_pix_fmt_name(ctx_->pix_fmt));
  worker_ = std::make_unique<FrameWorker>([this](AVFrame* f) { write(f); });
}

ImageSink::~ImageSink() {
  if (!finished_) {
    try {
      finish();
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
    }
  }
}

void ImageSink::openEncoder(int width, int height, AVPixelFormat format) {
  ctx_.reset(avcodec_alloc_context3(codec_));
  if (!ctx_) outOfMemory("writing images");
  ctx_->width = width;
  ctx_->height = height;
  ctx_->pix_fmt = format;
  ctx_->time_base = {1, 25};
  if (sampleAspect_.num > 0 && sampleAspect_.den > 0) ctx_->sample_aspect_ratio = sampleAspect_;
  if (codec_->id == AV_CODEC_ID_PNG) ctx_->compression_level = 1;  // fast; lossless anyway
  if (codec_->id == AV_CODEC_ID_MJPEG) {
    ctx_->flags |= AV_CODEC_FLAG_QSCALE;
    ctx_->global_quality = FF_QP2LAMBDA * 2;
    ctx_->color_range = AVCOL_RANGE_JPEG;
  }
  checkEncodableSize(spec_.path, width, height);
  const int err = avcodec_open2(ctx_.get(), codec_, nullptr);
  if (err < 0)
    throw MediaError(spec_.path + ": the " + codecName(codec_) +
                     " encoder did not open: " + avError(err));
}

void ImageSink::consume(const FrameResult& frame) {
  const FrameView& v = frame.output;
  FramePtr f = worker_->acquire();
  const AVPixelFormat want = nearestFormat(codec_, v.format, sourcePixFmt_);
  if (!f || f->width != v.width || f->height != v.height || f->format != want) {
    f = makeFrame();
    f->width = v.width;
    f->height = v.height;
    f->format = want;
    if (av_frame_get_buffer(f.get(), 0) < 0) outOfMemory("writing images");
  }
  if (av_frame_make_writable(f.get()) < 0) outOfMemory("writing images");
  converter_.fromSlot(v, f.get(), ColourTags{}, v.width, v.height);
  f->pts = submitted_++;
  worker_->submit(std::move(f));
}

void ImageSink::write(AVFrame* frame) {
  const std::string name = spec_.pattern->name(frame->pts + 1);
  // Each image is a file of its own: another pixel format is no change worth a word.
  if (frame->width != ctx_->width || frame->height != ctx_->height)
    spdlog::warn("{}: image size changed to {}x{} at {}", spec_.path, frame->width, frame->height,
                 name);
  if (frame->width != ctx_->width || frame->height != ctx_->height ||
      frame->format != ctx_->pix_fmt)
    openEncoder(frame->width, frame->height, static_cast<AVPixelFormat>(frame->format));
  int err = avcodec_send_frame(ctx_.get(), frame);
  if (err >= 0) err = avcodec_receive_packet(ctx_.get(), packet_.get());
  if (err < 0)
    throw MediaError("could not encode " + name + ": " + avError(err) + "; the " +
                     std::to_string(written_) + " images before it are complete");
  const std::string why =
      writeFileAtomically(name, packet_->data, static_cast<std::size_t>(packet_->size), true);
  av_packet_unref(packet_.get());
  if (!why.empty())
    throw MediaError("could not write " + name + ": " + why + "; the " + std::to_string(written_) +
                     " images before it are complete");
  ++written_;
}

void ImageSink::finish() {
  if (finished_) return;
  finished_ = true;
  worker_->finish();  // rethrows a failed write, after every image before it was written
  spdlog::info("wrote {} images to {}", written_, spec_.path);
  // Images of an earlier, longer run past the last one written (-y replaced only those written)
  // read back with these as one sequence: said, with their names.
  if (spec_.pattern->single) return;
  std::int64_t stale = 0;
  std::error_code ec;
  while (stale < 1000000 && std::filesystem::exists(spec_.pattern->name(written_ + stale + 1), ec))
    ++stale;
  if (stale > 0)
    spdlog::warn(
        "{}: {} image{} after the {} written, {} to {}, {} from before this run; remove them, "
        "or ffmpeg and globs read them as part of this sequence",
        spec_.path, stale, stale == 1 ? "" : "s", written_, spec_.pattern->name(written_ + 1),
        spec_.pattern->name(written_ + stale), stale == 1 ? "is" : "are");
}

}  // namespace vf::media
