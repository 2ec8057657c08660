#pragma once
// Where filtered frames go: a video file (cv::VideoWriter), an image sequence (one lossless
// image per frame), or nowhere (the null sink: timing runs, previews that write nothing).
#include <memory>
#include <optional>
#include <string>

#include "pipeline/engine.hpp"

namespace vf::app {

enum class OutputKind { None, Video, ImageSequence };

struct OutputSpec {
  OutputKind kind = OutputKind::None;
  std::string path;
  std::string extension;  // lower case, without the dot
  std::string fourcc;     // video only: --codec, else the container's default
};

// Checks `path` before anything runs: known container or image type, the directory exists
// and is writable, a sequence pattern has exactly one %d. Throws UsageError saying what to do.
OutputSpec classifyOutput(const std::optional<std::string>& path,
                          const std::optional<std::string>& codec);

// The codec a container gets when --codec is not given ("" when the container is unknown).
std::string defaultFourcc(const std::string& extension);

// Image file name for frame `index` (0-based; files count from 1 like FFmpeg's image2).
std::string sequenceFileName(const std::string& pattern, std::int64_t index);

// Opens the output for frames of `desc` at `fps` (0 = unknown: 30 is written and a warning
// logged). The file is created here, so errors come before processing starts.
std::unique_ptr<FrameSink> openOutput(const OutputSpec& spec, const FrameDesc& desc, double fps);

// Discards frames (timing runs; -o not given and no preview).
std::unique_ptr<FrameSink> makeNullSink();

}  // namespace vf::app
