// crop against cv::Mat(frame, cv::Rect(x, y, w, h)): byte for byte, real and random frames,
// gray/bgr/bgra, windows at every edge, odd sizes; later stages take the window's size and
// see only the window (their borders are the window's, for every border mode).
#include <opencv2/imgproc.hpp>

#include <string>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {
std::string cropText(const cv::Rect& r) {
  return "crop=" + std::to_string(r.x) + ":" + std::to_string(r.y) + ":" + std::to_string(r.width) +
         ":" + std::to_string(r.height);
}
}  // namespace

TEST(CropStage, EqualsTheWindowOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(500, type);
    for (const cv::Rect r :
         {cv::Rect(0, 0, 768, 576), cv::Rect(100, 50, 640, 360), cv::Rect(767, 575, 1, 1),
          cv::Rect(1, 0, 767, 576), cv::Rect(0, 33, 768, 101), cv::Rect(13, 7, 333, 211)}) {
      const cv::Mat out = runChain(cropText(r), in);
      ASSERT_EQ(out.size(), r.size()) << cropText(r);
      EXPECT_EQ(maxAbsDiff(out, in(r)), 0) << cropText(r) << " channels " << in.channels();
    }
  }
}

TEST(CropStage, EqualsTheWindowOnRandomOddSizes) {
  unsigned seed = 7;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      const cv::Rect r(sz.width / 3, sz.height / 4, (sz.width + 1) / 2, (sz.height + 2) / 3);
      EXPECT_EQ(maxAbsDiff(runChain(cropText(r), in, Facts::Gpu), in(r)), 0) << sz;
    }
  }
}

TEST(CropStage, ZeroWidthAndHeightReachTheEdges) {
  const cv::Mat in = randomFrame(101, 77, CV_8UC3, 2);
  const cv::Mat out = runChain("crop=x=10:y=20", in);
  EXPECT_EQ(maxAbsDiff(out, in(cv::Rect(10, 20, 91, 57))), 0);
}

TEST(CropStage, LaterStagesSeeOnlyTheWindow) {
  const cv::Mat in = realFrame(200, CV_8UC1);
  const cv::Rect r(101, 57, 301, 203);
  for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
    const std::string b = std::string("border=") + border;
    const cv::Mat out = runChain(cropText(r) + ",blur=sigma=2:" + b + ",sobel=" + b, in);
    const cv::Mat window = in(r).clone();
    EXPECT_EQ(maxAbsDiff(out, runChain("blur=sigma=2:" + b + ",sobel=" + b, window)), 0) << border;
  }
}

TEST(CropStage, AWindowOutsideTheFrameIsAClearError) {
  Chain c = Chain::parse("crop=700:500:100:100");
  const FrameView v{nullptr, 768, 576, 768 * 3, PixelFormat::BGR8};
  try {
    c.configure(context(), v.desc());
    ADD_FAILURE() << "no error";
  } catch (const ChainError& e) {  // the stage in the chain's text, as a caret shows it
    EXPECT_EQ(e.message(),
              "crop: the window 100x100 at (700,500) does not fit in the 768x576 frame; give "
              "x+w <= width and y+h <= height (w=0, h=0: to the edge)");
    EXPECT_EQ(e.position(), 0u);
    EXPECT_EQ(e.length(), 20u);
  }
  // A corner outside the frame says so (no window of negative width).
  Chain far = Chain::parse("gray,crop=x=9999");
  try {
    far.configure(context(), v.desc());
    ADD_FAILURE() << "no error";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(),
              "crop: the corner (9999,0) lies outside the 768x576 frame; give x < 768 and y < 576");
    EXPECT_EQ(e.position(), 5u);
  }
}
