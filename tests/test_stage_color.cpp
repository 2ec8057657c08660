// color against cv::cvtColor, byte for byte: to hsv, lab, yuv and gray from bgr and bgra, to bgr
// from gray and bgra, on real frames, random odd sizes and every 8-bit colour of a 4096-colour
// lattice (the tables' corners: grays, saturated colours, near-ties of the maximum), with the
// device's schedule and a GPU's.
#include <opencv2/imgproc.hpp>

#include <string>

#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// The OpenCV code for (target, input channels); -1 when there is none.
int cvCode(const std::string& to, int channels) {
  const bool four = channels == 4;
  if (channels == 1) return to == "bgr" ? cv::COLOR_GRAY2BGR : -1;
  if (to == "hsv") return cv::COLOR_BGR2HSV;
  if (to == "lab") return cv::COLOR_BGR2Lab;
  if (to == "yuv") return cv::COLOR_BGR2YUV;
  if (to == "gray") return four ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY;
  return four ? cv::COLOR_BGRA2BGR : -1;
}

cv::Mat reference(const cv::Mat& in, const std::string& to) {
  cv::Mat src = in, out;
  if (in.channels() == 4 && to != "gray" && to != "bgr") cv::cvtColor(in, src, cv::COLOR_BGRA2BGR);
  const int code = cvCode(to, src.channels());
  if (code < 0) return in.clone();  // bgr to bgr
  cv::cvtColor(src, out, code);
  return out;
}

// Every colour whose channels are multiples of 17 (16^3), and their neighbours +-1.
cv::Mat lattice() {
  cv::Mat m(48, 4096, CV_8UC3);
  for (int i = 0; i < 4096; ++i)
    for (int d = -1; d <= 1; ++d) {
      const int b = (i & 15) * 17, g = ((i >> 4) & 15) * 17, r = (i >> 8) * 17;
      for (int row = 0; row < 16; ++row) {
        const int jitter = (row % 3) - 1;
        m.at<cv::Vec3b>((d + 1) * 16 + row, i) =
            cv::Vec3b(cv::saturate_cast<uchar>(b + d), cv::saturate_cast<uchar>(g + jitter),
                      cv::saturate_cast<uchar>(r - d * jitter));
      }
    }
  return m;
}

// Lab: within one level, and rarely. OpenCV computes its gamma and cube-root tables in its
// soft float, the stage in double: a few table entries round to the neighbouring integer
// (measured here: 1 value in 100,000 one level off).
constexpr double kLabOffShare = 1e-4;
int tolerance(const std::string& to) { return to == "lab" ? 1 : 0; }

}  // namespace

TEST(ColorStage, EqualsOpenCVOnRealFramesAndTheLattice) {
  for (const char* to : {"hsv", "lab", "yuv", "gray", "bgr"})
    for (int type : {CV_8UC3, CV_8UC4}) {
      std::vector<cv::Mat> frames = {realFrame(300, type), realFrame(600, type)};
      cv::Mat l = lattice();
      if (type == CV_8UC4) cv::cvtColor(l, l, cv::COLOR_BGR2BGRA);
      frames.push_back(l);
      for (const cv::Mat& in : frames) {
        const cv::Mat out = runChain(std::string("color=to=") + to, in);
        const cv::Mat ref = reference(in, to);
        ASSERT_EQ(out.size(), ref.size());
        ASSERT_EQ(out.type(), ref.type()) << to;
        EXPECT_LE(maxAbsDiff(out, ref), tolerance(to))
            << to << " from " << in.channels() << " channels " << in.size();
        if (std::string(to) == "lab") {
          cv::Mat d;
          cv::absdiff(out, ref, d);
          const double off = double(cv::countNonZero(d.reshape(1))) / double(d.total() * 3);
          EXPECT_LT(off, kLabOffShare) << "share of lab values one level off: " << off;
        }
      }
    }
}

TEST(ColorStage, EqualsOpenCVOnRandomOddSizes) {
  unsigned seed = 31;
  for (Facts facts : {Facts::Device, Facts::Gpu})
    for (const auto& sz : oddSizes())
      for (const char* to : {"hsv", "lab", "yuv", "gray", "bgr"})
        for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
          if (type == CV_8UC1 && std::string(to) != "bgr" && std::string(to) != "gray") continue;
          const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
          EXPECT_LE(
              maxAbsDiff(runChain(std::string("color=to=") + to, in, facts), reference(in, to)),
              tolerance(to))
              << to << " " << sz << " type " << type;
        }
}

TEST(ColorStage, PassesThroughWhenNothingChanges) {
  Chain c = Chain::parse("color=to=bgr");
  const cv::Mat in = randomFrame(31, 7, CV_8UC3, 3);
  EXPECT_EQ(maxAbsDiff(runChecked(c, in), in), 0);
  EXPECT_TRUE(c.stage(0).passthrough());
}

TEST(ColorStage, GrayToHsvIsAClearError) {
  Chain c = Chain::parse("color=to=hsv");
  try {
    c.configure(context(), FrameDesc{8, 8, PixelFormat::Gray8});
    ADD_FAILURE() << "no error";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(), "color: to=hsv needs bgr or bgra input, got gray");
  }
}
