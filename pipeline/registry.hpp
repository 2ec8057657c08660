#pragma once
#include <memory>
#include <string>
#include <vector>

#include "pipeline/stage.hpp"

namespace vf {

// Every stage type, in the order --list-stages shows them.
const std::vector<const StageInfo*>& stageRegistry();
const StageInfo* findStage(const std::string& name);  // nullptr when unknown
std::vector<std::string> stageNames();

// Text of --list-stages: every stage with its parameters, defaults, ranges and help.
std::string formatStageList();

}  // namespace vf
