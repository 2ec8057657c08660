#pragma once
// Whether a video file at an output's name is complete, as a batch re-run asks before it skips
// the input: a file left by a run that was killed (an .mp4 without its index, a Matroska file
// without its duration), emptied or cut short (a copy that failed) is redone, not taken for
// done, and so is one shorter than its input gives (a plain run stopped early, which closes the
// file it wrote). Read: the containers' headers and the output's last seconds, not whole files.
#include <string>

namespace vf::media {

// "" when `path` opens as a video file whose container was closed (its duration written, where
// the container writes one when it closes: Matroska, WebM, MP4, QuickTime, AVI), whose last
// packets read to that duration and, where `expected` > 0 (the seconds the input gives), that
// last as long; else what is wrong, for a message ("it does not open: ...", "it has no video",
// "it was not closed", "it ends at 0.3 s of 2.0 s", "it holds 8.9 s of the input's 31.8 s").
std::string incompleteVideo(const std::string& path, double expected = 0);

// The length of a media file's video as its container declares it, in seconds; 0 where it
// declares none (or the file does not open).
double declaredSeconds(const std::string& path);

}  // namespace vf::media
