#pragma once
// The output container: the encoded video, the input's other streams (SideStreams), metadata,
// chapters and rotation from the input, written to a file, stdout or a network URL. Every
// write and the close are checked: a failure ends the run with the OS's reason (exit 1), never
// as success. On a file, the run stops while there is still room for the container's index
// (disk nearly full, or the file size limit of ulimit -f), so what was written plays; at the
// end the file is read back and must hold every frame written.
#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "app/media/av.hpp"
#include "app/media/chapters.hpp"
#include "app/media/output_spec.hpp"
#include "app/media/side_streams.hpp"

namespace vf::media {

struct MuxerInput {
  const AVFormatContext* format = nullptr;  // the input, when demuxed by FFmpeg
  int videoStream = -1;
  std::int64_t offsetUs = 0;       // taken off the input's timestamps (start, --ss)
  std::int64_t endUs = INT64_MAX;  // where --to ends the input (chapters are cut there)
  bool cutStart = false;           // --ss: nothing before the output's 0 (re-encoded audio)
};

// A stop for want of room (the disk nearly full, ulimit -f reached), before the packet that
// would not fit: the output is then closed with the frames before it. The message says what
// that left: a file that plays, or, once closeFailed was called, one whose close failed too.
// The one exception object travels from the writer to the run's end, where it is shown, so
// the close that follows the stop amends it in place.
class OutOfRoom : public MediaError {
 public:
  OutOfRoom(std::string cause, std::int64_t frames, std::string advice);
  void closeFailed(const std::string& why);
  // The file it closed was removed after (a batch task's partial file, whose space it gives
  // back).
  void removed();
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string cause_, advice_, text_;
  std::int64_t frames_;
};

// A pipe's reader that went away (EPIPE on stdout, a FIFO, a socket): where a stop signal
// reached the reader too (Ctrl-C in a terminal signals the whole pipeline), the stop's
// consequence, not the run's failure.
class ReaderGone : public MediaError {
 public:
  using MediaError::MediaError;
};

class Muxer {
 public:
  // Allocates the container (no file yet). Throws UsageError for a container FFmpeg lacks.
  explicit Muxer(const OutputSpec& spec);
  ~Muxer();
  Muxer(const Muxer&) = delete;
  Muxer& operator=(const Muxer&) = delete;

  AVFormatContext* context() const { return ctx_.get(); }
  bool wantsGlobalHeader() const;
  // The video stream from the opened encoder, then the input's other streams and its tags.
  void addStreams(const AVCodecContext* video, const MuxerInput& input);
  SideStreams* side() const { return side_.get(); }
  // Creates the file (or connects) and writes the header. Throws MediaError.
  void open();

  // One video packet (time base: the encoder's) or relayed side packet. Throws MediaError.
  void writeVideo(AVPacket* p, AVRational tb);
  void writeSide(AVPacket* p, bool complete);
  // Whether side packet `p` starts before the end of the video written so far.
  bool sideDue(const AVPacket* p) const { return !side_ || side_->before(p, videoEndUs_); }
  std::int64_t videoPackets() const { return videoPackets_; }
  std::int64_t videoEndUs() const { return videoEndUs_; }

  // From here on writes use the room kept in reserve (the run is ending).
  void beginFinishing() { finishing_ = true; }
  // The re-encoded side streams' last packets (unless `flushSide` is false: after a failure),
  // trailer, close, and for a file the read-back of the frame count. Throws MediaError.
  void finish(bool flushSide = true);

 private:
  // A write or close that failed with `err` ("writing", "finishing"): MediaError, ReaderGone
  // for EPIPE.
  [[noreturn]] void failed(const char* doing, int err) const;
  // A header the muxer refused (`err`, with the reason it logged, "" when none): the file it
  // began removed, an error naming the streams.
  [[noreturn]] void refused(int err, const std::string& reason);
  void write(AVPacket* p);
  void checkRoom(std::int64_t nextPacketBytes);
  // A copied AAC packet whose ADTS header does not parse: said, counted, left out (true).
  bool damagedAdts(const AVPacket* p);
  void copyTags(const MuxerInput& input);
  void verify() const;
  void checkRotation(const AVStream* written) const;  // the video stream read back
  void warnRotationLost() const;

  OutputSpec spec_;
  std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> ctx_;
  std::unique_ptr<SideStreams> side_;
  bool opened_ = false, finished_ = false, finishing_ = false;
  std::int64_t videoPackets_ = 0, videoEndUs_ = 0, packets_ = 0, biggestPacket_ = 0;
  std::int64_t contentEndUs_ = 0;  // the end of the last packet of any stream, output time
  OutputChapters chapters_;
  std::int64_t emptyVideoPackets_ = 0;     // packets of no bytes, which some containers leave out
  std::int64_t lastVideoDts_ = INT64_MIN;  // in the stream's time base
  bool tickMoveSaid_ = false;
  std::map<int, std::int64_t> damaged_;  // damaged copied packets left out, by stream
  std::atomic<bool> opening_{false};     // avio_open2 under way: a stop may cut it
  // The header's bytes and the packets' bytes given to the muxer: what the file holds once
  // FFmpeg's buffers reach it (the I/O buffer, Matroska's open cluster), less the containers'
  // own framing.
  std::int64_t headerBytes_ = 0, payloadBytes_ = 0;
  // y4m's packets carry a frame by reference (wrapped_avframe): the bytes a frame becomes in the
  // file (its samples and "FRAME\n"), 0 where a packet's size is what it writes.
  std::int64_t wrappedFrameBytes_ = 0;
  double rotation_ = 0;  // the input video's display rotation, degrees anticlockwise (0: none)
};

}  // namespace vf::media
