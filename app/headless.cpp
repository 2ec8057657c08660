// vidfilter built without its live parts (-DVIDFILTER_LIVE=OFF: no OpenCV videoio, Qt or X):
// files, URLs, pipes and image sequences work as in the full build; a camera or a GStreamer
// pipeline as input, and the preview window (of one input or of several), are refused with one
// clear error (exit 2).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cv_capture.hpp"
#include "app/display.hpp"
#include "app/gst_diagnose.hpp"
#include "app/options.hpp"
#include "app/preview.hpp"
#include "app/tile_preview.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

const char* const kRebuild =
    "this vidfilter was built without live inputs and the preview (-DVIDFILTER_LIVE=OFF); use a "
    "full build for them";

UsageError previewRefused() {
  return UsageError(std::string("--preview: the preview window is not in this build: ") + kRebuild);
}

}  // namespace

std::unique_ptr<CaptureSource> openCvCapture(const SourceSpec& spec,
                                             const InputOptions& /*options*/) {
  throw UsageError("input " + quote(spec.text) + ": cameras and GStreamer pipelines need " +
                   "OpenCV's video capture, and " + kRebuild);
}

std::vector<GstFileRead> gstreamerFilesRead(const std::string& /*pipeline*/) { return {}; }

bool decidePreview(std::optional<bool> asked, bool /*writesSomething*/) {
  if (asked == true) throw previewRefused();
  return false;
}

std::unique_ptr<vf::FrameSink> makePreviewSink(vf::Engine& /*engine*/,
                                               const PreviewOptions& /*opts*/,
                                               PlaybackControl* /*playback*/) {
  throw previewRefused();
}

std::unique_ptr<InputsPreview> makeTilePreview(const Settings& /*s*/,
                                               const std::vector<PlannedJob>& /*jobs*/) {
  throw previewRefused();
}

}  // namespace vf::app
