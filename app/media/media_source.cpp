#include "app/media/media_source.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "app/options.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

// A network stream's input: a URL, or a session description file (.sdp, -f sdp) naming the RTP
// stream to receive; read as one (its open and stall timeouts, live).
bool streamed(const app::SourceSpec& spec, const app::InputOptions& o) {
  if (spec.kind == app::SourceKind::Url) return true;
  if (spec.kind != app::SourceKind::File) return false;
  return o.format == "sdp" || lowerExtension(spec.text) == "sdp";
}

DemuxRequest requestFor(const app::SourceSpec& spec, const app::InputOptions& o) {
  DemuxRequest r;
  r.shown = spec.kind == app::SourceKind::Pipe ? "stdin" : spec.text;
  r.url = spec.kind == app::SourceKind::Pipe ? "pipe:0" : spec.text;
  // A plain path is opened as a file even when it holds ':' (libavformat would take "a:b" for
  // protocol a).
  if (spec.kind == app::SourceKind::File) r.url = "file:" + spec.text;
  r.network = streamed(spec, o);
  r.rawSize = o.rawSize;
  r.rawPixFmt = o.rawPixFmt;
  r.format = o.format;
  r.rawRate = o.rate;
  return r;
}

std::int64_t toUs(double seconds) { return std::llround(seconds * AV_TIME_BASE); }

std::string secondsText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", s);
  return buf;
}

// The frames of the video the container counts that are shown: an edit list (MP4, MOV) leaves
// out samples it still holds (those before its start, kept to decode from), and the container's
// count has them.
std::int64_t shownFrames(const AVStream* v) {
  const int entries = avformat_index_get_entries_count(v);
  std::int64_t discarded = 0;
  for (int i = 0; i < entries; ++i)
    if (avformat_index_get_entry(const_cast<AVStream*>(v), i)->flags & AVINDEX_DISCARD_FRAME)
      ++discarded;
  if (discarded == 0) return v->nb_frames;
  return std::min<std::int64_t>(v->nb_frames, entries) - discarded;
}

// `p`'s time cut to [from, to) (the stream's time base), its duration shortened to match; a
// packet without a duration keeps none.
void clipToWindow(AVPacket* p, std::int64_t from, std::int64_t to) {
  if (p->pts < from) {
    const std::int64_t cut = from - p->pts;
    if (p->duration > 0) p->duration = std::max<std::int64_t>(p->duration - cut, 1);
    if (p->dts != AV_NOPTS_VALUE) p->dts += cut;
    p->pts = from;
  }
  if (p->duration > 0 && to != INT64_MAX && p->pts + p->duration > to)
    p->duration = std::max<std::int64_t>(to - p->pts, 1);
}

}  // namespace

const char* kindOf(app::SourceKind k) {
  return k == app::SourceKind::Url ? "stream" : k == app::SourceKind::Pipe ? "pipe" : "file";
}

