#include "app/media/decoder.hpp"

#include <spdlog/spdlog.h>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include "app/media/decoder_device.hpp"
#include "app/media/hwdec.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace {

// A context for `codec` with the stream's parameters; thread settings as VideoDecoder's.
CodecPtr makeContext(const AVStream* stream, const AVCodec* codec, bool live, int threads,
                     const std::string& shown) {
  CodecPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) outOfMemory("the decoder");
  const int err = avcodec_parameters_to_context(ctx.get(), stream->codecpar);
  if (err < 0) throw MediaError(shown + ": decoder set-up failed: " + avError(err));
  ctx->pkt_timebase = stream->time_base;
  ctx->thread_count = threads;  // 0: one per core
  ctx->thread_type = live ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
  return ctx;
}

}  // namespace

VideoDecoder::VideoDecoder(const AVStream* stream, bool live, const std::string& hwdec,
                           const std::string& pciAddresses, const std::string& shown, int threads)
    : hwFrame_(makeFrame()), shown_(shown) {
  const AVCodecID id = stream->codecpar->codec_id;
  const AVCodec* codec = avcodec_find_decoder(id);
  if (!codec)
    throw app::UsageError(quote(shown) + ": no decoder for its video codec (" +
                          avcodec_get_name(id) + ") in this FFmpeg");
  std::string tried;  // why NVIDIA's decoder did not take the stream
  // auto leaves MPEG-4 Part 2 to the hwaccel: on an H200, mpeg4_cuvid's frames differed from
  // FFmpeg's in 29% of the samples, the hwaccel's in 1.7% (the IDCT's rounding, as MPEG-2's).
  const bool tryCuvid = hwdec == "cuvid" || (hwdec == "auto" && id != AV_CODEC_ID_MPEG4);
  if (tryCuvid) {
    if (const AVCodec* nv = cuvidDecoder(id, &tried)) {
      ctx_ = makeContext(stream, nv, live, 1, shown);
      ctx_->get_format = hostFormat;
      ctx_->thread_type = 0;  // the device decodes (and get_buffer2 below is no frame thread's)
      // The GPU's CUDA context on a stream of its own, and frames in page-locked memory.
      if (AVBufferRef* device = decoderDevice(pciAddresses)) {
        pinned_ = usePinnedFrames(ctx_.get(), device);
        av_buffer_unref(&device);
      }
      const int err = avcodec_open2(ctx_.get(), nv, nullptr);
      if (err >= 0) {
        hw_ = "cuvid";
        // NVIDIA's decoders report limited range where the stream declares none; FFmpeg's leave
        // it unspecified (read as limited too). The stream's word is kept, so outputs are
        // tagged alike whichever decoder ran.
        unsetRange_ = stream->codecpar->color_range == AVCOL_RANGE_UNSPECIFIED;
        spdlog::info("{}: decoding on NVDEC ({})", shown, nv->name);
        return;
      }
      const std::string missing = hwdecMissing(AV_HWDEVICE_TYPE_CUDA);
      tried = std::string(nv->name) +
              (missing.empty() ? " did not open: " + avError(err) : ": " + missing);
    }
    if (hwdec == "cuvid")
      spdlog::warn("{}: --hwdec cuvid is not available ({}); decoding in software", shown, tried);
  }
  ctx_ = makeContext(stream, codec, live, threads, shown);
  pinned_.reset();
  hw_ = setupHwDecode(ctx_.get(), codec, hwdec == "cuvid" ? "none" : hwdec, pciAddresses, shown,
                      tried);
  transfer_ = !hw_.empty();
  if (transfer_) ctx_->thread_count = 1;  // the device decodes; one host thread feeds it
  if (hw_ == "cuda") pinned_ = pinnedPool(ctx_->hw_device_ctx);  // frames copied back into it
  const int err = avcodec_open2(ctx_.get(), codec, nullptr);
  if (err < 0)
    throw MediaError(shown + ": the " + codecName(codec) +
                     " decoder did not open: " + avError(err));
}

void VideoDecoder::send(const AVPacket* packet) {
  if (packet && ctx_->codec_id == AV_CODEC_ID_RAWVIDEO) {
    // Raw video that ends inside a frame: cut short, or --size / --input-pix-fmt are not the
    // data's. Said once here (the decoder would reject the packet as damaged).
    const int frame = av_image_get_buffer_size(ctx_->pix_fmt, ctx_->width, ctx_->height, 1);
    if (frame > 0 && packet->size < frame) {
      spdlog::warn(
          "{}: the last {} bytes are not a whole frame ({}x{} {} frames are {} bytes each); if "
          "every frame looks wrong, check --size and --input-pix-fmt",
          shown_, packet->size, ctx_->width, ctx_->height, av_get_pix_fmt_name(ctx_->pix_fmt),
          frame);
      return;
    }
  }
  const int err = avcodec_send_packet(ctx_.get(), packet);
  if (err >= 0 || err == AVERROR_EOF) return;
  failed(err);
}

void VideoDecoder::failed(int err) {
  if (err == AVERROR(ENOMEM)) throw MediaError(shown_ + ": decoding failed: " + avError(err));
  ++failed_;
  if (err == AVERROR_INVALIDDATA) return;  // damaged data: skipped and counted
  if (++inARow_ < kFailuresInARow) return;
  throw MediaError(shown_ + ": decoding failed " + std::to_string(inARow_) + " times in a row (" +
                   avError(err) + "): the stream is damaged, or this FFmpeg's " +
                   ctx_->codec->name + " decoder cannot read it");
}

bool VideoDecoder::receive(AVFrame* out) {
  for (;;) {
    AVFrame* target = transfer_ ? hwFrame_.get() : out;
    const int err = avcodec_receive_frame(ctx_.get(), target);
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return false;
    if (err < 0) {
      failed(err);
      continue;
    }
    inARow_ = 0;
    if (target->decode_error_flags || (target->flags & AV_FRAME_FLAG_CORRUPT)) {
      // Concealed damage: the frame is there, with what the decoder could not read patched
      // over. Count it (the run reports it) and deliver it.
      ++failed_;
    }
    if (target == out) {
      if (unsetRange_) out->color_range = AVCOL_RANGE_UNSPECIFIED;
      return true;
    }
    if (target->hw_frames_ctx) {
      av_frame_unref(out);
      if (pinned_) {
        out->format =
            reinterpret_cast<const AVHWFramesContext*>(target->hw_frames_ctx->data)->sw_format;
        out->width = target->width;
        out->height = target->height;
        pinnedFrame(*pinned_, out);  // else the copy allocates FFmpeg's memory
      }
      const int terr = av_hwframe_transfer_data(out, target, 0);
      if (terr < 0)
        throw MediaError(shown_ + ": copying a frame from the device failed: " + avError(terr));
      av_frame_copy_props(out, target);
      av_frame_unref(target);
      return true;
    }
    av_frame_unref(out);
    av_frame_move_ref(out, target);  // decoded in software after all (pickFormat fell back)
    return true;
  }
}

void VideoDecoder::flush() {
  avcodec_flush_buffers(ctx_.get());
  inARow_ = 0;
}

}  // namespace vf::media
