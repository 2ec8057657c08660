#include "app/unused_options.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "pipeline/quote.hpp"

namespace vf::app {
namespace {

// "--a", "--a and --b", "--a, --b and --c".
std::string listed(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

bool isLive(SourceKind k) {
  return k == SourceKind::Camera || k == SourceKind::Url || k == SourceKind::GStreamer ||
         k == SourceKind::Pipe;
}

}  // namespace

void warnUnusedOptions(const Settings& given, const std::vector<SourceSpec>& sources,
                       bool preview) {
  const auto any = [&](auto pred) { return std::any_of(sources.begin(), sources.end(), pred); };
  const auto what = [&] {
    return sources.size() == 1
               ? "the input " + quote(sources[0].text) + " is a " + kindName(sources[0].kind)
               : std::string("no input is one");
  };
  std::vector<std::string> camera;
  if (given.cameraSize) camera.emplace_back("--camera-size");
  if (given.cameraFps) camera.emplace_back("--camera-fps");
  if (given.cameraFormat) camera.emplace_back("--camera-format");
  if (!camera.empty() && !any([](const SourceSpec& s) { return s.kind == SourceKind::Camera; }))
    spdlog::warn("{} {} for cameras (cam0, cam1, ...); {}: not used", listed(camera),
                 camera.size() == 1 ? "is" : "are", what());
  if (given.drop && !any([](const SourceSpec& s) { return isLive(s.kind); }))
    spdlog::warn("--drop is for live sources (cameras, streams, pipes); {}: not used", what());
  std::vector<std::string> window;
  if (given.window) window.emplace_back("--window");
  if (given.compare) window.emplace_back("--compare");
  if (given.overlay && !*given.overlay) window.emplace_back("--no-overlay");
  if (given.exitAtEnd) window.emplace_back("--exit-at-end");
  if (!window.empty() && !preview)
    spdlog::warn(
        "{} {} for the preview window, which this run does not open (add --preview to watch "
        "it): not used",
        listed(window), window.size() == 1 ? "is" : "are");
}

}  // namespace vf::app
