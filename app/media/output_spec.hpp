#pragma once
// What `-o` names, worked out before anything opens: a video file (its container from -f or
// the name, as ffmpeg guesses it), an image pattern, stdout (-), or a network URL; with the
// encoder settings and what happens to the input's other streams.
#include <cstdint>
#include <optional>
#include <string>

#include "app/media/pattern.hpp"

namespace vf::media {

enum class OutputKind { None, Video, ImageSequence };

struct EncoderSettings {
  std::string codec;  // libavcodec encoder name; "" for the container's default
  std::string preset, pixFmt;
  std::optional<double> crf;
  std::optional<std::int64_t> bitrate;  // bits per second
};

struct OutputSpec {
  OutputKind kind = OutputKind::None;
  std::string path;       // as written ("-" for stdout)
  std::string url;        // what libavformat opens ("file:out.mp4", "pipe:1", the URL)
  std::string muxer;      // format name (mp4, matroska, image2, yuv4mpegpipe, mpegts, ...)
  std::string extension;  // lower case, without the dot
  bool toStdout = false, network = false;
  std::optional<FramePattern> pattern;  // image sequences
  EncoderSettings encoder;
  std::string audioCodec;  // "" or "copy": copied where the container takes it; else an encoder
  bool audio = true;       // false: -an
  bool chosen = false;     // the user chose the streams' codecs or pixel format (-c:v, -c:a, ...)
  std::int64_t maxFrames = -1;  // --frames: the output may end before its input does
};

struct OutputRequest {
  std::optional<std::string> path, format;
  EncoderSettings encoder;
  std::string audioCodec;
  bool audio = true;
  std::int64_t maxFrames = -1;
  std::optional<std::string> inputFormat;  // -f before -i: an unknown output's message says so
  bool oneImageIn = false;  // the input is one still image: a single image's name takes it
};

// An image type's extension, lower case without the dot: png, jpg, webp, ...
bool isImageExtension(const std::string& ext);

// Checks the request: a known container (from -f or the name) or image type, the directory
// exists and is writable, a pattern has exactly one frame number, the encoder exists and suits
// the container. Throws UsageError saying what to do.
OutputSpec classifyOutput(const OutputRequest& request);

// ffmpeg's spellings of an output: "pipe:" and "pipe:1" are "-" (stdout), "file:NAME" is NAME.
// Throws UsageError for "file:" alone and "pipe:N" of another descriptor.
std::string outputPath(const std::string& text);

// The encoder a container gets by default (ffmpeg's choice: libx264 for mp4/mkv/mov, VP9 for
// webm, PNG for .png patterns, ...), by name; "" when the container takes no video.
std::string defaultEncoder(const std::string& muxer, const std::string& path);

}  // namespace vf::media