MediaSource::MediaSource(const app::SourceSpec& spec, const app::InputOptions& options)
    : spec_(spec),
      options_(options),
      demuxer_(requestFor(spec, options)),
      discont_(demuxer_.context(), spec.text),
      converter_(options.convertThreads),
      frame_(makeFrame()),
      packet_(makePacket()) {
  live_ = streamed(spec, options);
  if (options.rate > 0 && !demuxer_.raw())
    spdlog::warn("{}: --rate is for image sequences and raw video; this {} keeps its own timing",
                 spec.kind == app::SourceKind::Pipe ? "stdin" : spec.text, kindOf(spec.kind));
  const AVStream* v = demuxer_.video();
  tb_ = v->time_base;
  decoder_ = std::make_unique<VideoDecoder>(v, live_, options.hwdec, options.decodeGpu, spec.text,
                                            options.decodeThreads);
  // The nominal rate as ffmpeg guesses it (the stream's base rate: a variable-rate file's usual
  // step), else its average. A guess past 240 fps is taken only where it is no clock: the
  // average agrees with it, or it is not the stream's time base either and within 1000 fps. A
  // variable-rate stream with no step in common gets its time base's rate (90000 in MPEG-TS),
  // which would number a y4m's frames at 90000 a second.
  const auto valid = [](AVRational r) { return r.num > 0 && r.den > 0; };
  const AVRational guess =
      av_guess_frame_rate(demuxer_.context(), demuxer_.context()->streams[v->index], nullptr);
  const AVRational avg = v->avg_frame_rate;
  const bool agrees = valid(avg) && std::abs(av_q2d(guess) / av_q2d(avg) - 1) < 0.01;
  const bool clock = av_cmp_q(guess, av_inv_q(v->time_base)) == 0;
  if (valid(guess) && (av_q2d(guess) <= 240 || agrees || (!clock && av_q2d(guess) <= 1000)))
    fps_ = av_q2d(guess);
  else if (valid(avg))
    fps_ = av_q2d(avg);

  const std::int64_t begin = demuxer_.startTime();
  offset_ = begin + toUs(options.start);
  startPts_ = av_rescale_q(offset_, AV_TIME_BASE_Q, tb_);
  // A stream without timestamps at all: its frames timed by their order from its start.
  if (!demuxer_.timed()) untimedNext_ = av_rescale_q(begin, AV_TIME_BASE_Q, tb_);
  if (options.end) {
    hasEnd_ = true;
    endUs_ = begin + toUs(*options.end);
    endPts_ = av_rescale_q(endUs_, AV_TIME_BASE_Q, tb_);
  }
  // A start before the video's first frame (audio that starts first) reads from the beginning:
  // a seek would land on the video's first keyframe, past the audio before it.
  const std::int64_t videoStart =
      v->start_time == AV_NOPTS_VALUE ? begin : av_rescale_q(v->start_time, tb_, AV_TIME_BASE_Q);
  if (options.start > 0 && offset_ > videoStart && demuxer_.seekable())
    if (const int err = seekBefore(offset_); err < 0)
      spdlog::warn("{}: could not seek to {:.3f} s ({}); reading on from where it is", spec_.text,
                   options.start, avError(err));

  if (!live_) {
    double seconds =
        demuxer_.context()->duration > 0 ? double(demuxer_.context()->duration) / AV_TIME_BASE : 0;
    // An AVI written where its muxer could not seek back (to a pipe) holds 2^30 as its frame
    // count and a length made from it: neither is the file's.
    const bool placeholder = v->nb_frames == (std::int64_t{1} << 30) &&
                             std::strcmp(demuxer_.context()->iformat->name, "avi") == 0;
    lengthUnknown_ = placeholder;
    if (placeholder) seconds = 0;
    exactCount_ = v->nb_frames > 0 && !placeholder;
    if (exactCount_)
      count_ = shownFrames(v);
    else if (seconds > 0 && fps_ > 0)
      count_ = std::llround(seconds * fps_);
    if (count_ > 0 && fps_ > 0 && (options.start > 0 || hasEnd_)) {
      const double to =
          hasEnd_ ? std::min(*options.end, seconds > 0 ? seconds : *options.end) : seconds;
      count_ = std::max<std::int64_t>(0, std::llround((to - options.start) * fps_));
      exactCount_ = false;  // the span's frames from its length
    }
  }

  if (!nextWanted()) {
    if (options.start > 0 || hasEnd_)
      throw app::UsageError(quote(spec.text) + " has no video frame in the span asked for (--ss " +
                            secondsText(options.start) + " s" +
                            (hasEnd_ ? ", to " + secondsText(*options.end) + " s" : "") + ")");
    if (live_)
      throw app::UsageError(std::string(kindOf(spec.kind)) + " " + quote(spec.text) +
                            " opened but delivered no frame");
    if (demuxer_.pipeSentNothing()) throw app::UsageError(demuxer_.nothingSent());
    if (demuxer_.raw()) {
      const AVCodecParameters* c = v->codecpar;
      const auto fmt = static_cast<AVPixelFormat>(c->format);
      const char* name = av_get_pix_fmt_name(fmt);
      throw app::UsageError(
          (spec.kind == app::SourceKind::Pipe ? std::string("stdin") : quote(spec.text)) +
          " holds no whole frame (" + std::to_string(c->width) + "x" + std::to_string(c->height) +
          " " + (name ? name : "?") + " frames are " +
          std::to_string(av_image_get_buffer_size(fmt, c->width, c->height, 1)) +
          " bytes each); check --size and --input-pix-fmt");
    }
    throw app::UsageError(quote(spec.text) +
                          " opened but no video frame could be decoded from it (not a video, "
                          "an audio-only file, or damaged)");
  }
  pending_ = true;
  desc_ = {frame_->width, frame_->height,
           slotFormatFor(static_cast<AVPixelFormat>(frame_->format), options.grayLuma)};
  colour_ = tagsOf(frame_.get());
  pixFmt_ = static_cast<AVPixelFormat>(frame_->format);
  warnIfDeeperThan8Bits(spec.kind == app::SourceKind::Pipe ? "stdin" : quote(spec.text), pixFmt_);
  sampleAspect_ = av_guess_sample_aspect_ratio(demuxer_.context(), demuxer_.video(), frame_.get());
}

MediaSource::~MediaSource() = default;

std::string MediaSource::hwDevice() const { return decoder_->hwDevice(); }

AVFieldOrder MediaSource::fieldOrder() const { return demuxer_.video()->codecpar->field_order; }

