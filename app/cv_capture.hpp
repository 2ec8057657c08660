#pragma once
// Live sources read through OpenCV's cv::VideoCapture: cameras (V4L2) and GStreamer
// pipelines ending in appsink. Frames carry the capture clock's time (FrameTime in us).
#include <memory>

#include "app/sources.hpp"

namespace vf::app {

// Opens `spec` and decodes its first frame; of `options`, the span to deliver (--ss, --to, -t:
// seconds of the capture's time, from its first frame; the frames are stamped from the
// span's start). Throws UsageError with a clear message when the source cannot be opened,
// yields no frame or hands over JPEG images.
std::unique_ptr<CaptureSource> openCvCapture(const SourceSpec& spec, const InputOptions& options);

}  // namespace vf::app
