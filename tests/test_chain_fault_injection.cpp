// The fault-injection decorator (pipeline/fault_injection.hpp): the chain behaves as before,
// parameters set on it reach the wrapped stage, and its n-th enqueue fails as a device would.
#include <opencv2/core.hpp>

#include <string>

#include "pipeline/error.hpp"
#include "pipeline/fault_injection.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// brightness's result, as cv::Mat::convertTo computes it.
cv::Mat brightened(const cv::Mat& in, double gain, double bias) {
  cv::Mat out;
  in.convertTo(out, -1, gain, bias);
  return out;
}

}  // namespace

TEST(FaultInjection, TheNthEnqueueOfTheLastStageFailsAndNothingElseChanges) {
  Chain chain = Chain::parse("hist,brightness=gain=1.2:bias=-10");
  injectEnqueueFault(chain, 5, "the test");
  EXPECT_EQ(chain.str(), "hist,brightness=gain=1.2:bias=-10");
  const cv::Mat in = randomFrame(64, 48, CV_8UC3, 11);
  std::vector<std::vector<std::uint8_t>> side;
  // runChecked enqueues the chain twice: enqueues 1 to 4 succeed, with the hist stage's side
  // output and a live parameter change reaching the wrapped stage.
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in, &side), brightened(in, 1.2, -10)), 0);
  ASSERT_EQ(side.size(), 1u);
  EXPECT_EQ(side[0].size(), 3u * 256 * sizeof(cl_uint));
  chain.stage(1).params().set("gain", "0.5");
  chain.stage(1).update();
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), brightened(in, 0.5, -10)), 0);
  try {
    runChecked(chain, in);
    FAIL() << "the fifth enqueue did not fail";
  } catch (const ClError& e) {
    EXPECT_EQ(e.code(), CL_OUT_OF_RESOURCES);
    EXPECT_EQ(std::string(e.what()),
              "clEnqueueNDRangeKernel(brightness) [injected by the test]: CL_OUT_OF_RESOURCES");
  }
  // Once only: the next frames run.
  EXPECT_EQ(maxAbsDiff(runChecked(chain, in), brightened(in, 0.5, -10)), 0);
}
