#include "app/media/demuxer.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "app/interrupt.hpp"
#include "app/media/network_error.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::media {

namespace {

constexpr auto kOpenTimeout = std::chrono::milliseconds(10000);
constexpr const char* kReadTimeoutUs = "5000000";
constexpr auto kReadTimeout = std::chrono::milliseconds(5000);

using app::UsageError;

// Whether the file at `path` opens and reads: an error a demuxer gave while it does (EIO on a
// cut Matroska header, EBUSY on a y4m header's impossible size) is the data's.
bool fileReads(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char byte = 0;
  const bool reads = ::read(fd, &byte, 1) >= 0;
  ::close(fd);
  return reads;
}

// An input file the OS would not open for a reason of its own (too many open files, an I/O
// error, no memory): its reason, and the run's fault rather than the file's. Empty for the
// reasons that are the file's or the user's (missing, not readable, not a video, an error code
// its demuxer gave for its data), and for pipes and streams.
std::string systemFailure(const DemuxRequest& r, int err) {
  if (r.network || r.url == "pipe:0" || err >= 0 || err <= -4096) return "";
  const int e = AVUNERROR(err);
  if (e == ENOENT || e == EACCES || e == EINVAL) return "";
  const std::string path = r.url.rfind("file:", 0) == 0 ? r.url.substr(5) : r.url;
  if (e != ENOMEM && fileReads(path)) return "";
  std::string m = "input file " + quote(r.shown) + " could not be opened: " + std::strerror(e);
  if (e == EMFILE || e == ENFILE)
    m += " (allow more with ulimit -n, or run fewer inputs at once with --jobs)";
  return m;
}

// A name whose extension raw frames are stored under (no header: FFmpeg does not probe them).
bool rawVideoName(const std::string& name) {
  const std::string ext = lowerExtension(name);
  for (const char* raw : {"yuv", "raw", "rgb", "bgr", "rgba", "bgra", "nv12", "gray"})
    if (ext == raw) return true;
  return false;
}

// `reason`: what the demuxer logged as its error ("" when nothing).
std::string openFailure(const DemuxRequest& r, int err, const std::string& reason = "") {
  // A list that reads as one but names a file that is not there is the entry's fault.
  if (r.format == "concat" && err == AVERROR(ENOENT))
    return "the concat list " + quote(r.shown) +
           " names a file that does not exist (its names are taken relative to the list's "
           "directory)";
  if (!r.format.empty() && !r.network && (err == AVERROR_INVALIDDATA || err == AVERROR_EOF))
    return quote(r.shown) + " does not read as " + r.format + " (" + avError(err) +
           "), the format -f before -i (--input-format) names; leave it out to find the format "
           "from the input";
  if (r.network)
    return "stream " + quote(r.shown) + " could not be opened: " +
           networkFailure(r.url, err,
                          "nothing is sending there, wrong address, or FFmpeg cannot read that "
                          "protocol");
  if (r.url == "pipe:0")
    return "stdin (-i -) holds no video FFmpeg can read (" + avError(err) +
           "); send y4m (ffmpeg ... -f yuv4mpegpipe -) or raw video with --size and "
           "--input-pix-fmt";
  if (err == AVERROR(EACCES))
    return "input file " + quote(r.shown) + " is not readable (permission denied)";
  if (err == AVERROR(ENOENT))
    return "input file " + quote(r.shown) +
           " not found; check the path (cameras are cam0, cam1, ...)";
  if ((err == AVERROR_INVALIDDATA || err == AVERROR(EINVAL)) && rawVideoName(r.shown))
    return "input file " + quote(r.shown) +
           " has no header FFmpeg can read: if it is raw video, give its frame size with --size "
           "WxH (and --input-pix-fmt, yuv420p by default; --rate, 25 by default)";
  return "input file " + quote(r.shown) + " is not a video FFmpeg can read (wrong format or " +
         (reason.empty() ? "damaged)" : "damaged; its demuxer: " + printable(reason, 400) + ")");
}

// The container the first bytes of a pipe declare, by content alone; "" for raw video. The
// bytes read stay in the context's buffer, read again by the demuxer.
std::string containerOf(AVIOContext* pb) {
  const AVInputFormat* f = nullptr;
  const int score = av_probe_input_buffer2(pb, &f, "", nullptr, 0, 4096);
  if (!f || score <= AVPROBE_SCORE_EXTENSION) return "";
  return f->long_name ? f->long_name : f->name;
}

// The container a regular file's first bytes declare (mp4, matroska, y4m, ...), by content
// alone (no name, so no extension match); "" for raw video and anything not recognised.
std::string containerOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::vector<std::uint8_t> head(4096 + AVPROBE_PADDING_SIZE, 0);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const ssize_t n = ::read(fd, head.data(), 4096);
  ::close(fd);
  if (n <= 0) return "";
  AVProbeData pd{};
  pd.filename = "";
  pd.buf = head.data();
  pd.buf_size = static_cast<int>(n);
  int score = 0;
  const AVInputFormat* f = av_probe_input_format3(&pd, 1, &score);
  if (!f || score <= AVPROBE_SCORE_EXTENSION) return "";
  return f->long_name ? f->long_name : f->name;
}

}  // namespace

