#pragma once
// Live sources read through OpenCV's cv::VideoCapture: cameras (V4L2) and GStreamer
// pipelines ending in appsink. Frames carry the capture clock's time (FrameTime in us).
#include <memory>

#include "app/sources.hpp"

namespace vf::app {

// Opens `spec` and decodes its first frame. Throws UsageError with a clear message when the
// source cannot be opened or yields no frame.
std::unique_ptr<CaptureSource> openCvCapture(const SourceSpec& spec);

}  // namespace vf::app
