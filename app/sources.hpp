#pragma once
// Frame sources over cv::VideoCapture: cameras, files, network streams, GStreamer pipelines.
#include <memory>
#include <string>

#include "pipeline/engine.hpp"

namespace vf::app {

enum class SourceKind { Camera, File, ImageSequence, Url, GStreamer };

struct SourceSpec {
  SourceKind kind = SourceKind::File;
  std::string text;  // what the user wrote
  int cameraIndex = -1;
};

// Classifies `-i` text: "cam0" (camera), "rtsp://..." (URL), "... ! appsink" (GStreamer),
// "dir/img_%04d.png" (image sequence), anything else a file. Throws UsageError for a GStreamer
// pipeline that does not end in appsink or an unsupported URL scheme.
SourceSpec classifySource(const std::string& text);

const char* kindName(SourceKind k);

// The checks that need no decoder, run before the device opens: a file exists, is not a
// directory, and is readable. Throws UsageError.
void checkSourceAccess(const SourceSpec& spec);

// A source opened and its first frame decoded (so size and format are known before the chain
// is configured and the output opened). Throws UsageError with a clear message when the
// source cannot be opened or yields no frame.
class CaptureSource : public FrameSource {
 public:
  virtual FrameDesc firstFrameDesc() const = 0;
  virtual std::string description() const = 0;  // "vtest.avi (768x576 bgr, 10 fps, 795 frames)"
  // Frames that failed to decode and were skipped (files only).
  virtual std::int64_t failedFrames() const { return 0; }
  // Files that can seek (the preview's seek and frame-step keys). requestSeek is thread-safe:
  // the next frame next() delivers is the first one presented at or after `seconds` (decoded
  // from the keyframe before it, so the position is frame-exact).
  virtual bool seekable() const { return false; }
  virtual void requestSeek(double /*seconds*/) {}
};

std::unique_ptr<CaptureSource> openSource(const SourceSpec& spec);

}  // namespace vf::app
