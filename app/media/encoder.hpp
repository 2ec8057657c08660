#pragma once
// The video encoder of an output: any libavcodec encoder by name, with --crf, --preset,
// --bitrate and --pix-fmt, sane defaults where libavcodec's are poor (VP9 and AV1 at constant
// quality, not 256 kb/s; MPEG-4 part 2 at quality 3, not 200 kb/s), the frames' own timestamps
// where the container keeps them (variable frame rates stay variable), the input's colour tags
// and pixel shape, and encoder logs through ours.
#include <string>

#include "app/media/av.hpp"
#include "app/media/frame_convert.hpp"
#include "app/media/output_spec.hpp"
#include "pipeline/frame.hpp"

namespace vf::media {

struct EncoderInput {
  FrameDesc desc;             // the chain's output
  AVRational timeBase;        // of the frames' FrameTime ({0, 0}: unknown)
  double fps = 0;             // nominal (0: unknown)
  bool constantRate = false;  // the container keeps no timestamps: frames are numbered
  bool rateTimeBase = false;  // the container's time base is the frame rate (AVI): gaps stay
  bool globalHeader = false;  // the container wants the codec's headers out of band
  ColourTags colour;
  AVRational sampleAspect{1, 1};                 // the input's pixel shape (unknown: square)
  AVPixelFormat sourcePixFmt = AV_PIX_FMT_NONE;  // the input's, as decoded (NONE: not a video)
  AVFieldOrder fieldOrder = AV_FIELD_UNKNOWN;    // the input's (interlaced: which field first)
  std::string muxer;
};

class VideoEncoder {
 public:
  // Throws UsageError when the encoder refuses the settings, MediaError when it cannot start.
  VideoEncoder(const EncoderSettings& settings, const EncoderInput& input,
               const std::string& shown);

  AVCodecContext* context() const { return ctx_.get(); }
  // A frame of the encoder's size and pixel format, for the converter to fill.
  FramePtr allocFrame() const;
  // Where the container keeps no timestamps (y4m, raw video) and the frames' own times are
  // known, each frame is shown in the slots of the nominal rate its time spans, so the output
  // lasts as long as the input (ffmpeg's constant-rate sync): a gap before a frame repeats the
  // frame before it, and a frame that comes before its slot is left out. Elsewhere every frame
  // takes one slot, as it comes.
  struct Slots {
    std::int64_t repeatPrevious = 0;  // slots the frame before this one fills again first
    bool own = true;                  // this frame takes a slot
  };
  Slots slotsFor(const FrameTime& t);
  // At the end: the slots the last frame fills again, to its end.
  std::int64_t slotsAtEnd();
  // Frames are placed in slots (slotsFor can ask for repeats).
  bool fillsSlots() const { return constantRate_; }
  // The time base is one frame of the rate (AVI, MPEG-1/2, Theora) while the frames keep their
  // own times: slotsFor leaves out a frame that has no tick of its own.
  bool timesWholeFrames() const { return wholeFrames_; }
  // The frame's presentation time in the encoder's time base (strictly increasing); once per
  // frame written, repeats included.
  std::int64_t ptsFor(const FrameTime& t);
  // Frames closer together than one tick of the container's time base (Matroska's 1 ms, GIF's
  // 10 ms) are moved apart by one before they are encoded: after the encoder reorders them, the
  // container could not tell them apart, and would play them out of order.
  void keepApartIn(AVRational containerTimeBase);
  // nullptr: the end (drain). Throws MediaError with the encoder's reason.
  void send(AVFrame* frame);
  // The next packet into `out` (time base: the encoder's). False when it needs more frames.
  bool receive(AVPacket* out);
  const ColourTags& colour() const { return colour_; }
  std::string summary() const;  // "h264 (libx264) yuv420p, crf 23"
  // The frames' alpha is written and kept (yuva420p in WebM, ProRes 4444, PNG, ...).
  bool keepsAlpha() const;

 private:
  void applySettings(const EncoderSettings& s);

  const AVCodec* codec_ = nullptr;
  CodecPtr ctx_;
  ColourTags colour_;
  std::string shown_, muxer_, rateText_;
  bool constantRate_ = false;
  bool wholeFrames_ = false;   // timesWholeFrames()
  double rate_ = 25;           // frames a second written, constant-rate outputs
  double firstSeconds_ = 0;    // the first frame's time
  double lastEndSeconds_ = 0;  // the last frame's end
  bool timed_ = false;         // frames' times taken
  std::int64_t slots_ = 0;     // constant-rate slots filled so far (slotsFor)
  std::int64_t counter_ = 0, last_ = AV_NOPTS_VALUE;
  std::int64_t step_ = 1;  // the least distance between two frames' pts (keepApartIn)
  AVRational containerTimeBase_{1, 1};
  bool tickMoveSaid_ = false;
};

}  // namespace vf::media
