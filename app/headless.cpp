// vidfilter built without its live parts (-DVIDFILTER_LIVE=OFF: no OpenCV videoio, Qt or X):
// files, URLs, pipes and image sequences work as in the full build; a camera or a GStreamer
// pipeline as input, and the preview window (of one input or of several), are refused with one
// clear error (exit 2).
#include <memory>
#include <optional>
#include <string>

#include "app/cv_capture.hpp"
#include "app/display.hpp"
#include "app/options.hpp"
#include "app/preview.hpp"
#include "app/tile_preview.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

const char* const kRebuild =
    "this vidfilter was built without live inputs and the preview (-DVIDFILTER_LIVE=OFF); use a "
    "full build for them";

}  // namespace

std::unique_ptr<CaptureSource> openCvCapture(const SourceSpec& spec) {
  throw UsageError("input " + quote(spec.text) + ": cameras and GStreamer pipelines need " +
                   "OpenCV's video capture, and " + kRebuild);
}

bool displayVariablesSet() { return false; }

DisplayStatus probeDisplay() {
  DisplayStatus st;
  st.reason = std::string("the preview window is not in this build: ") + kRebuild;
  return st;
}

bool decidePreview(std::optional<bool> asked, bool /*writesSomething*/) {
  if (asked == true) throw UsageError("--preview: " + probeDisplay().reason);
  return false;
}

std::unique_ptr<vf::FrameSink> makePreviewSink(vf::Engine& /*engine*/,
                                               const PreviewOptions& /*opts*/,
                                               PlaybackControl* /*playback*/) {
  throw UsageError("--preview: " + probeDisplay().reason);
}

std::unique_ptr<InputsPreview> makeTilePreview(const Settings& /*s*/,
                                               const std::vector<PlannedJob>& /*jobs*/) {
  throw UsageError("--preview: " + probeDisplay().reason);
}

}  // namespace vf::app
