#pragma once
// Timestamp discontinuities in formats that allow them (MPEG-TS: a broadcast recording, files
// joined with cat, whose clock starts again): where an audio or video stream's timestamps jump
// back (more than 0.1 s) or ahead (more than 10 s) of where its last packet ended, every
// stream's timestamps from there on are shifted so that the stream goes on where it was, as
// ffmpeg does (its -dts_delta_threshold), rather than squeezing the frames after the jump one
// tick apart at the end of the first part.
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

 private:
  const AVFormatContext* format_;
  std::string shown_;
  bool enabled_ = false;
  std::int64_t offsetUs_ = 0;        // added to every timestamp (AV_TIME_BASE)
  std::vector<std::int64_t> endUs_;  // per stream: where its last packet ended, shifted
};

}  // namespace vf::media
