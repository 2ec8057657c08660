#pragma once
// What GStreamer itself tells of a pipeline: the files its sources read, and why it does not
// start. OpenCV's capture only says that it did not; GStreamer
// itself, asked again, names the cause (an element it has not, a file or device a source cannot
// open, caps nothing can take), which the user's error message then carries.
#include <string>
#include <vector>

namespace vf::app {

// What GStreamer can tell of `pipeline` without starting it: the error of its parse ("no element
// \"v4l2src\"": OpenCV, handed the rest of such a pipeline, waits for it forever), or a source's
// device that does not exist ("v4l2src0: device '/dev/video9' does not exist"; *camera set when
// it is a /dev/video* node); "" when neither.
std::string gstreamerParseError(const std::string& pipeline, bool* camera);

// A file a pipeline's source reads: its "location" as written, and how the source takes it.
struct GstFileRead {
  enum class Kind { File, FramePattern, Glob };
  std::string location;
  Kind kind = Kind::File;  // multifilesrc: a frame-number pattern; splitmuxsrc: a glob
};

// The files `pipeline`'s sources read (the "location" of each source that has one); none where
// GStreamer cannot parse it. A build without live inputs has no GStreamer: none.
std::vector<GstFileRead> gstreamerFilesRead(const std::string& pipeline);

// Starts `pipeline` on its own for at most about two seconds and returns GStreamer's first
// error, "filesrc0: Resource not found. (No such file \"/x.mp4\")", "no element \"foo\"", or
// what reaches its appsink when that is not raw video ("appsink receives audio/x-raw, ..."); ""
// when it shows none of these. Its appsink keeps one buffer at most meanwhile.
std::string gstreamerStartError(const std::string& pipeline);

}  // namespace vf::app
