#pragma once
// The input's chapters in an output: cut to the span --ss and --to take at set-up, and at the end
// to what the output holds, so a run that ends early (--frames, a stop, a full disk) leaves no
// chapter past its last frame. The MP4 family and Matroska write the chapters they have at the
// header there for good (MP4's chapter track, Matroska's Chapters), and those added later with the
// trailer; on a file they are held back until the end is known.
#include <cstdint>

#include "app/media/av.hpp"

namespace vf::media {

class OutputChapters {
 public:
  OutputChapters() = default;
  ~OutputChapters();
  OutputChapters(const OutputChapters&) = delete;
  OutputChapters& operator=(const OutputChapters&) = delete;

  // Adds in's chapters that overlap [offsetUs, endUs) of its timeline to out, moved to the
  // output's timeline (offsetUs its 0) and cut to the span.
  static void copy(AVFormatContext* out, const AVFormatContext* in, std::int64_t offsetUs,
                   std::int64_t endUs);
  // Before the header: takes out's chapters away until settle.
  void holdBack(AVFormatContext* out);
  // Before the trailer: chapters held back return to out, and every chapter ends by endUs (the
  // output's end, in its timeline); those starting at or after it are left out.
  void settle(AVFormatContext* out, std::int64_t endUs);

 private:
  AVChapter** held_ = nullptr;
  unsigned count_ = 0;
};

}  // namespace vf::media