void Demuxer::IoDeleter::operator()(AVIOContext* io) const {
  av_freep(&io->buffer);
  avio_context_free(&io);
}

bool Demuxer::movOnAPipe() const {
  return stdinIo_ && ctx_ && ctx_->iformat &&
         std::string(ctx_->iformat->name).find("mp4") != std::string::npos;
}

std::string Demuxer::movOnAPipeHint() const {
  return pipeName() +
         " holds an MP4/MOV whose index (moov) follows its frames, and a pipe cannot go back to "
         "them: give the file itself (-i FILE), make it streamable first (ffmpeg -i IN -c copy "
         "-movflags +faststart OUT.mp4), or pipe Matroska or MPEG-TS (-f matroska -)";
}

std::string Demuxer::pipeName() const {
  return request_.url == "pipe:0" ? std::string("stdin (-i -)")
                                  : "the FIFO " + quote(request_.shown);
}

std::string Demuxer::nothingSent() const {
  return pipeName() + " closed without sending any data; did the command writing into it fail?";
}

Demuxer::Fd::~Fd() {
  if (fd >= 0) ::close(fd);
}

int Demuxer::readPipe(void* opaque, std::uint8_t* buf, int size) {
  auto* self = static_cast<Demuxer*>(opaque);
  const int fd = self->pipeFd_;
  for (;;) {
    if (app::interruptSignal()) return AVERROR_EXIT;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) return AVERROR(errno);
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, static_cast<std::size_t>(size));
    if (n > 0) {
      self->pipeBytes_ += n;
      return static_cast<int>(n);
    }
    if (n == 0) return AVERROR_EOF;
    if (errno != EINTR && errno != EAGAIN) return AVERROR(errno);
  }
}

bool waitsForASender(const std::string& url) {
  const auto q = url.find('?');
  if (q == std::string::npos) return false;
  std::string query = "&" + url.substr(q + 1) + "&";
  const auto has = [&](const char* key) {
    const std::string k = std::string("&") + key;
    const auto at = query.find(k);
    return at != std::string::npos && (query[at + k.size()] == '=' || query[at + k.size()] == '&');
  };
  const bool listens = (has("listen") && query.find("&listen=0&") == std::string::npos) ||
                       query.find("&mode=listener&") != std::string::npos;
  return listens || has("timeout") || has("listen_timeout");
}

