// blur: placeholder until the stage lands (issue 3).
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {
class BlurStage : public Stage {
 public:
  BlurStage() : Stage(blurStageInfo()) {}
  FrameDesc configure(StageContext&, const FrameDesc&) override {
    throw UserError("blur: not implemented yet");
  }
  StageEvents enqueue(cl::CommandQueue&, const cl::Buffer&, const cl::Buffer&,
                      const std::vector<cl::Event>&) override {
    return {};
  }
};
}  // namespace

const StageInfo& blurStageInfo() {
  static const StageInfo info{"blur", "(not implemented yet)", "", {},
                              [] { return std::make_unique<BlurStage>(); }};
  return info;
}
}  // namespace vf
