#pragma once
// The files an input reads besides itself when it is a list of other files: an ffconcat list
// (`ffconcat version 1.0`, or anything `-f concat` reads, `file NAME` lines) or an HLS
// playlist (`#EXTM3U`; segments, init sections, nested playlists). FFmpeg's demuxers open them as
// the input plays; they are inputs as much as the list is, so no output may be one of them.
#include <string>
#include <vector>

namespace vf::media {

// The local files `path` names when it is such a list (names relative to the list's directory
// made so; URLs of other protocols left out), and the files the lists among them name, a few
// levels deep, each once; none when it is no list or cannot be read. `concat`: `path` is read as
// a concat list whatever its first bytes (-f concat names the demuxer).
std::vector<std::string> filesListedBy(const std::string& path, bool concat = false);

}  // namespace vf::media
