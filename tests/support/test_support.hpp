#pragma once
// Helpers shared by the tests. OpenCV is only the independent reference here; the pipeline
// library itself never sees a cv::Mat.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "app/mat_view.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"

namespace vf::test {

// One context for the whole test program: VIDFILTER_TEST_DEVICE selects (default as vidfilter).
ClContext& context();
cl::CommandQueue& queue();

// Whose facts the stages choose their schedules from: the test device's own, or those of a GPU
// without vendor extensions on the same device (DeviceFacts::cpu false), which is how the GPU
// schedules' defaults run on a CPU device in CI.
enum class Facts { Device, Gpu };
ClContext& context(Facts facts);
cl::CommandQueue& queue(Facts facts);

// cv::Mat <-> FrameView: the app's adapter (formatOf, cvTypeOf, viewOf, matOf, makeMat,
// copyInto, copyOf).
using app::copyInto;
using app::copyOf;
using app::cvTypeOf;
using app::formatOf;
using app::makeMat;
using app::matOf;
using app::viewOf;

// Deterministic random 8-bit frame (uniform 0..255), never all-zero.
cv::Mat randomFrame(int width, int height, int type, unsigned seed);
// A real video frame (vtest.avi from opencv-doc, 768x576): sample `index % 8` of the 8 frames
// taken every 100th at build time. Converted to `type` (CV_8UC1/3/4) and cropped (centre) or
// resized to width x height when given (>0).
cv::Mat realFrame(int index, int type = CV_8UC3, int width = 0, int height = 0);

// Runs `chain` on `in` twice, the output poisoned first with 0x5A and then with 0xA5; both runs
// must agree (so every pixel was written, and the same), and the output is returned.
cv::Mat runChecked(Chain& chain, const cv::Mat& in,
                   std::vector<std::vector<std::uint8_t>>* side = nullptr,
                   Facts facts = Facts::Device);
// Same for a chain string.
cv::Mat runChain(const std::string& chainText, const cv::Mat& in, Facts facts = Facts::Device);

// The chain `text` fused and unfused over `frames` (one chain each, so the histograms'
// buffers advance per frame): every output and side output the same (gtest expectations).
// Returns the fused chain's passes.
std::vector<Chain::Pass> expectSameOver(const std::string& text, const std::vector<cv::Mat>& frames,
                                        Facts facts = Facts::Device);

// Largest absolute difference of two same-size, same-type 8-bit images.
int maxAbsDiff(const cv::Mat& a, const cv::Mat& b);

// Sizes every stage is tested at (1x1, 2x2, 17x13, 640x480, 1921x1081).
const std::vector<cv::Size>& oddSizes();

}  // namespace vf::test
