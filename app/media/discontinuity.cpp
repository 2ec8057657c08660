#include "app/media/discontinuity.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace vf::media {

namespace {

constexpr std::int64_t kBackUs = AV_TIME_BASE / 10;  // ffmpeg's: a tenth of a second back
constexpr std::int64_t kAheadUs = 10 * std::int64_t{AV_TIME_BASE};  // -dts_delta_threshold 10
constexpr std::int64_t kGapUs = AV_TIME_BASE / 4;  // a hole in the video: at least this long

// One frame's time: the packet's duration, else the stream's frame rate's (0 if neither).
std::int64_t frameUs(const AVPacket* p, const AVStream* st) {
  if (p->duration > 0) return av_rescale_q(p->duration, st->time_base, AV_TIME_BASE_Q);
  if (st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0)
    return av_rescale_q(1, av_inv_q(st->avg_frame_rate), AV_TIME_BASE_Q);
  return 0;
}

}  // namespace

Discontinuities::Discontinuities(const AVFormatContext* format, std::string shown)
    : format_(format),
      shown_(std::move(shown)),
      enabled_((format->iformat->flags & AVFMT_TS_DISCONT) != 0),
      endUs_(format->nb_streams, AV_NOPTS_VALUE) {}

void Discontinuities::reset() {
  offsetUs_ = 0;
  jumped_ = false;
  std::fill(endUs_.begin(), endUs_.end(), AV_NOPTS_VALUE);
  videoShownEndUs_ = AV_NOPTS_VALUE;
}

void Discontinuities::apply(AVPacket* p) {
  if (!enabled_ || p->stream_index < 0 || static_cast<unsigned>(p->stream_index) >= endUs_.size())
    return;
  const AVStream* st = format_->streams[p->stream_index];
  const AVMediaType type = st->codecpar->codec_type;
  const std::int64_t ts = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
  if (ts != AV_NOPTS_VALUE && (type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO)) {
    std::int64_t at = av_rescale_q(ts, st->time_base, AV_TIME_BASE_Q) + offsetUs_;
    std::int64_t& end = endUs_[p->stream_index];
    // The holes are the first video stream's; found by its decoding times, said by its display
    // times (with B-frames a packet's decoding time is not when it shows).
    if (type == AVMEDIA_TYPE_VIDEO && videoIndex_ < 0) videoIndex_ = p->stream_index;
    const bool video = p->stream_index == videoIndex_;
    const auto shownUs = [&] {
      return p->pts != AV_NOPTS_VALUE
                 ? av_rescale_q(p->pts, st->time_base, AV_TIME_BASE_Q) + offsetUs_
                 : at;
    };
    if (end != AV_NOPTS_VALUE) {
      const std::int64_t delta = at - end;
      if (video && delta <= kAheadUs &&
          delta > std::max<std::int64_t>(kGapUs, 4 * frameUs(p, st))) {
        // From the end of the last frame shown before it to the first shown after it.
        const std::int64_t from = videoShownEndUs_, to = shownUs();
        if (gaps_++ == 0) {
          firstGapFromUs_ = from - videoFirstUs_;
          firstGapToUs_ = to - videoFirstUs_;
        }
        gapsUs_ += to > from ? to - from : delta;
      }
      if (delta < -kBackUs || delta > kAheadUs) {
        offsetUs_ -= delta;
        at -= delta;
        jumped_ = true;
        spdlog::info(
            "{}: the timestamps jump by {:.3f} s at {:.3f} s; the streams go on from there", shown_,
            double(delta) / AV_TIME_BASE, double(end) / AV_TIME_BASE);
      }
    }
    const std::int64_t duration =
        p->duration > 0 ? av_rescale_q(p->duration, st->time_base, AV_TIME_BASE_Q) : 0;
    end = at + duration;
    if (video) {
      const std::int64_t shown = shownUs();
      videoFirstUs_ = videoFirstUs_ == AV_NOPTS_VALUE ? shown : std::min(videoFirstUs_, shown);
      videoShownEndUs_ = videoShownEndUs_ == AV_NOPTS_VALUE
                             ? shown + duration
                             : std::max(videoShownEndUs_, shown + duration);
    }
  }
  if (offsetUs_ == 0) return;
  const std::int64_t shift = av_rescale_q(offsetUs_, AV_TIME_BASE_Q, st->time_base);
  if (p->pts != AV_NOPTS_VALUE) p->pts += shift;
  if (p->dts != AV_NOPTS_VALUE) p->dts += shift;
}

std::string Discontinuities::gapNote() const {
  if (gaps_ == 0) return "";
  const auto sec = [](std::int64_t us) { return double(us) / AV_TIME_BASE; };
  const std::string first =
      fmt::format("from {:.2f} s to {:.2f} s", sec(firstGapFromUs_), sec(firstGapToUs_));
  const std::string where =
      gaps_ == 1 ? fmt::format("no video {} ({:.2f} s)", first, double(gapsUs_) / AV_TIME_BASE)
                 : fmt::format("{} holes in the video, {:.2f} s in all (the first {})", gaps_,
                               double(gapsUs_) / AV_TIME_BASE, first);
  return fmt::format(
      "{}: {}: the source delivered no frames there (a segment that could not be read, or "
      "packets lost); the output keeps the time, without those frames",
      shown_, where);
}

}  // namespace vf::media
