// sobel: placeholder until the stage lands (issue 3).
#include "pipeline/cl/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {
class SobelStage : public Stage {
 public:
  SobelStage() : Stage(sobelStageInfo()) {}
  FrameDesc configure(StageContext&, const FrameDesc&) override {
    throw UserError("sobel: not implemented yet");
  }
  StageEvents enqueue(cl::CommandQueue&, const cl::Buffer&, const cl::Buffer&,
                      const std::vector<cl::Event>&) override {
    return {};
  }
};
}  // namespace

const StageInfo& sobelStageInfo() {
  static const StageInfo info{"sobel", "(not implemented yet)", "", {},
                              [] { return std::make_unique<SobelStage>(); }};
  return info;
}
}  // namespace vf