std::string MediaSource::description() const {
  const AVFormatContext* f = demuxer_.context();
  const AVCodecContext* d = decoder_->context();
  const char* pix = av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame_->format));
  std::string s = std::string(kindOf(spec_.kind)) + " " +
                  (spec_.kind == app::SourceKind::Pipe ? "stdin" : spec_.text) + " (" +
                  std::to_string(desc_.width) + "x" + std::to_string(desc_.height) + " " +
                  avcodec_get_name(d->codec_id) + " " + (pix ? pix : "?");
  if (!decoder_->hwDevice().empty()) s += " on " + decoder_->hwDevice();
  char buf[32];
  if (fps_ > 0) {
    std::snprintf(buf, sizeof buf, "%.4g", fps_);
    s += std::string(", ") + buf + " fps";
  }
  // A count from the duration (Matroska, WebM, streams without one) is an estimate.
  if (count_ > 0)
    s += std::string(exactCount_ ? ", " : ", about ") + std::to_string(count_) + " frames";
  for (unsigned i = 0; i < f->nb_streams; ++i) {
    if (static_cast<int>(i) == demuxer_.videoIndex()) continue;
    const AVCodecParameters* p = f->streams[i]->codecpar;
    const char* type = av_get_media_type_string(p->codec_type);
    s += std::string("; ") + (type ? type : "data") + " " + avcodec_get_name(p->codec_id);
  }
  return s + ")";
}

void MediaSource::attachRelay(std::shared_ptr<PacketRelay> relay) {
  relay_ = std::move(relay);
  recording_ = true;
}

void MediaSource::requestSeek(double seconds) { seekTo_.store(std::max(0.0, seconds)); }

void MediaSource::applySeek() {
  const double t = seekTo_.exchange(-1);
  if (t < 0 || !demuxer_.seekable()) return;
  const std::int64_t target = demuxer_.startTime() + toUs(t);
  skipBelow_ = av_rescale_q(target, AV_TIME_BASE_Q, tb_);
  if (const int err = seekBefore(target); err < 0)
    spdlog::warn("{}: could not seek to {:.3f} s ({}); playing on from where it is", spec_.text, t,
                 avError(err));
}

void MediaSource::relay(AVPacket* p) {
  const AVStream* st = demuxer_.context()->streams[p->stream_index];
  const std::int64_t off = av_rescale_q(offset_, AV_TIME_BASE_Q, st->time_base);
  if (p->pts != AV_NOPTS_VALUE) {
    // With --ss, what ends before the start is left out (without it, everything is kept,
    // encoder priming with negative timestamps included).
    if (options_.start > 0 && p->pts + std::max<std::int64_t>(p->duration, 1) <= off) return;
    std::int64_t end = INT64_MAX;
    if (hasEnd_) {
      end = av_rescale_q(endPts_, tb_, st->time_base);
      if (p->pts >= end) return;
    }
    // A subtitle shown across the cut is shown from the cut on (and to the end at most): kept
    // whole, it would start before the output's zero, and a muxer would move the whole file's
    // time zero back to it.
    if (st->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE)
      clipToWindow(p, options_.start > 0 ? off : INT64_MIN, end);
  }
  PacketPtr copy = makePacket();
  av_packet_move_ref(copy.get(), p);
  if (copy->pts != AV_NOPTS_VALUE) copy->pts -= off;
  if (copy->dts != AV_NOPTS_VALUE) copy->dts -= off;
  if (!relayDecided_) {
    early_.push_back(std::move(copy));
  } else if (relay_ && relay_->wanted(copy->stream_index)) {
    relay_->push(std::move(copy));
  }
}

bool MediaSource::decodeNext() {
  for (;;) {
    if (decoder_->receive(frame_.get())) {
      // A stream without timestamps (raw H.264): each frame one step after the one before, from
      // the input's start, so that --ss and --to count its frames.
      AVFrame* f = frame_.get();
      if (f->best_effort_timestamp == AV_NOPTS_VALUE && untimedNext_ != AV_NOPTS_VALUE)
        f->best_effort_timestamp = untimedNext_;
      if (untimedNext_ != AV_NOPTS_VALUE && f->best_effort_timestamp != AV_NOPTS_VALUE)
        untimedNext_ =
            f->best_effort_timestamp + (f->pkt_duration > 0 ? f->pkt_duration : frameStep());
      return true;
    }
    if (eof_ && readError_) std::rethrow_exception(std::exchange(readError_, nullptr));
    if (eof_) return false;
    bool read = false;
    try {
      read = demuxer_.read(packet_.get());
    } catch (const MediaError&) {
      readError_ = std::current_exception();
    }
    if (!read) {
      eof_ = true;
      decoder_->send(nullptr);
      continue;
    }
    discont_.apply(packet_.get());
    if (packet_->stream_index == demuxer_.videoIndex())
      decoder_->send(packet_.get());
    else
      relay(packet_.get());
    av_packet_unref(packet_.get());
  }
}

