#include "app/media/discontinuity.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace vf::media {

namespace {

constexpr std::int64_t kBackUs = AV_TIME_BASE / 10;  // ffmpeg's: a tenth of a second back
constexpr std::int64_t kAheadUs = 10 * std::int64_t{AV_TIME_BASE};  // -dts_delta_threshold 10

}  // namespace

Discontinuities::Discontinuities(const AVFormatContext* format, std::string shown)
    : format_(format),
      shown_(std::move(shown)),
      enabled_((format->iformat->flags & AVFMT_TS_DISCONT) != 0),
      endUs_(format->nb_streams, AV_NOPTS_VALUE) {}

void Discontinuities::reset() {
  offsetUs_ = 0;
  std::fill(endUs_.begin(), endUs_.end(), AV_NOPTS_VALUE);
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
    if (end != AV_NOPTS_VALUE) {
      const std::int64_t delta = at - end;
      if (delta < -kBackUs || delta > kAheadUs) {
        offsetUs_ -= delta;
        at -= delta;
        spdlog::info(
            "{}: the timestamps jump by {:.3f} s at {:.3f} s; the streams go on from there", shown_,
            double(delta) / AV_TIME_BASE, double(end) / AV_TIME_BASE);
      }
    }
    const std::int64_t duration =
        p->duration > 0 ? av_rescale_q(p->duration, st->time_base, AV_TIME_BASE_Q) : 0;
    end = at + duration;
  }
  if (offsetUs_ == 0) return;
  const std::int64_t shift = av_rescale_q(offsetUs_, AV_TIME_BASE_Q, st->time_base);
  if (p->pts != AV_NOPTS_VALUE) p->pts += shift;
  if (p->dts != AV_NOPTS_VALUE) p->dts += shift;
}

}  // namespace vf::media
