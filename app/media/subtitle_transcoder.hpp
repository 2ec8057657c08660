#pragma once
// Text subtitles the output's container cannot take as they are (SubRip into .mp4, mov_text
// into .mkv): decoded to their events and encoded in the container's own text format (mov_text
// for .mp4/.mov, ASS for .mkv, WebVTT for .webm), with their times, as ffmpeg converts them.
// Bitmap subtitles (DVD, PGS) cannot become text: those are dropped with a warning.
#include <functional>
#include <string>
#include <vector>

#include "app/media/av.hpp"

namespace vf::media {

class SubtitleTranscoder {
 public:
  using Sink = std::function<void(AVPacket*)>;  // packets in timeBase()

  // Whether `input`'s subtitles are text that `encoder` (a text format) can write.
  static bool converts(const AVStream* input, const AVCodec* encoder);

  // Throws MediaError when the decoder or the encoder cannot start.
  SubtitleTranscoder(const AVStream* input, const AVCodec* encoder, bool globalHeader,
                     const std::string& shown);

  const AVCodecContext* encoder() const { return enc_.get(); }
  AVRational timeBase() const { return enc_->time_base; }
  // One input packet (timestamps on the output's timeline, in the input stream's time base).
  void process(const AVPacket* packet, const Sink& out);

 private:
  std::string shown_;
  CodecPtr dec_, enc_;
  PacketPtr pkt_;
  std::vector<std::uint8_t> buffer_;
};

}  // namespace vf::media
