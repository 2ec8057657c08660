#pragma once
// The live preview window (OpenCV highgui): the filtered frame with a timing overlay, keys to
// pause, toggle stages and move parameters. A FrameSink: consume() runs on the engine's sink
// thread, which also owns the window (highgui calls stay on that one thread).
#include <memory>
#include <string>

#include "pipeline/engine.hpp"

namespace vf::app {

struct PreviewOptions {
  bool compare = false;  // original and filtered side by side
  bool overlay = true;   // timing overlay on at start ('o' toggles)
  std::string deviceName;
  std::string chainText;
  std::string snapshotDir = ".";  // where 's' writes PNG snapshots
  std::string title = "vidfilter";
};

std::unique_ptr<vf::FrameSink> makePreviewSink(vf::Engine& engine, const PreviewOptions& opts);

}  // namespace vf::app
