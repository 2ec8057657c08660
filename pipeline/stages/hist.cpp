// hist: placeholder until the stage lands (issue 3).
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {
class HistStage : public Stage {
 public:
  HistStage() : Stage(histStageInfo()) {}
  FrameDesc configure(StageContext&, const FrameDesc&) override {
    throw UserError("hist: not implemented yet");
  }
  StageEvents enqueue(cl::CommandQueue&, const cl::Buffer&, const cl::Buffer&,
                      const std::vector<cl::Event>&) override {
    return {};
  }
};
}  // namespace

const StageInfo& histStageInfo() {
  static const StageInfo info{"hist", "(not implemented yet)", "", {},
                              [] { return std::make_unique<HistStage>(); }};
  return info;
}
}  // namespace vf
