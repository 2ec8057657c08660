#include "app/media/muxer.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <optional>

#include "app/interrupt.hpp"
#include "app/media/logged_errors.hpp"
#include "app/media/network_error.hpp"
#include "app/media/written_file.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavcodec/adts_parser.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/intreadwrite.h>
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

void freeOutput(AVFormatContext* c) {
  if (!c) return;
  if (c->pb && !(c->oformat->flags & AVFMT_NOFILE)) avio_closep(&c->pb);
  avformat_free_context(c);
}

}  // namespace

Muxer::Muxer(const OutputSpec& spec) : spec_(spec), ctx_(nullptr, freeOutput) {
  AVFormatContext* c = nullptr;
  const int err = avformat_alloc_output_context2(&c, nullptr, spec.muxer.c_str(), spec.url.c_str());
  if (err < 0 || !c)
    throw app::UsageError("output " + quote(spec.path) + ": the " + spec.muxer +
                          " container cannot be written (" + avError(err) + ")");
  ctx_.reset(c);
}

Muxer::~Muxer() = default;

bool Muxer::wantsGlobalHeader() const { return (ctx_->oformat->flags & AVFMT_GLOBALHEADER) != 0; }

void Muxer::addStreams(const AVCodecContext* video, const MuxerInput& input) {
  AVStream* st = avformat_new_stream(ctx_.get(), nullptr);
  if (!st) outOfMemory("the output container");
  int err = avcodec_parameters_from_context(st->codecpar, video);
  if (err < 0) throw MediaError("output set-up failed: " + avError(err));
  st->time_base = video->time_base;
  st->avg_frame_rate = video->framerate;
  st->r_frame_rate = video->framerate;
  st->sample_aspect_ratio = video->sample_aspect_ratio;
  // The one video stream written is the file's default one (Matroska writes the flag as given:
  // 0 would leave players and track pickers to choose), with the input's other dispositions.
  st->disposition = AV_DISPOSITION_DEFAULT;
  if (input.format && input.videoStream >= 0) {
    const AVStream* in = input.format->streams[input.videoStream];
    st->disposition |=
        in->disposition & ~(AV_DISPOSITION_ATTACHED_PIC | AV_DISPOSITION_TIMED_THUMBNAILS |
                            AV_DISPOSITION_STILL_IMAGE);
    const bool limited = spec_.maxFrames >= 0;  // --frames: where it ends is not known yet
    const bool cut = input.cutStart || input.endUs != INT64_MAX || limited;
    copyStreamTags(&st->metadata, in->metadata, true, cut);
    av_dict_set(&st->metadata, "encoder", nullptr, 0);
    // The length of the span, for a container that writes it before the frames (Matroska on a
    // pipe; on a file it is written again at the end, as it came out): to --to, else to the
    // input's end.
    const AVFormatContext* f = input.format;
    const std::int64_t inputEnd = f->duration > 0 && f->start_time != AV_NOPTS_VALUE
                                      ? f->start_time + f->duration
                                  : f->duration > 0 ? f->duration
                                                    : INT64_MAX;
    const std::int64_t spanEnd = std::min(input.endUs, inputEnd);
    if (cut && !limited && spanEnd != INT64_MAX && spanEnd > input.offsetUs)
      ctx_->duration = spanEnd - input.offsetUs;
    std::size_t size = 0;
    if (const std::uint8_t* m = av_stream_get_side_data(in, AV_PKT_DATA_DISPLAYMATRIX, &size)) {
      if (std::uint8_t* out = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, size))
        std::copy(m, m + size, out);
    }
    rotation_ = rotationOf(in);
    // Re-encoded audio is cut to the sample where --ss and --to cut the input (copied packets
    // stay whole, as ffmpeg copies them).
    const AudioWindow window{input.cutStart ? 0 : INT64_MIN,
                             input.endUs == INT64_MAX ? INT64_MAX : input.endUs - input.offsetUs};
    side_ =
        std::make_unique<SideStreams>(input.format, input.videoStream, ctx_.get(), spec_, window);
    copyTags(input);
  }
}

void Muxer::copyTags(const MuxerInput& input) {
  const AVFormatContext* in = input.format;
  av_dict_copy(&ctx_->metadata, in->metadata, 0);
  av_dict_set(&ctx_->metadata, "encoder", nullptr, 0);  // the muxer names itself
  OutputChapters::copy(ctx_.get(), in, input.offsetUs, input.endUs);
}

