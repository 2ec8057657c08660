#pragma once
#include "pipeline/stage.hpp"

namespace vf {
// One accessor per stage type (defined in pipeline/stages/<name>.cpp).
const StageInfo& grayStageInfo();
const StageInfo& blurStageInfo();
const StageInfo& sobelStageInfo();
const StageInfo& histStageInfo();
const StageInfo& brightnessStageInfo();
const StageInfo& resizeStageInfo();
const StageInfo& cropStageInfo();
const StageInfo& equalizeStageInfo();
const StageInfo& thresholdStageInfo();
const StageInfo& colorStageInfo();
const StageInfo& userKernelStageInfo();
}  // namespace vf
