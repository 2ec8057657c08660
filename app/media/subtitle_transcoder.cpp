#include "app/media/subtitle_transcoder.hpp"

#include <cstring>

namespace vf::media {

namespace {

bool isText(AVCodecID id) {
  const AVCodecDescriptor* d = avcodec_descriptor_get(id);
  return d && (d->props & AV_CODEC_PROP_TEXT_SUB) != 0;
}

constexpr AVRational kMs{1, 1000};

}  // namespace

bool SubtitleTranscoder::converts(const AVStream* input, const AVCodec* encoder) {
  return encoder && input->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE &&
         isText(input->codecpar->codec_id) && isText(encoder->id) &&
         avcodec_find_decoder(input->codecpar->codec_id) != nullptr;
}

SubtitleTranscoder::SubtitleTranscoder(const AVStream* input, const AVCodec* encoder,
                                       bool globalHeader, const std::string& shown)
    : shown_(shown),
      dec_(openStreamDecoder(input, shown, "subtitle")),
      pkt_(makePacket()),
      buffer_(1 << 20) {
  enc_.reset(avcodec_alloc_context3(encoder));
  if (!enc_) outOfMemory("a subtitle conversion");
  // Microseconds, as the decoded events' times; the styles (an ASS header) the decoder made.
  enc_->time_base = AV_TIME_BASE_Q;
  if (dec_->subtitle_header && dec_->subtitle_header_size > 0) {
    enc_->subtitle_header = static_cast<std::uint8_t*>(av_mallocz(dec_->subtitle_header_size + 1));
    if (!enc_->subtitle_header) outOfMemory("a subtitle conversion");
    std::memcpy(enc_->subtitle_header, dec_->subtitle_header, dec_->subtitle_header_size);
    enc_->subtitle_header_size = dec_->subtitle_header_size;
  }
  if (globalHeader) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  const int err = avcodec_open2(enc_.get(), encoder, nullptr);
  if (err < 0)
    throw MediaError(shown + ": the " + codecName(encoder) +
                     " subtitle encoder could not start: " + avError(err));
}

void SubtitleTranscoder::process(const AVPacket* packet, const Sink& out) {
  AVSubtitle sub{};
  int got = 0;
  // FFmpeg 5.1 takes the packet as non-const; the decoder does not change it.
  const int err = avcodec_decode_subtitle2(dec_.get(), &sub, &got, const_cast<AVPacket*>(packet));
  if (err < 0 || !got) return;  // an undecodable event is left out, as ffmpeg does
  std::unique_ptr<AVSubtitle, void (*)(AVSubtitle*)> owned(&sub, avsubtitle_free);
  if (sub.pts == AV_NOPTS_VALUE) return;
  // The event starts at pts (display offsets folded in) and lasts end - start.
  const std::int64_t start = sub.pts + av_rescale_q(sub.start_display_time, kMs, AV_TIME_BASE_Q);
  const std::uint32_t shown = sub.end_display_time - sub.start_display_time;
  sub.pts = start;
  sub.start_display_time = 0;
  sub.end_display_time = shown;
  const int size = avcodec_encode_subtitle(enc_.get(), buffer_.data(), int(buffer_.size()), &sub);
  if (size <= 0) return;
  av_packet_unref(pkt_.get());
  if (av_new_packet(pkt_.get(), size) < 0) outOfMemory("a subtitle conversion");
  std::memcpy(pkt_->data, buffer_.data(), std::size_t(size));
  pkt_->pts = pkt_->dts = av_rescale_q(start, AV_TIME_BASE_Q, enc_->time_base);
  pkt_->duration = av_rescale_q(shown, kMs, enc_->time_base);
  out(pkt_.get());
}

}  // namespace vf::media