void Muxer::open() {
  if (!(ctx_->oformat->flags & AVFMT_NOFILE)) {
    // A stop ends an open that waits (a listener no client connects to, a server that never
    // answers); later writes are not cut by it: the frames in flight go out (as ffmpeg, where
    // only a second signal cuts them; a reader that stopped reading is the watchers' to end).
    opening_ = true;
    const AVIOInterruptCB stop{[](void* self) -> int {
                                 return static_cast<Muxer*>(self)->opening_.load() &&
                                        app::interruptSignal() != 0;
                               },
                               this};
    const int err = avio_open2(&ctx_->pb, spec_.url.c_str(), AVIO_FLAG_WRITE, &stop, nullptr);
    opening_ = false;
    if (err < 0 && app::interruptSignal() != 0)
      throw MediaError("interrupted while opening " + spec_.path);
    if (err < 0 && spec_.network)  // what the user gave, as an input's address is
      throw app::UsageError(
          "cannot open " + spec_.path + " for writing: " +
          networkFailure(spec_.url, err, "nothing listens there, or a wrong address"));
    if (err < 0) throw MediaError("cannot open '" + spec_.path + "' for writing: " + avError(err));
  }
  Options opts;
  const bool seekable = ctx_->pb && (ctx_->pb->seekable & AVIO_SEEKABLE_NORMAL);
  if (isMp4Family(spec_.muxer) && !seekable)  // a pipe or a stream: fragments, index first
    opts.set("movflags", "frag_keyframe+empty_moov+default_base_moof");
  // Where chapters given after the header are written with the trailer, they wait for the end.
  if (seekable && isMp4OrMatroska(spec_.muxer)) chapters_.holdBack(ctx_.get());
  const LoggedErrors said(ctx_.get());  // a muxer logs why it refuses a header
  const int err = avformat_write_header(ctx_.get(), opts.ptr());
  if (err < 0) refused(err, said.last());
  if (ctx_->pb) headerBytes_ = avio_tell(ctx_->pb);
  // A regular file is read back at the end to see whether the rotation is there; a pipe, a
  // FIFO, a device or a stream cannot be: there the MP4 family is known to hold it, Matroska and
  // WebM to in newer FFmpeg, the others not to.
  struct stat st {};
  const bool regular = !spec_.toStdout && !spec_.network && ::stat(spec_.path.c_str(), &st) == 0 &&
                       S_ISREG(st.st_mode);
  const bool mayHold = isMp4OrMatroska(spec_.muxer);
  if (rotation_ != 0 && !regular && !mayHold) warnRotationLost();
  const AVCodecParameters* video = ctx_->nb_streams ? ctx_->streams[0]->codecpar : nullptr;
  if (video && video->codec_id == AV_CODEC_ID_WRAPPED_AVFRAME)
    wrappedFrameBytes_ = av_image_get_buffer_size(static_cast<AVPixelFormat>(video->format),
                                                  video->width, video->height, 1) +
                         6;
  opened_ = true;
}

void Muxer::refused(int err, const std::string& reason) {
  // What the container was asked to hold, for the message; the file it began is no output.
  std::string streams;
  for (unsigned i = 0; i < ctx_->nb_streams; ++i) {
    const AVCodecParameters* p = ctx_->streams[i]->codecpar;
    const char* type = av_get_media_type_string(p->codec_type);
    streams += std::string(streams.empty() ? "" : ", ") + (type ? type : "data") + " " +
               avcodec_get_name(p->codec_id);
    if (p->codec_type == AVMEDIA_TYPE_VIDEO && p->format >= 0)
      streams += std::string(" ") + av_get_pix_fmt_name(static_cast<AVPixelFormat>(p->format));
  }
  // A write that failed (a full disk, a file size limit) is the disk's, not the streams'.
  const bool io = (ctx_->pb && ctx_->pb->error < 0) || err == AVERROR(ENOSPC) ||
                  err == AVERROR(EIO) || err == AVERROR(EFBIG) || err == AVERROR(EDQUOT) ||
                  err == AVERROR(EROFS) || err == AVERROR(EPIPE);
  // Only the regular file the header began is removed: never a device, a FIFO or a link.
  const std::optional<WrittenFile> begun = regularFileOpened(spec_, ctx_.get());
  if (ctx_->pb && !(ctx_->oformat->flags & AVFMT_NOFILE)) avio_closep(&ctx_->pb);
  if (begun) removeWrittenFile(*begun);
  const std::string name = ctx_->oformat->name;
  if (io)
    throw MediaError("cannot write " + spec_.path + ": " + avError(err) + " (at the start of the " +
                     name + " container); nothing was written");
  // RTP carries one stream a session: the input's audio is the user's to leave out; other
  // streams go with it in MPEG-TS.
  if (name == "rtp" && ctx_->nb_streams > 1) {
    bool audioOnly = true;
    for (unsigned i = 1; i < ctx_->nb_streams; ++i)
      audioOnly = audioOnly && ctx_->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
    throw app::UsageError("the rtp container of " + spec_.path + " carries one stream, not " +
                          streams + ": send them together with -f rtp_mpegts or -f mpegts" +
                          (audioOnly ? ", or add -an to send the video alone" : "") +
                          "; nothing was written");
  }
  // The streams the user chose (a codec, a pixel format) in a container that refuses them: a
  // usage error; streams the defaults made (copied ones included): the run's failure.
  const std::string what =
      "the " + name + " container of " + spec_.path + " did not start with " + streams + " (" +
      (reason.empty() ? avError(err) : "its muxer: " + printable(reason, 400)) +
      "); choose another codec (-c:v, -c:a)" +
      (name == "matroska" ? "" : " or container (.mkv holds almost anything)") +
      "; nothing was written";
  if (spec_.chosen) throw app::UsageError(what);
  throw MediaError(what);
}

