#pragma once
// Timestamp discontinuities in formats that allow them (MPEG-TS: a broadcast recording, files
// joined with cat, whose clock starts again): where an audio or video stream's timestamps jump
// back (more than 0.1 s) or ahead (more than 10 s) of where its last packet ended, every
// stream's timestamps from there on are shifted so that the stream goes on where it was, as
// ffmpeg does (its -dts_delta_threshold), rather than squeezing the frames after the jump one
// tick apart at the end of the first part. Shorter jumps ahead of the video (over a quarter of
// a second and four frames) are holes where the source delivered nothing (an HLS segment that
// could not be read, packets lost on the way): they keep their time and are counted for gapNote.
#include <cstdint>
#include <string>
#include <vector>

#include "app/media/av.hpp"

namespace vf::media {

class Discontinuities {
 public:
  Discontinuities(const AVFormatContext* format, std::string shown);
  // Shifts `p`'s timestamps by the offset so far (after noting a jump at `p`).
  void apply(AVPacket* p);
  // After a seek: the timestamps read next are the file's own.
  void reset();
  // The holes in the video so far, said for the input's end ("" when none).
  std::string gapNote() const;
  // Whether the timestamps jumped (and were shifted) since the start or the last reset().
  bool jumped() const { return jumped_; }

 private:
  const AVFormatContext* format_;
  std::string shown_;
  bool enabled_ = false, jumped_ = false;
  std::int64_t offsetUs_ = 0;        // added to every timestamp (AV_TIME_BASE)
  std::vector<std::int64_t> endUs_;  // per stream: where its last packet ended, shifted
  int videoIndex_ = -1;  // the first video stream: its first shown time, where its frames end
  std::int64_t videoFirstUs_ = AV_NOPTS_VALUE, videoShownEndUs_ = AV_NOPTS_VALUE;
  int gaps_ = 0;  // holes in the video, their length, the first's bounds
  std::int64_t gapsUs_ = 0, firstGapFromUs_ = 0, firstGapToUs_ = 0;
};

}  // namespace vf::media
