// What a file's end says about it (MediaSource, app/media/media_source.hpp): frames the
// decoder could not read, a file cut short, holes where the source delivered no video; each said as
// a warning and kept as a note for the run's summary.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <string>

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

}  // namespace vf::media
