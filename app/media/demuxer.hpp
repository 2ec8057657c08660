#pragma once
// An input opened with libavformat: a file, a URL (rtsp, udp, http, srt, ...) or a pipe. Picks
// the video stream; reads packets in order; seeks. Blocking opens and reads end on the first
// SIGINT/SIGTERM (stdin and FIFOs are read through poll()), network opens after 10 s and network
// reads after 5 s without data.
#include <string>

#include "app/media/av.hpp"
#include "app/media/logged_errors.hpp"

namespace vf::media {

struct DemuxRequest {
  std::string url;       // a path, "pipe:0" or a URL
  std::string shown;     // what the user wrote, for messages
  bool network = false;  // bounded waits
  // Raw video on a pipe (no header): size "WxH", pixel format, rate.
  std::string rawSize, rawPixFmt;
  double rawRate = 0;
  std::string format;  // the demuxer by name ("": probed; "rawvideo": raw video, as --size)
};

// Whether a network input's URL waits for its sender to connect (tcp and rtmp with listen, srt
// in listener mode) or sets a timeout of its own: the open then gets no 10 s limit.
bool waitsForASender(const std::string& url);

class Demuxer {
 public:
  // Throws UsageError when the input cannot be opened or holds no video stream.
  explicit Demuxer(const DemuxRequest& request);
  Demuxer(const Demuxer&) = delete;
  Demuxer& operator=(const Demuxer&) = delete;

  AVFormatContext* context() const { return ctx_.get(); }
  AVStream* video() const { return ctx_->streams[videoIndex_]; }
  int videoIndex() const { return videoIndex_; }
  // The input's start time in AV_TIME_BASE units (0 when unknown): output timestamps count
  // from it, as ffmpeg's do.
  std::int64_t startTime() const;
  bool seekable() const;
  // A pipe (stdin or a FIFO) that closed without sending a byte.
  bool pipeSentNothing() const { return stdinIo_ && pipeBytes_ == 0; }
  std::string nothingSent() const;  // the message for it
  // Read as raw video (--size / --input-pix-fmt given, and not a file holding a container).
  bool raw() const { return raw_; }

  // The next packet (any stream). False at the end, when a signal ended the read, or when a
  // network stream failed or sent nothing for 5 s (then `stalled()`). Throws MediaError for a
  // read error on a file or pipe (the OS's reason), UsageError for an MP4 on a pipe whose index
  // follows its frames.
  bool read(AVPacket* packet);
  bool stalled() const { return stalled_; }
  bool interrupted() const { return interrupted_; }  // a signal ended the reading
  // Errors the demuxer logged (damage it skipped over) since the input opened.
  int loggedErrors() const { return errors_ ? errors_->count() : 0; }
  // Whether the input knows its start time or its length: a stream without timestamps (raw
  // H.264, MPEG-2 video) knows neither.
  bool timed() const;
  // Seeks so that the next packets start at the keyframe at or before `ts` (AV_TIME_BASE). A
  // negative AVERROR where the demuxer cannot (a raw H.264 stream): the reading is where it was.
  int seek(std::int64_t ts);
  // Ends a read blocked in another thread.
  void cancel() { interrupter_.cancel(); }

 private:
  // stdin or a FIFO (the descriptor at `opaque`): read through poll() so that a signal ends a
  // blocked read whatever the handler's flags and whichever thread the signal reached (FFmpeg's
  // file protocol blocks in read() until a silent writer writes or closes).
  static int readPipe(void* opaque, std::uint8_t* buf, int size);
  // "stdin (-i -)" or "the FIFO 'path'".
  std::string pipeName() const;
  // An MP4/MOV read from a pipe: one whose index follows its frames fails there with
  // AVERROR_INVALIDDATA, and the hint says how to give it.
  bool movOnAPipe() const;
  std::string movOnAPipeHint() const;
  struct IoDeleter {
    void operator()(AVIOContext* io) const;
  };
  struct Fd {
    int fd = -1;
    ~Fd();
  };

  DemuxRequest request_;
  Interrupter interrupter_;
  Fd fifo_;  // a FIFO named by -i, opened here
  bool raw_ = false;
  std::int64_t pipeBytes_ = 0;                       // read from the pipe so far
  int pipeFd_ = 0;                                   // what the pipe reads: stdin or fifo_
  std::unique_ptr<AVIOContext, IoDeleter> stdinIo_;  // outlives ctx_ (declared first)
  InputPtr ctx_;
  std::unique_ptr<LoggedErrors> errors_;  // of ctx_ (declared after it: ends first)
  int videoIndex_ = -1;
  std::int64_t packets_ = 0;  // read so far
  bool stalled_ = false, interrupted_ = false;
};

}  // namespace vf::media
