#include "pipeline/fault_injection.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "pipeline/error.hpp"

namespace vf {
namespace {

// The decorator: the stage as it is, except for the failing enqueue. Its own parameters are
// the ones users change (Chain::stage(i).params()): copied into the wrapped stage before each
// call that reads them.
class FailingStage : public Stage {
 public:
  FailingStage(std::unique_ptr<Stage> inner, long n, std::string label)
      : Stage(inner->info()), inner_(std::move(inner)), failAt_(n), label_(std::move(label)) {
    params() = inner_->params();
  }

  void validate() const override {
    sync();
    inner_->validate();
  }
  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    sync();
    return inner_->configure(ctx, in);
  }
  void update() override {
    sync();
    inner_->update();
  }
  std::string schedule() const override { return inner_->schedule(); }
  bool takesRowPitch() const override { return inner_->takesRowPitch(); }
  bool passthrough() const override { return inner_->passthrough(); }
  std::vector<SideOutput> sideOutputs() const override { return inner_->sideOutputs(); }

  StageEvents enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (++enqueues_ == failAt_)
      throw ClError(CL_OUT_OF_RESOURCES,
                    "clEnqueueNDRangeKernel(" + name() + ") [injected by " + label_ + "]");
    return inner_->enqueue(queue, in, out, wait);
  }

 private:
  void sync() const { inner_->params() = params(); }

  std::unique_ptr<Stage> inner_;
  const long failAt_;
  const std::string label_;
  long enqueues_ = 0;
};

}  // namespace

void injectEnqueueFault(Chain& chain, long n, const std::string& label) {
  if (chain.size() == 0 || n < 1) return;
  chain.wrapStage(chain.size() - 1, [&](std::unique_ptr<Stage> inner) -> std::unique_ptr<Stage> {
    return std::make_unique<FailingStage>(std::move(inner), n, label);
  });
}

void injectFaultsFromEnvironment(Chain& chain) {
  const char* v = std::getenv("VIDFILTER_FAULT");
  const char* prefix = "enqueue:";
  if (!v || std::strncmp(v, prefix, std::strlen(prefix)) != 0) return;
  const long n = std::strtol(v + std::strlen(prefix), nullptr, 10);
  injectEnqueueFault(chain, n, "VIDFILTER_FAULT=enqueue:" + std::to_string(n));
}

}  // namespace vf
