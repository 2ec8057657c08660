// What a file's end says about it (MediaSource, app/media/media_source.hpp): frames the
// decoder could not read, a file cut short, holes where the source delivered no video; each said as
// a warning and kept as a note for the run's summary. And the end of a span (--to, -t): the audio
// the file holds behind the video's last frame in it.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/media/media_source.hpp"

namespace vf::media {

void MediaSource::note(const std::string& text) {
  spdlog::warn("{}", text);
  notes_.push_back(text);
}

bool MediaSource::endOfStream() {
  if (demuxer_.interrupted()) return false;  // stopped early: the output trims at its end
  if (relay_) relay_->markComplete();
  if (const std::string gaps = discont_.gapNote(); !gaps.empty()) note(gaps);
  if (backwards_ > 0)
    note(fmt::format(
        "{}: {} frame(s) left out whose times went back to or before the frame shown before them "
        "(streams joined where the first was cut, or damaged timestamps)",
        spec_.text, backwards_));
  if (live_) {
    // The span asked for is done, or the stream ended as streams end (the sender closed it);
    // a warning only where it failed or went silent.
    if (demuxer_.stalled())
      note(fmt::format("{} '{}' stopped delivering frames after {} frames; ending the stream",
                       kindOf(spec_.kind), spec_.text, delivered_));
    else if (!atEnd_)
      spdlog::info("{} '{}' ended after {} frames", kindOf(spec_.kind), spec_.text, delivered_);
    return false;
  }
  const std::int64_t failed = decoder_->failedPackets();
  const bool trimmed = options_.start > 0 || hasEnd_;
  if (!trimmed && exactCount_ && delivered_ + 2 < count_)
    note(fmt::format(
        "{}: decoded {} of {} frames; the rest could not be read (truncated or damaged file)",
        spec_.text, delivered_, count_));
  if (failed > 0) note(fmt::format("{}: {} frame(s) failed to decode", spec_.text, failed));
  // Without a frame count (Matroska, MPEG-TS) a damaged file's lost frames show against its
  // length (or the span asked for) at its frame rate; only where damage was seen, by the decoder or
  // the demuxer (an undamaged variable-rate file can hold fewer frames than that).
  const bool damaged = failed > 0 || demuxer_.loggedErrors() > 0;
  if (!exactCount_ && damaged && count_ > 0 && delivered_ + 2 < count_)
    note(fmt::format(
        "{}: decoded {} of about {} frames ({} length at its frame rate); the damaged parts "
        "could not be read",
        spec_.text, delivered_, count_, trimmed ? "the span's" : "its"));
  if (!trimmed && !exactCount_ && !lengthUnknown_) warnIfShort();
  return false;
}

// Without a frame count in the container (Matroska, MPEG-TS), a file cut short ends like a
// whole one: the video's declared length tells them apart.
void MediaSource::warnIfShort() {
  const AVStream* v = demuxer_.video();
  const AVFormatContext* f = demuxer_.context();
  // A cover image (an MP3's or M4A's picture) is one frame; what the container declares is the
  // audio's length.
  if (v->disposition & AV_DISPOSITION_ATTACHED_PIC) return;
  bool fromZero = false;  // Matroska's: where the video ends, counted from 0
  const std::int64_t declaredUs = declaredVideoLength(f, v, fromZero);
  if (declaredUs <= 0 || lastPts_ == AV_NOPTS_VALUE) return;
  // A start before 0 is kept where the format's clock may wrap (MPEG-TS: FFmpeg counts a file
  // that crosses the 33-bit wrap from before 0); elsewhere the length counts from 0 at least.
  const std::int64_t start = demuxer_.startTime();
  const bool wraps = (f->iformat->flags & AVFMT_TS_DISCONT) != 0;
  const std::int64_t endUs = av_rescale_q(lastPts_ + lastDuration_, tb_, AV_TIME_BASE_Q) -
                             (fromZero ? 0
                              : wraps  ? start
                                       : std::max<std::int64_t>(start, 0));
  if (declaredUs - endUs > std::max<std::int64_t>(AV_TIME_BASE / 2, 2 * (declaredUs / 100)))
    note(
        fmt::format("{}: the video ends at {:.2f} s of the {:.2f} s its container declares; the "
                    "file may be truncated",
                    spec_.text, double(endUs) / AV_TIME_BASE, double(declaredUs) / AV_TIME_BASE));
}

void MediaSource::relayToEnd() {
  if (relayDecided_ && !relay_) return;  // no side stream goes to the output
  const AVFormatContext* ctx = demuxer_.context();
  // The audio streams read (subtitles are sparse: one may have nothing past the end to wait for).
  std::vector<bool> waiting(ctx->nb_streams, false);
  int left = 0;
  for (unsigned i = 0; i < ctx->nb_streams; ++i) {
    const AVStream* st = ctx->streams[i];
    const bool relayed = !relayDecided_ || relay_->wanted(static_cast<int>(i));
    if (static_cast<int>(i) != demuxer_.videoIndex() && st->discard != AVDISCARD_ALL &&
        st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && relayed) {
      waiting[i] = true;
      ++left;
    }
  }
  // At most 10 s of the file's video past the end (an audio stream that stops early).
  const std::int64_t limitUs = endUs_ + 10 * std::int64_t{AV_TIME_BASE};
  try {
    while (left > 0 && demuxer_.read(packet_.get())) {
      AVPacket* p = packet_.get();
      discont_.apply(p);
      const AVStream* st = ctx->streams[p->stream_index];
      const std::int64_t ts = p->pts != AV_NOPTS_VALUE ? p->pts : p->dts;
      const std::int64_t us =
          ts == AV_NOPTS_VALUE ? INT64_MIN : av_rescale_q(ts, st->time_base, AV_TIME_BASE_Q);
      if (p->stream_index == demuxer_.videoIndex()) {
        av_packet_unref(p);
        if (us > limitUs) break;
        continue;
      }
      if (waiting[p->stream_index] && us >= endUs_) {
        waiting[p->stream_index] = false;
        --left;
      }
      relay(p);  // what starts before the end
      av_packet_unref(p);
    }
  } catch (const MediaError& e) {  // the span's frames are all there: its audio ends here
    spdlog::debug("{}: reading the audio to the span's end stopped: {}", spec_.text, e.what());
  }
}

}  // namespace vf::media
