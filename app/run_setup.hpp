#pragma once
// What a run checks and derives before anything opens: the paths it reads and writes (no
// output over an input, existing outputs only with -y), the --stats directory, and how the
// input is read.
#include <string>

#include "app/media/path_safety.hpp"
#include "app/options.hpp"
#include "app/sinks.hpp"
#include "app/sources.hpp"
#include "pipeline/chain.hpp"

namespace vf::app {

// Nothing read (the config, the input, the files `chain` reads) is written over, and an existing
// output is replaced only as ffmpeg would (-y, -n, or a question on a terminal). Throws
// UsageError.
void checkPaths(const Settings& s, const std::string& configPath, const Chain& chain,
                const SourceSpec& src, const OutputSpec& out);

// Tells `g` that the file `path` is read, named by `role`, and so are the files it names when
// it is an ffconcat list or an HLS playlist (app/media/listed_files.hpp); `concat`: it is read
// as a concat list whatever its first bytes (-f concat).
void guardFileReads(media::PathGuard& g, const std::string& path, const std::string& role,
                    bool concat = false);

// Tells `g` what `src` reads, named by `role` ("the input"): its file (and a list's files), a
// sequence's images, stdin's file (-i -), the files a GStreamer pipeline's sources name
// (filesrc location=...).
void guardSourceReads(media::PathGuard& g, const SourceSpec& src, const std::string& role,
                      bool concat = false);

// The --stats (or --json) file's directory exists and is writable, or the path is a device or
// a FIFO (written as it is). Throws UsageError.
void checkStatsPath(const std::string& path, const std::string& option = "--stats");

// The chain of the settings (--chain, fused as --fuse/--no-fuse say, Auto otherwise), with the
// faults VIDFILTER_FAULT injects for the reliability tests. Throws ParamError.
Chain chainOf(const Settings& s);

// How the input is read, from the settings. A chain that begins with gray takes the luma plane,
// unless the preview may switch that stage off. Throws UsageError for an empty span.
InputOptions inputOptions(const Settings& s, const Chain& chain, bool preview);

}  // namespace vf::app
