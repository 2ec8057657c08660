#pragma once
// What every FFmpeg-facing file here shares: owning pointers for libav* objects, the error
// type for failures while running (exit 1, with FFmpeg's or the OS's reason), the interrupt
// callback that ends a blocking open or read on the first SIGINT/SIGTERM, and FFmpeg's log
// routed through ours.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace vf::media {

// A failure while running (reading, decoding, encoding, writing): exit status 1. What the user
// wrote wrong is an app::UsageError instead (exit 2).
class MediaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failed allocation, as a MediaError that says so ("decoding a frame: out of memory").
[[noreturn]] void outOfMemory(const std::string& what);

// FFmpeg's text for an AVERROR code ("No space left on device", "Invalid data found when
// processing input").
std::string avError(int code);

struct FormatInputDeleter {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
struct DictDeleter {
  void operator()(AVDictionary* d) const { av_dict_free(&d); }
};
using InputPtr = std::unique_ptr<AVFormatContext, FormatInputDeleter>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

FramePtr makeFrame();
PacketPtr makePacket();

// An AVDictionary of options that frees itself; what FFmpeg did not consume can be listed.
class Options {
 public:
  Options() = default;
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  ~Options() { av_dict_free(&d_); }
  void set(const char* key, const std::string& value) { av_dict_set(&d_, key, value.c_str(), 0); }
  AVDictionary** ptr() { return &d_; }
  // Keys FFmpeg did not use (after an open that consumes them), comma-separated; "" if none.
  std::string unused() const;

 private:
  AVDictionary* d_ = nullptr;
};

// A stream's tags for its copy in an output (`out`), without those that would describe the
// input's stream and not the output's: the statistics Matroska muxers write (mkvmerge's BPS,
// NUMBER_OF_FRAMES, NUMBER_OF_BYTES, DURATION, named in _STATISTICS_TAGS, and those tags),
// when the stream is re-encoded or cut; DURATION only when it is cut. (On a pipe, Matroska's
// muxer takes the output's length from a DURATION tag.)
void copyStreamTags(AVDictionary** out, const AVDictionary* in, bool reencoded, bool cut);

// Ends blocking FFmpeg I/O: on the first SIGINT/SIGTERM, and when a deadline set with arm()
// passes (a network open that hangs). Give `callback()` to an AVFormatContext.
class Interrupter {
 public:
  using Clock = std::chrono::steady_clock;
  void arm(std::chrono::milliseconds within) {
    expired_.store(false);
    deadline_.store((Clock::now() + within).time_since_epoch().count());
  }
  void disarm() { deadline_.store(0); }
  void cancel() { cancelled_.store(true); }  // ends reads from another thread (the source closes)
  bool expired() const;                      // the deadline passed
  AVIOInterruptCB callback() { return {&Interrupter::check, this}; }

 private:
  static int check(void* self);
  std::atomic<Clock::rep> deadline_{0};
  std::atomic<bool> cancelled_{false};
  mutable std::atomic<bool> expired_{false};
};

// Packets every muxer of the process has written (handed to FFmpeg and returned from it): the
// watcher tells a slow output from one whose reader stopped reading by it.
std::int64_t packetsMuxed();
void countPacketMuxed();

// FFmpeg's log lines go to our logger: its warnings and errors at debug (our own messages say
// what failed), its information at trace. Called when the log level changes.
void routeLogs();

// Throws UsageError when FFmpeg's encoders cannot take w x h frames ((w + 128) x (h + 128)
// past INT_MAX / 8 bytes), naming `shown` (the output) and the limit.
void checkEncodableSize(const std::string& shown, int w, int h);

// Whether the muxer `f` writes streams of codec `id`: avformat_query_codec (1, 0, or negative
// where the muxer does not say); and Matroska writes the video and audio codecs that have a
// Video for Windows or ACM tag (Ut Video, pcm_mulaw, ADPCM) through it, which its query names
// only below normal strictness.
int queryMuxerCodec(const AVOutputFormat* f, AVCodecID id);

// The session description of an RTP output (its header written) on stdout, after "SDP:", as
// ffmpeg prints it: what a receiver opens (ffplay -protocol_whitelist file,udp,rtp s.sdp).
void printSdp(AVFormatContext* rtp);

// "h264 (libx264)" for messages.
std::string codecName(const AVCodec* c);

// The rotation a stream's display matrix asks for, in degrees anticlockwise; 0 without one (or
// for a whole turn).
double rotationOf(const AVStream* stream);

// The MP4 family's muxers (mp4, mov, ipod, ismv, 3gp, f4v); with Matroska's (matroska, webm):
// the containers that hold rotation, colour tags and chapters in their own index.
bool isMp4Family(const std::string& muxer);
bool isMp4OrMatroska(const std::string& muxer);

// A file name's extension, lower case, without its dot ("png"; "" where it has none).
std::string lowerExtension(const std::string& path);

// The length of the video stream `v` of `f` as its container declares it (AV_TIME_BASE units),
// -1 when it declares none. Matroska declares where its streams end (their DURATION tag), counted
// from 0, not from the start time: then `fromZero` is set. Matroska's demuxer gives its streams no
// length of their own (FFmpeg's estimate is the whole file's: one frame under 10 s of audio
// "lasts" 10 s); the file's own length is the video's only where it holds the video alone.
std::int64_t declaredVideoLength(const AVFormatContext* f, const AVStream* v, bool& fromZero);

// A sample aspect ratio `sar` (0/1: unknown) after the pixels' shape changed by `reshape`, as
// ffmpeg's scale keeps the displayed picture's shape: sar x reshape, reduced; unknown stays so.
AVRational reshapedAspect(AVRational sar, AVRational reshape);

// A decoder for `stream`'s packets, open (packet times in the stream's time base). MediaError
// naming `shown` and `what` ("audio", "subtitle") when there is none or it cannot start.
CodecPtr openStreamDecoder(const AVStream* stream, const std::string& shown, const char* what);

}  // namespace vf::media
