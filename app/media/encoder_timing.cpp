// When each frame of an encoder is shown: the slots of a constant rate where the container keeps
// no timestamps, whole ticks of the rate where its time base is the rate's, else the frames'
// own times (VideoEncoder, app/media/encoder.hpp).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "app/media/encoder.hpp"

namespace vf::media {

VideoEncoder::Slots VideoEncoder::slotsFor(const FrameTime& t) {
  Slots s;
  if (wholeFrames_ && t.known() && last_ != AV_NOPTS_VALUE) {
    // A frame within 0.4 of a tick after the last one written has no tick of its own: left out
    // (ffmpeg's vfr sync), so frames that come faster than the rate cannot push the video late.
    const double at = double(t.pts) * t.num / t.den / av_q2d(ctx_->time_base);
    s.own = at > double(last_) + 0.4;
    return s;
  }
  if (!constantRate_ || !t.known()) return s;
  const double start = t.seconds();
  if (!timed_) firstSeconds_ = start;
  timed_ = true;
  lastEndSeconds_ = start + (t.duration > 0 ? double(t.duration) * t.num / t.den : 1 / rate_);
  // Where the frame falls, in slots, against the next free one: within 1.1 slots either way it
  // takes that one (times that jitter around the grid keep every frame); further ahead, the
  // frame before it fills the gap first; further behind, it is left out. ffmpeg's thresholds.
  const double drift = (start - firstSeconds_) * rate_ - double(slots_);
  if (drift < -1.1) {
    s.own = false;
    return s;
  }
  if (drift > 1.1 && slots_ > 0) s.repeatPrevious = std::llround(drift);
  slots_ += s.repeatPrevious + 1;
  return s;
}

std::int64_t VideoEncoder::slotsAtEnd() {
  if (!timed_) return 0;
  const std::int64_t end = std::llround((lastEndSeconds_ - firstSeconds_) * rate_);
  const std::int64_t more = std::max<std::int64_t>(0, end - slots_);
  slots_ += more;
  return more;
}

void VideoEncoder::keepApartIn(AVRational containerTimeBase) {
  containerTimeBase_ = containerTimeBase;
  step_ = std::max<std::int64_t>(
      1, av_rescale_q_rnd(1, containerTimeBase, ctx_->time_base, AV_ROUND_UP));
}

std::int64_t VideoEncoder::ptsFor(const FrameTime& t) {
  std::int64_t pts = counter_++;
  if (!constantRate_ && t.known())
    pts = av_rescale_q(t.pts, AVRational{t.num, t.den}, ctx_->time_base);
  if (last_ != AV_NOPTS_VALUE && pts < last_ + step_) {
    if (step_ > 1 && !tickMoveSaid_) {
      spdlog::warn(
          "{}: frames closer together than its time base ({}/{} s) are moved to the "
          "next tick",
          shown_, containerTimeBase_.num, containerTimeBase_.den);
      tickMoveSaid_ = true;
    }
    pts = last_ + step_;
  }
  last_ = pts;
  return pts;
}

}  // namespace vf::media