bool Muxer::damagedAdts(const AVPacket* p) {
  const AVStream* st = ctx_->streams[p->stream_index];
  if (p->stream_index == 0 || st->codecpar->codec_id != AV_CODEC_ID_AAC || p->size < 7 ||
      (AV_RB16(p->data) >> 4) != 0xFFF)
    return false;
  std::uint32_t samples = 0;
  std::uint8_t frames = 0;
  if (av_adts_header_parse(p->data, &samples, &frames) >= 0) return false;
  // A copied ADTS header that does not parse (damage in the input): FFmpeg's ADTS-to-AAC filter
  // would fail the write, and with it the run. The packet is left out; the stream goes on.
  if (damaged_[p->stream_index]++ == 0)
    spdlog::warn(
        "{}: a damaged packet of the copied audio (aac, the output's stream #{}) at {:.3f} s is "
        "left out (its ADTS header does not parse), as any more: re-encode it (--audio-codec) "
        "to have it decoded and written whole, or leave it out (--an)",
        spec_.path, p->stream_index,
        av_q2d(st->time_base) * double(p->pts != AV_NOPTS_VALUE ? p->pts : p->dts));
  return true;
}

void Muxer::write(AVPacket* p) {
  if (damagedAdts(p)) return;  // left out: it takes no room
  const std::int64_t bytes =
      wrappedFrameBytes_ > 0 && p->stream_index == 0 ? wrappedFrameBytes_ : p->size;
  checkRoom(bytes);
  ++packets_;
  payloadBytes_ += bytes;
  if (p->pts != AV_NOPTS_VALUE)
    contentEndUs_ = std::max(
        contentEndUs_, av_rescale_q(p->pts + std::max<std::int64_t>(p->duration, 0),
                                    ctx_->streams[p->stream_index]->time_base, AV_TIME_BASE_Q));
  const int err = av_interleaved_write_frame(ctx_.get(), p);
  const int ioErr = ctx_->pb ? ctx_->pb->error : 0;
  if (err < 0 || ioErr < 0) failed("writing", ioErr < 0 ? ioErr : err);
  countPacketMuxed();
}

void Muxer::writeVideo(AVPacket* p, AVRational tb) {
  const AVStream* st = ctx_->streams[0];
  const std::int64_t endUs =
      av_rescale_q(p->pts + std::max<std::int64_t>(p->duration, 0), tb, AV_TIME_BASE_Q);
  p->stream_index = 0;
  av_packet_rescale_ts(p, tb, st->time_base);
  // A container whose time base is coarser than the frames' times (GIF: 1/100 s) can give two
  // frames the same tick, which it refuses: the later frame moves to the next tick, as ffmpeg's
  // muxing does.
  if (p->dts != AV_NOPTS_VALUE && lastVideoDts_ != INT64_MIN && p->dts <= lastVideoDts_) {
    if (!tickMoveSaid_)
      spdlog::warn(
          "{}: frames closer together than its time base ({}/{} s) are moved to the "
          "next tick",
          spec_.path, st->time_base.num, st->time_base.den);
    tickMoveSaid_ = true;
    p->dts = lastVideoDts_ + 1;
    if (p->pts != AV_NOPTS_VALUE && p->pts < p->dts) p->pts = p->dts;
  }
  if (p->dts != AV_NOPTS_VALUE) lastVideoDts_ = p->dts;
  const bool empty = p->size == 0;  // "the frame before again" (Theora): Ogg stores none
  write(p);
  videoEndUs_ = std::max(videoEndUs_, endUs);
  ++videoPackets_;
  emptyVideoPackets_ += empty;
}

void Muxer::writeSide(AVPacket* p, bool complete) {
  if (!side_) return;
  side_->handle(p, complete ? INT64_MAX : videoEndUs_, [this](AVPacket* q) { write(q); });
}

void Muxer::finish(bool flushSide) {
  if (!opened_ || finished_) return;
  finished_ = true;
  finishing_ = true;
  if (side_ && flushSide) side_->flush([this](AVPacket* q) { write(q); });
  for (const auto& [stream, n] : damaged_)
    if (n > 1)
      spdlog::warn("{}: {} damaged packets of stream #{} were left out", spec_.path, n, stream);
  if (packets_ > 0) chapters_.settle(ctx_.get(), contentEndUs_);
  int err = av_write_trailer(ctx_.get());
  if (err >= 0 && ctx_->pb && ctx_->pb->error < 0) err = ctx_->pb->error;
  if (ctx_->pb && !(ctx_->oformat->flags & AVFMT_NOFILE)) {
    const int closeErr = avio_closep(&ctx_->pb);
    if (err >= 0) err = closeErr;
  }
  if (err < 0) failed("finishing", err);
  if (!spec_.toStdout && !spec_.network) verify();
}

void Muxer::failed(const char* doing, int err) const {
  if (err == AVERROR(EPIPE))
    throw ReaderGone(std::string(doing) + " " + (spec_.toStdout ? "stdout" : spec_.path) +
                     " failed: its reader closed it (" + avError(err) + ")");
  throw MediaError(std::string(doing) + " " + spec_.path + " failed: " + avError(err));
}

}  // namespace vf::media
