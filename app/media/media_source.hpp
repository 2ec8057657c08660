#pragma once
// The frame source for everything libavformat reads: files, URLs and pipes. Frames decode (on
// the decoder's threads) and are converted straight into the engine's pinned slot, each with
// its presentation time on the output's timeline (the input's start and --ss taken off), so
// variable frame rates and gaps survive. --ss/--to are frame-exact: the input seeks to the
// keyframe before --ss, and frames before it decode but are not delivered. The other streams'
// packets go to a PacketRelay when an output wants them.
#include <atomic>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/media/decoder.hpp"
#include "app/media/demuxer.hpp"
#include "app/media/discontinuity.hpp"
#include "app/media/frame_convert.hpp"
#include "app/media/packet_relay.hpp"
#include "app/sources.hpp"

namespace vf::media {

// How messages name a source: "stream" (a URL), "pipe" or "file".
const char* kindOf(app::SourceKind k);

class MediaSource : public app::CaptureSource {
 public:
  MediaSource(const app::SourceSpec& spec, const app::InputOptions& options);
  ~MediaSource() override;

  bool live() const override { return live_; }
  std::int64_t frameCount() const override { return count_; }
  double fps() const override { return fps_; }
  FrameDesc firstFrameDesc() const override { return desc_; }
  std::string description() const override;
  // The hardware decoding in use ("cuvid", "cuda", "vaapi"), "" for software.
  std::string hwDevice() const;
  std::int64_t failedFrames() const override { return decoder_->failedPackets(); }
  std::vector<std::string> notes() const override { return notes_; }
  bool seekable() const override { return demuxer_.seekable() && !recording_; }
  void requestSeek(double seconds) override;
  bool next(const SlotFn& slot, FrameTime& time) override;

  // For the output: the input as demuxed (streams, metadata, chapters), its video stream, the
  // colour tags of its frames, and the offset taken off its timestamps (AV_TIME_BASE).
  const AVFormatContext* format() const { return demuxer_.context(); }
  int videoStream() const { return demuxer_.videoIndex(); }
  ColourTags colour() const { return colour_; }
  // The shape of its pixels (the stream's or the first frame's, as ffmpeg guesses it; 0/1:
  // unknown).
  AVRational sampleAspect() const { return sampleAspect_; }
  // Its frames' pixel format as decoded (after a hardware decoder's copy to the host), and its
  // video stream's field order (interlaced: which field first; AV_FIELD_UNKNOWN when unsaid).
  AVPixelFormat pixFmt() const { return pixFmt_; }
  AVFieldOrder fieldOrder() const;
  std::int64_t timelineOffset() const { return offset_; }
  // Whether --ss cut its start (the output's 0 is that point, not the input's first frame).
  bool cutsStart() const { return options_.start > 0; }
  // Where --to/-t ends the input (AV_TIME_BASE, the input's own timeline), or INT64_MAX.
  std::int64_t timelineEnd() const { return endUs_; }
  // Side streams go to `relay` from the next frame on; a recorded input no longer seeks.
  void attachRelay(std::shared_ptr<PacketRelay> relay);

 private:
  bool decodeNext();  // into frame_; false at the end
  bool nextWanted();  // decodeNext() past what --ss, --to and a seek leave out
  // Seeks so that the frame presented at `targetUs` gets decoded: again from further back when
  // the container lands after it (MPEG-TS seeks by an estimate). The demuxer's error where it
  // cannot seek (the reading left where it was, nothing decoded), else 0.
  int seekBefore(std::int64_t targetUs);
  std::int64_t endOfInput() const;  // AV_TIME_BASE: start + duration, or INT64_MAX
  std::int64_t timestampOf(const AVFrame* f) const;
  std::int64_t frameStep() const;  // one frame at the nominal rate, in the stream's time base
  void relay(AVPacket* p);
  bool endOfStream();
  void warnIfShort();
  // Once the video reached the span's end (--to, -t): the audio stored behind it in the file
  // (MPEG-TS muxes audio up to seconds after the video of the same time) read and relayed up to
  // that end too.
  void relayToEnd();                   // warns when the video ends well before its declared length
  void note(const std::string& text);  // a warning, kept for notes()
  void applySeek();
  void stamp(FrameTime& time);

  app::SourceSpec spec_;
  app::InputOptions options_;
  Demuxer demuxer_;
  Discontinuities discont_;
  std::unique_ptr<VideoDecoder> decoder_;
  FrameConverter converter_;
  FramePtr frame_;
  PacketPtr packet_;
  std::shared_ptr<PacketRelay> relay_;
  std::deque<PacketPtr> early_;  // side packets read before the output said what it takes
  bool relayDecided_ = false;
  FrameDesc desc_;
  ColourTags colour_;
  AVRational tb_{1, 1}, sampleAspect_{0, 1};
  AVPixelFormat pixFmt_ = AV_PIX_FMT_NONE;
  std::int64_t offset_ = 0;                  // AV_TIME_BASE: input start + --ss
  std::int64_t endUs_ = INT64_MAX;           // AV_TIME_BASE: input start + --to
  std::int64_t startPts_ = 0, endPts_ = 0;   // stream time base
  std::int64_t skipBelow_ = AV_NOPTS_VALUE;  // a seek's target (stream time base)
  bool held_ = false;  // frame_ holds a decoded frame nextWanted() has not examined
  // A read that failed part way (a list's missing file, an I/O error): thrown once the decoder
  // has given up the frames it held.
  std::exception_ptr readError_;
  bool exactCount_ = false;     // count_ is the container's, not an estimate from the duration
  bool lengthUnknown_ = false;  // the container's count and length are placeholders
  bool hasEnd_ = false, live_ = false, pending_ = false, eof_ = false, recording_ = false;
  bool atEnd_ = false;  // the span asked for (--to, -t) is done
  double fps_ = 0;
  std::int64_t count_ = -1, delivered_ = 0, lastPts_ = AV_NOPTS_VALUE, lastDuration_ = 0;
  std::int64_t backwards_ = 0;  // frames left out whose times went back (nextWanted)
  // In a stream without timestamps (Demuxer::timed), the time of the next decoded frame (stream
  // time base); unknown elsewhere, and after a seek.
  std::int64_t untimedNext_ = AV_NOPTS_VALUE;
  std::atomic<double> seekTo_{-1};
  std::vector<std::string> notes_;  // the warnings of its end (note())
};

}  // namespace vf::media
