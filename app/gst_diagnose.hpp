#pragma once
// Why a GStreamer pipeline does not start. OpenCV's capture only says that it did not; GStreamer
// itself, asked again, names the cause (an element it has not, a file or device a source cannot
// open, caps nothing can take), which the user's error message then carries.
#include <string>

namespace vf::app {

// Starts `pipeline` on its own for at most about two seconds and returns GStreamer's first
// error, "filesrc0: Resource not found. (No such file \"/x.mp4\")", "no element \"foo\""; ""
// when it shows none. Its appsink keeps one buffer at most meanwhile.
std::string gstreamerStartError(const std::string& pipeline);

}  // namespace vf::app
