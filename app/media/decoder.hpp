#pragma once
// A video stream's decoder: frame and slice threads for files (several frames decode at once),
// slice threads only for live sources (no added latency), optional hardware decoding (NVIDIA's
// cuvid decoders, or a hwaccel; app/media/hwdec.hpp). Frames
// come back in presentation order with their timestamps (best effort) and, when decoded on a
// device, already copied to the host.
#include <memory>
#include <string>

#include "app/media/av.hpp"
#include "app/media/pinned_frames.hpp"

namespace vf::media {

class VideoDecoder {
 public:
  // `threads`: 0 one per core (inputs decoded at once share the cores: fewer each). `pciAddresses`:
  // the GPU NVIDIA's decoders use (decoderDevice). Throws UsageError when no decoder exists for
  // the stream's codec.
  VideoDecoder(const AVStream* stream, bool live, const std::string& hwdec,
               const std::string& pciAddresses, const std::string& shown, int threads = 0);

  // Feeds one packet (nullptr: the end; the decoder then drains); call only after receive()
  // returned false. A packet the decoder rejects (damaged data, or a part of the format its
  // decoder lacks: one bad PNG or JPEG frame) is counted (failedPackets) and skipped, as ffmpeg
  // skips it; MediaError when memory runs out, or when kFailuresInARow packets in a row fail
  // for another reason than damaged data (a decoder that reads none of them).
  void send(const AVPacket* packet);
  // The next decoded frame into `out` (host memory). False when the decoder needs more input
  // or has drained.
  bool receive(AVFrame* out);
  // Forgets everything buffered (after a seek).
  void flush();

  std::int64_t failedPackets() const { return failed_; }
  const AVCodecContext* context() const { return ctx_.get(); }
  const std::string& hwDevice() const { return hw_; }

 private:
  std::shared_ptr<PinnedFrames> pinned_;  // NVDEC's host frames; outlives ctx_
  CodecPtr ctx_;
  FramePtr hwFrame_;
  std::string shown_, hw_;   // hw_: "cuvid", a hwaccel's device type, or "" (software)
  bool transfer_ = false;    // frames decode into device memory (a hwaccel) and are copied back
  bool unsetRange_ = false;  // cuvid's frames: the stream declares no range, so neither do they
  // A packet or frame that failed with `err`: counted, or MediaError (see send).
  void failed(int err);

  std::int64_t failed_ = 0;
  int inARow_ = 0;  // failures (sending or receiving) of another kind than damaged data since
                    // the last frame or flush
};

// Packets in a row that fail for another reason than damaged data before a decoder is given up.
constexpr int kFailuresInARow = 25;

}  // namespace vf::media
