#include "app/media/decoder.hpp"

#include <spdlog/spdlog.h>

#include "app/media/hwdec.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

VideoDecoder::VideoDecoder(const AVStream* stream, bool live, const std::string& hwdec,
                           const std::string& shown, int threads)
    : hwFrame_(makeFrame()), shown_(shown) {
  const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
  if (!codec)
    throw app::UsageError(quote(shown) + ": no decoder for its video codec (" +
                          avcodec_get_name(stream->codecpar->codec_id) + ") in this FFmpeg");
  ctx_.reset(avcodec_alloc_context3(codec));
  if (!ctx_) outOfMemory("the decoder");
  int err = avcodec_parameters_to_context(ctx_.get(), stream->codecpar);
  if (err < 0) throw MediaError(shown + ": decoder set-up failed: " + avError(err));
  ctx_->pkt_timebase = stream->time_base;
  ctx_->thread_count = threads;  // 0: one per core
  ctx_->thread_type = live ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
  hw_ = setupHwDecode(ctx_.get(), codec, hwdec, shown);
  if (!hw_.empty()) ctx_->thread_count = 1;  // the device decodes; one host thread feeds it
  err = avcodec_open2(ctx_.get(), codec, nullptr);
  if (err < 0)
    throw MediaError(shown + ": the " + codecName(codec) +
                     " decoder did not open: " + avError(err));
}

void VideoDecoder::send(const AVPacket* packet) {
  const int err = avcodec_send_packet(ctx_.get(), packet);
  if (err >= 0 || err == AVERROR_EOF) return;
  if (err == AVERROR_INVALIDDATA) {  // a damaged packet: skipped and counted
    ++failed_;
    return;
  }
  throw MediaError(shown_ + ": decoding failed: " + avError(err));
}

bool VideoDecoder::receive(AVFrame* out) {
  for (;;) {
    AVFrame* target = hw_.empty() ? out : hwFrame_.get();
    const int err = avcodec_receive_frame(ctx_.get(), target);
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return false;
    if (err == AVERROR_INVALIDDATA) {
      ++failed_;
      continue;
    }
    if (err < 0) throw MediaError(shown_ + ": decoding failed: " + avError(err));
    if (target->decode_error_flags || (target->flags & AV_FRAME_FLAG_CORRUPT)) {
      // Concealed damage: the frame is there, with what the decoder could not read patched
      // over. Count it (the run reports it) and deliver it.
      ++failed_;
    }
    if (target == out) return true;
    if (target->hw_frames_ctx) {
      av_frame_unref(out);
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

void VideoDecoder::flush() { avcodec_flush_buffers(ctx_.get()); }

}  // namespace vf::media
