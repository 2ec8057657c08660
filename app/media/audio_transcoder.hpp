#pragma once
// Audio that the output's container cannot take as it is: decoded, resampled (swresample) to
// what the encoder takes, and encoded (AAC for mp4/mov, Opus for webm, or -c:a NAME), in the
// encoder's frame size. The timestamps of the first frame place the stream; a gap in the input
// (its timestamps jump ahead) is filled with silence, so what follows stays in sync.
#include <cstdint>
#include <functional>
#include <string>

#include "app/media/av.hpp"

extern "C" {
#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>
}

namespace vf::media {

// Where re-encoded audio is cut, on the output's timeline (AV_TIME_BASE): the samples before
// `fromUs` and from `toUs` on are left out (INT64_MIN, INT64_MAX: nothing cut).
struct AudioWindow {
  std::int64_t fromUs = INT64_MIN, toUs = INT64_MAX;
};

class AudioTranscoder {
 public:
  using Sink = std::function<void(AVPacket*)>;  // packets in timeBase()
  // Throws UsageError when there is no such encoder, MediaError when it cannot start. `rate`:
  // the sample rate the container holds alone (0: the input's, where the encoder takes it).
  AudioTranscoder(const AVStream* input, const AVCodec* encoder, bool globalHeader,
                  const std::string& shown, AudioWindow window = {}, int rate = 0);
  ~AudioTranscoder();
  AudioTranscoder(const AudioTranscoder&) = delete;
  AudioTranscoder& operator=(const AudioTranscoder&) = delete;

  const AVCodecContext* encoder() const { return enc_.get(); }
  AVRational timeBase() const { return enc_->time_base; }
  // One input packet (timestamps on the output's timeline, in the input stream's time base).
  void process(const AVPacket* packet, const Sink& out);
  void flush(const Sink& out);  // the rest, then the encoder's delay

 private:
  void decoded(AVFrame* f, const Sink& out);
  // Silence up to where `f` starts, when its timestamp is past the samples before it.
  void fillGap(const AVFrame* f, const Sink& out);
  void encodeFromFifo(bool all, const Sink& out);
  void drain(const Sink& out);

  std::string shown_;
  CodecPtr dec_, enc_;
  SwrContext* swr_ = nullptr;
  AVAudioFifo* fifo_ = nullptr;
  FramePtr in_, out_;
  PacketPtr pkt_;
  std::int64_t nextPts_ = AV_NOPTS_VALUE;  // in the encoder's time base (1/sample rate)
  AudioWindow window_;
};

}  // namespace vf::media
