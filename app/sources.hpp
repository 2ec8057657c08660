#pragma once
// Where frames come from. Files, URLs, pipes and image sequences are read with FFmpeg's
// libraries (app/media/); cameras and GStreamer pipelines through OpenCV (app/cv_capture.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/camera_mode.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

enum class SourceKind { Camera, File, ImageSequence, Url, GStreamer, Pipe };

struct SourceSpec {
  SourceKind kind = SourceKind::File;
  std::string text;  // what the user wrote (a file:// URL's path for files)
  int cameraIndex = -1;
  CameraMode camera;  // cameras: the mode asked for (-i camN:WxH@FPS, then --camera-*)
};

// How an input is read, from the options (--ss, -t/--to, --rate, --size, --pix-fmt, --hwdec).
struct InputOptions {
  double start = 0;                // --ss, seconds on the input's timeline
  std::optional<double> end;       // --to, or --ss + -t (seconds on the same timeline)
  double rate = 0;                 // image sequences and raw video (0: 25 fps, as ffmpeg)
  std::string rawSize, rawPixFmt;  // raw video on stdin
  std::string format;              // the demuxer by name (--input-format; "": from the input)
  std::string hwdec = "none";      // none, auto, cuvid, cuda, vaapi
  std::string decodeGpu;           // NVIDIA decoders: the chain's GPU (DeviceInfo::pciAddresses)
  bool grayLuma = false;           // the chain begins with gray: deliver the luma plane
  int decodeThreads = 0;           // a file's decoder threads (0: one per core)
  int convertThreads = 1;          // threads converting a decoded frame into the slot
  CameraMode camera;               // --camera-size/--camera-fps/--camera-format
};

// Classifies `-i` text: "cam0" or "cam0:1280x720@60" (camera, with a mode), "-" (stdin),
// "rtsp://..." (URL), "... ! appsink" (GStreamer), "dir/img_%04d.png" or "dir/*.png" (image
// sequence), anything else a file. An existing path is always a file, whatever characters it holds.
// Throws UsageError for a GStreamer pipeline that does not end in appsink, a malformed frame-number
// pattern, or an unknown URL scheme, or a camera mode that does not parse.
SourceSpec classifySource(const std::string& text);

// ffmpeg's spellings of an input: "pipe:" and "pipe:0" are "-" (stdin), "file:NAME" is NAME (an
// existing file named so stays itself). Throws UsageError for "file:" alone and "pipe:N" of
// another descriptor.
std::string inputPath(const std::string& text);

// A GStreamer pipeline as it is opened: where the caps just before appsink ask for a raw format
// OpenCV's appsink does not hand over as BGR, BGRA or gray (I420 and NV12 came out as one tall
// gray plane, RGBA with red and blue swapped), a videoconvert to BGR (BGRA for formats with
// alpha) goes before appsink; `converted` then names the format asked for.
std::string gstreamerPipelineAsOpened(const std::string& pipeline, std::string* converted);

const char* kindName(SourceKind k);

// An input format (--input-format, ffmpeg's -f before -i; "" for none) FFmpeg has as a demuxer,
// for an input FFmpeg reads (image sequences: image2). Throws UsageError.
void checkInputFormat(const std::string& format, const SourceSpec& spec);

// The checks that need no decoder, run before the device opens: a file exists, is not a
// directory, and is readable; an image sequence has a first image; stdin is not a terminal.
// Throws UsageError.
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
  // What its end said of it (frames that failed to decode, a file cut short), as warned; read
  // after the run.
  virtual std::vector<std::string> notes() const { return {}; }
  // Files that can seek (the preview's seek and frame-step keys). requestSeek is thread-safe:
  // the next frame next() delivers is the first one presented at or after `seconds` (decoded
  // from the keyframe before it, so the position is frame-exact).
  virtual bool seekable() const { return false; }
  virtual void requestSeek(double /*seconds*/) {}
};

std::unique_ptr<CaptureSource> openSource(const SourceSpec& spec, const InputOptions& options);

}  // namespace vf::app
