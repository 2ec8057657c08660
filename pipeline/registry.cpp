#include "pipeline/registry.hpp"

#include <sstream>

#include "pipeline/stages/stage_infos.hpp"

namespace vf {

const std::vector<const StageInfo*>& stageRegistry() {
  // One line per stage.
  static const std::vector<const StageInfo*> all = {
      &grayStageInfo(),       &blurStageInfo(),   &sobelStageInfo(),      &histStageInfo(),
      &brightnessStageInfo(), &resizeStageInfo(), &cropStageInfo(),       &equalizeStageInfo(),
      &thresholdStageInfo(),  &colorStageInfo(),  &userKernelStageInfo(),
  };
  return all;
}

const StageInfo* findStage(const std::string& name) {
  for (const auto* s : stageRegistry())
    if (s->name == name) return s;
  return nullptr;
}

std::vector<std::string> stageNames() {
  std::vector<std::string> names;
  for (const auto* s : stageRegistry()) names.push_back(s->name);
  return names;
}

std::string formatStageList() {
  std::ostringstream os;
  for (const auto* s : stageRegistry()) {
    os << s->name << "  " << s->summary << "\n";
    os << "    formats: " << s->formats << "\n";
    for (const auto& p : s->params) {
      os << "    " << p.name << " (" << p.typeName() << ", default " << p.defaultValue << ", "
         << p.rangeText() << (p.live ? ", live" : "") << (p.schedule ? ", schedule" : "") << ")  "
         << p.help << "\n";
    }
    os << "\n";
  }
  os << "Chain syntax: stage[=param=value[:param=value...]],stage...  e.g.\n"
        "  gray,blur=sigma=2:border=replicate,sobel=mode=l2,hist,brightness=auto\n"
        "A bare value sets the stage's first parameter: brightness=auto is brightness=mode=auto.\n"
        "Schedule parameters choose how a stage runs on the device, never its result.\n";
  return os.str();
}

}  // namespace vf
