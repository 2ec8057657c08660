#pragma once
// Whether a video file at an output's name is complete, as a batch re-run asks before it skips
// the input: a file left by a run that was killed (an .mp4 without its index, a Matroska file
// without its duration), emptied or cut short (a copy that failed) is redone, not taken for
// done. Read: the container's header and its last seconds, not the whole file.
#include <string>

namespace vf::media {

// "" when `path` opens as a video file whose container was closed (its duration written, where
// the container writes one when it closes: Matroska, WebM, MP4, QuickTime, AVI) and whose last
// packets read to that duration; else what is wrong, for a message ("it does not open: ...",
// "it has no video", "it was not closed", "it ends at 0.3 s of 2.0 s").
std::string incompleteVideo(const std::string& path);

}  // namespace vf::media