Demuxer::Demuxer(const DemuxRequest& request) : request_(request) {
  AVFormatContext* raw = avformat_alloc_context();
  if (!raw) outOfMemory("opening the input");
  raw->interrupt_callback = interrupter_.callback();
  struct stat st {};
  const std::string path = request.url.rfind("file:", 0) == 0 ? request.url.substr(5) : "";
  if (!path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
    fifo_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // waits for a writer; EINTR on a stop
    if (fifo_.fd < 0) {
      const int err = errno;
      avformat_free_context(raw);
      if (app::interruptSignal()) throw MediaError("interrupted while opening " + request.shown);
      throw UsageError("input " + quote(request.shown) +
                       " (a FIFO) cannot be opened: " + std::strerror(err));
    }
    pipeFd_ = fifo_.fd;
  }
  if (request.url == "pipe:0" || fifo_.fd >= 0) {
    auto* buffer = static_cast<std::uint8_t*>(av_malloc(1 << 16));
    AVIOContext* io =
        buffer ? avio_alloc_context(buffer, 1 << 16, 0, this, readPipe, nullptr, nullptr) : nullptr;
    if (!io) {
      av_free(buffer);
      avformat_free_context(raw);
      outOfMemory("opening the input");
    }
    stdinIo_.reset(io);
    raw->pb = io;
    raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  }
  Options opts;
  const AVInputFormat* format = nullptr;
  const bool rawOptions = !request.rawSize.empty() || !request.rawPixFmt.empty();
  const bool rawNamed = request.format == "rawvideo";
  raw_ = rawNamed || (rawOptions && request.format.empty());
  if (!request.format.empty() && !rawNamed) {
    format = av_find_input_format(request.format.c_str());
    if (!format) {
      avformat_free_context(raw);
      throw UsageError("FFmpeg has no demuxer " + quote(request.format));  // checkInputFormat
    }
    if (rawOptions)
      spdlog::warn("{}: --size and --input-pix-fmt describe raw video, not {}: they do not apply",
                   request.shown, request.format);
  }
  if (raw_ && !rawNamed) {
    // --size and --input-pix-fmt describe raw video: input that is a container (y4m on stdin,
    // an mp4 file) keeps its own.
    const std::string c = raw->pb ? containerOf(raw->pb) : containerOf(path);
    if (!c.empty()) {
      spdlog::warn("{}: holds {}, not raw video: --size and --input-pix-fmt do not apply to it",
                   request.shown, c);
      raw_ = false;
    }
  }
  if (raw_ && request.rawSize.empty()) {
    avformat_free_context(raw);
    throw UsageError(quote(request.shown) +
                     ": raw video needs its frame size: give --size WxH (with --input-pix-fmt)");
  }
  if (raw_) {
    format = av_find_input_format("rawvideo");
    if (!request.rawSize.empty()) opts.set("video_size", request.rawSize);
    opts.set("pixel_format", request.rawPixFmt.empty() ? "yuv420p" : request.rawPixFmt);
    opts.set("framerate", std::to_string(request.rawRate > 0 ? request.rawRate : 25.0));
  }
  // A concat list file's entries are files the user's list names (guarded as inputs:
  // listed_files.hpp); FFmpeg's safe mode would refuse absolute paths and most names. A list on
  // stdin cannot be read ahead, so it keeps the safe mode.
  if (request.url.rfind("file:", 0) == 0) opts.set("safe", "0");
  // A session description (.sdp, -f sdp) names the RTP stream to receive: FFmpeg lets it reach
  // files only unless told, so it could never be received (ffmpeg's -protocol_whitelist).
  if (request.url.rfind("file:", 0) == 0 &&
      (request.format == "sdp" || lowerExtension(request.shown) == "sdp"))
    opts.set("protocol_whitelist", "file,crypto,data,udp,rtp");
  if (request.network) {
    opts.set("rw_timeout", kReadTimeoutUs);
    // A listener waits for its sender as long as it takes (a signal ends the wait), or as long
    // as the URL's own timeout says; anything else gets 10 s.
    if (!waitsForASender(request.url))
      interrupter_.arm(kOpenTimeout);
    else
      spdlog::info("{}: waiting for a sender to connect (Ctrl-C stops)", request.shown);
  }
  // What the demuxer logs while it opens (the context is freed on failure; its address is only
  // compared).
  auto said = std::make_unique<LoggedErrors>(raw);
  int err = avformat_open_input(&raw, request.url.c_str(), format, opts.ptr());
  if (err < 0) {  // avformat_open_input freed the context
    if (app::interruptSignal()) throw MediaError("interrupted while opening " + request.shown);
    if (interrupter_.expired())
      throw UsageError("stream " + quote(request.shown) +
                       " could not be opened within 10 s (nothing is sending there, or the "
                       "address is wrong)");
    if (const std::string m = systemFailure(request, err); !m.empty()) throw MediaError(m);
    throw UsageError(pipeSentNothing() ? nothingSent() : openFailure(request, err, said->last()));
  }
  ctx_.reset(raw);
  errors_ = std::move(said);
  err = avformat_find_stream_info(raw, nullptr);
  interrupter_.disarm();
  if (err < 0 && app::interruptSignal())
    throw MediaError("interrupted while opening " + request.shown);
  if (err < 0 && pipeSentNothing()) throw UsageError(nothingSent());
  if (const std::string m = systemFailure(request, err); !m.empty()) throw MediaError(m);
  if (err == AVERROR_INVALIDDATA && movOnAPipe()) throw UsageError(movOnAPipeHint());
  if (err < 0) throw UsageError(openFailure(request, err, errors_->last()));
  videoIndex_ = av_find_best_stream(raw, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (videoIndex_ < 0) {
    if (request.network || request.url == "pipe:0")
      throw UsageError(openFailure(request, AVERROR_STREAM_NOT_FOUND));
    throw UsageError("input file " + quote(request.shown) +
                     " is not a video FFmpeg can read (no video stream in it: an audio-only "
                     "file, or damaged)");
  }
  for (unsigned i = 0; i < raw->nb_streams; ++i)
    if (static_cast<int>(i) != videoIndex_ &&
        raw->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
      raw->streams[i]->discard = AVDISCARD_ALL;  // other video streams are not read
}

std::int64_t Demuxer::startTime() const {
  return ctx_->start_time == AV_NOPTS_VALUE ? 0 : ctx_->start_time;
}

bool Demuxer::timed() const { return ctx_->start_time != AV_NOPTS_VALUE || ctx_->duration > 0; }

bool Demuxer::seekable() const {
  // A stream without timestamps seeks by reading it all, to fail at its end.
  return !request_.network && ctx_->pb && (ctx_->pb->seekable & AVIO_SEEKABLE_NORMAL) && timed();
}

bool Demuxer::read(AVPacket* packet) {
  // A network read that gets nothing for 5 s ends (the interrupt callback's deadline works for
  // every protocol; their own timeouts do not all apply to reads). Once it fired, the input
  // stays ended (the demuxer may still hand out what it had buffered first).
  // Once stalled, I/O is cut at once: what the demuxer holds still comes out (HLS would go on
  // reloading its playlist for a minute).
  if (request_.network) interrupter_.arm(stalled_ ? std::chrono::milliseconds(0) : kReadTimeout);
  const int logged = loggedErrors();  // what the demuxer logs from here is this read's
  const int err = av_read_frame(ctx_.get(), packet);
  if (request_.network) interrupter_.disarm();
  if (request_.network && interrupter_.expired() && !stalled_) {
    stalled_ = true;
    spdlog::debug("{}: nothing received for 5 s", request_.shown);
  }
  // A read the stop cut short hands back a short packet marked corrupt (its last bytes never
  // read): the run is stopping, so it ends here instead of writing a damaged packet.
  if (err >= 0 && (packet->flags & AV_PKT_FLAG_CORRUPT) && app::interruptSignal()) {
    av_packet_unref(packet);
    interrupted_ = true;
    return false;
  }
  if (err >= 0) {
    ++packets_;
    return true;
  }
  if (app::interruptSignal()) {  // the run is stopping
    interrupted_ = true;
    return false;
  }
  if (err == AVERROR_EOF) return false;
  if (request_.network) {  // a stream that stops sending: the source says so and ends
    if (!stalled_) spdlog::debug("{}: read ended: {}", request_.shown, avError(err));
    stalled_ = true;
    return false;
  }
  if (err == AVERROR_EXIT) {
    interrupted_ = true;
    return false;
  }
  if (err == AVERROR_INVALIDDATA && packets_ == 0 && movOnAPipe())
    throw UsageError(movOnAPipeHint());
  const std::string said = loggedErrors() > logged ? errors_->last() : "";
  throw MediaError("reading " + request_.shown + " failed: " + avError(err) +
                   (said.empty() ? "" : " (its demuxer: " + printable(said, 400) + ")"));
}

int Demuxer::seek(std::int64_t ts) {
  // As ffmpeg: containers that seek by decoding time (MPEG-TS, ...) land a little early when the
  // video reorders frames, so that the frame presented at `ts` is decoded.
  std::int64_t at = ts;
  if (!(ctx_->iformat->flags & AVFMT_SEEK_TO_PTS)) {
    for (unsigned i = 0; i < ctx_->nb_streams; ++i)
      if (ctx_->streams[i]->codecpar->video_delay) {
        at -= 3 * AV_TIME_BASE / 23;
        break;
      }
  }
  return std::min(avformat_seek_file(ctx_.get(), -1, INT64_MIN, at, at, 0), 0);
}

}  // namespace vf::media