std::int64_t MediaSource::frameStep() const {
  const AVRational rate = fps_ > 0 ? av_d2q(fps_, 1001000) : AVRational{25, 1};
  return std::max<std::int64_t>(1, av_rescale_q(1, av_inv_q(rate), tb_));
}

std::int64_t MediaSource::timestampOf(const AVFrame* f) const {
  const std::int64_t ts = f->best_effort_timestamp;
  if (ts != AV_NOPTS_VALUE) return ts;
  // No timestamp: one frame after the last (its duration, else the nominal rate).
  if (lastPts_ == AV_NOPTS_VALUE) return startPts_;
  return lastPts_ + (lastDuration_ > 0 ? lastDuration_ : frameStep());
}

bool MediaSource::nextWanted() {
  for (;;) {
    if (!held_ && !decodeNext()) return false;
    held_ = false;
    const std::int64_t ts = timestampOf(frame_.get());
    if (ts < startPts_) continue;
    if (skipBelow_ != AV_NOPTS_VALUE && ts < skipBelow_) continue;
    // Once the timestamps jumped (streams joined; Discontinuities shifts what follows to go on
    // from the first part), a frame that would show at or before the one delivered before it
    // (the first part cut inside a group of B-frames: the parts overlap) is left out, as
    // ffmpeg's frame sync leaves it, so the output's times only go forward. Elsewhere such
    // frames are kept as they come (a rounded timestamp, a list of files of other time bases).
    if (discont_.jumped() && lastPts_ != AV_NOPTS_VALUE && ts <= lastPts_) {
      ++backwards_;
      continue;
    }
    if (hasEnd_ && ts >= endPts_) {
      eof_ = atEnd_ = true;
      relayToEnd();
      return false;
    }
    return true;
  }
}

int MediaSource::seekBefore(std::int64_t targetUs) {
  const std::int64_t target = av_rescale_q(targetUs, AV_TIME_BASE_Q, tb_);
  for (std::int64_t back = 0;; back = back ? back * 2 : AV_TIME_BASE / 2) {
    const std::int64_t at = targetUs - back;
    // A stream that cannot seek fails the first time, before anything is decoded (a later
    // failure keeps the frame the try before decoded).
    if (const int err = demuxer_.seek(at); err < 0) return err;
    discont_.reset();
    decoder_->flush();
    eof_ = pending_ = held_ = atEnd_ = false;
    readError_ = nullptr;
    lastPts_ = untimedNext_ = AV_NOPTS_VALUE;
    if (!relayDecided_) early_.clear();  // side packets of the attempt before
    const bool decoded = decodeNext();
    held_ = decoded;  // the frame decoded is examined by nextWanted()
    if (at <= demuxer_.startTime()) return 0;
    // Nothing decoded: the seek landed past the last keyframe (MPEG-TS seeks to any packet,
    // and the decoder waits for a keyframe); unless the target lies past the end.
    if (!decoded && targetUs >= endOfInput()) return 0;
    if (decoded && timestampOf(frame_.get()) <= target) return 0;
    spdlog::debug("{}: the seek to {:.3f} s landed after it; seeking again from further back",
                  spec_.text, double(targetUs) / AV_TIME_BASE);
  }
}

std::int64_t MediaSource::endOfInput() const {
  const std::int64_t duration = demuxer_.context()->duration;
  return duration > 0 ? demuxer_.startTime() + duration : INT64_MAX;
}

void MediaSource::stamp(FrameTime& time) {
  const std::int64_t ts = timestampOf(frame_.get());
  std::int64_t duration = frame_->pkt_duration;
  if (duration <= 0 && fps_ > 0) duration = frameStep();
  lastPts_ = ts;
  lastDuration_ = duration;
  time.pts = ts - startPts_;
  time.duration = std::max<std::int64_t>(duration, 0);
  time.num = tb_.num;
  time.den = tb_.den;
}

bool MediaSource::next(const SlotFn& slot, FrameTime& time) {
  if (!relayDecided_) {
    relayDecided_ = true;
    for (PacketPtr& p : early_)
      if (relay_ && relay_->wanted(p->stream_index)) relay_->push(std::move(p));
    early_.clear();
  }
  applySeek();
  if (!pending_ && !nextWanted()) return endOfStream();
  pending_ = false;
  const FrameDesc d{frame_->width, frame_->height,
                    slotFormatFor(static_cast<AVPixelFormat>(frame_->format), options_.grayLuma)};
  if (d != desc_) {
    if (const std::string change = frameChange(desc_, d, options_.grayLuma); !change.empty())
      spdlog::warn("{}: {} at frame {}", spec_.text, change, delivered_);
    desc_ = d;
  }
  converter_.toSlot(frame_.get(), slot(d));
  stamp(time);
  ++delivered_;
  return true;
}

}  // namespace vf::media
