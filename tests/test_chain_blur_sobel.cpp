// The blur computed in the sobel's pass (pipeline/stages/blur_sobel.hpp, kernels/blur_sobel.cl),
// as the planner fuses them (pipeline/fusion.hpp): against OpenCV (GaussianBlur, then Sobel) on
// real and random frames, odd and tiny sizes, every format, every pair of border rules, every
// aperture and mode, several work-item shapes; the whole default chain as one pass against the
// chain unfused (output and histogram); live changes of the blur's radius; and where the
// planner leaves the two apart.
#include <opencv2/imgproc.hpp>

#include "pipeline/stages/blur_taps.hpp"
#include "tests/support/sobel_check.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// cv::GaussianBlur under any border rule and outside value: the frame padded by the radius as
// the rule reads it (copyMakeBorder takes wrap and a constant value, GaussianBlur neither),
// blurred, the centre kept.
cv::Mat cvBlur(const cv::Mat& in, double sigma, int ksize, const std::string& border, int value) {
  const int r = ksize / 2, cvBorder = cvBorderType(parseBorder(border));
  cv::Mat padded, out;
  cv::copyMakeBorder(in, padded, r, r, r, r, cvBorder, cv::Scalar::all(value));
  cv::GaussianBlur(padded, out, cv::Size(ksize, ksize), sigma, sigma, cv::BORDER_REPLICATE);
  return out(cv::Rect(r, r, in.cols, in.rows)).clone();
}

struct BlurCase {
  double sigma;
  int ksize;  // what cv::GaussianBlur is given (derivedKsize for the stage's ksize=0)
  std::string border;
  int value;
  std::string text() const {
    return "blur=sigma=" + std::to_string(sigma) + ":ksize=" + std::to_string(ksize) +
           ":border=" + border + ":value=" + std::to_string(value);
  }
};

bool computesTheBlur(const std::vector<Chain::Pass>& passes) {
  for (const auto& p : passes)
    if (p.schedule.find("filter=blur") != std::string::npos) return true;
  return false;
}

// `b` then `c` (with filter=on in its schedule) on `in`: one pass, named blur+sobel, and the
// pixels of GaussianBlur then Sobel.
void expectOnePassIsOpenCvs(const BlurCase& b, const Config& c, const cv::Mat& in) {
  const std::string text = b.text() + "," + c.chain();
  SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
  Chain chain = Chain::parse(text);
  chain.setFusion(Chain::Fusion::On);
  const cv::Mat out = runChecked(chain, in);
  ASSERT_EQ(chain.passes().size(), 1u);
  EXPECT_TRUE(computesTheBlur(chain.passes()));
  EXPECT_EQ(chain.timingNames(), (std::vector<std::string>{"blur+sobel", ""}));
  EXPECT_EQ(maxAbsDiff(out, reference(cvBlur(in, b.sigma, b.ksize, b.border, b.value), c)), 0);
}

const char* kSobelBorders[] = {"reflect101", "replicate", "reflect", "constant"};
const char* kBlurBorders[] = {"reflect101", "replicate", "reflect", "wrap", "constant"};

}  // namespace

// One pass, the pixels of GaussianBlur then Sobel: every format, aperture and mode, the blur's
// border rules against the sobel's, radii 0 to 8, sizes from 1x1 up, where every tile touches
// an edge and where most do not. Tiles of 64 bytes x 16 rows, whose arrays fit in the 32 KB of
// local memory every OpenCL device has at radius 8 on BGRA.
TEST(BlurSobel, IsOpenCvs) {
  const cv::Size sizes[] = {{1, 1}, {2, 3}, {5, 4}, {17, 13}, {64, 40}, {131, 67}, {203, 77}};
  const std::pair<double, int> blurs[] = {{1.5, 11}, {0.8, 3}, {1.1, 5}, {2.5, 17}, {1.0, 1}};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const int ksize : {1, 3, 5, 7}) {
      const int type = k % 3 == 0 ? CV_8UC1 : k % 3 == 1 ? CV_8UC3 : CV_8UC4;
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, type, 900 + k)
                               : realFrame(k, type, size.width, size.height);
      const BlurCase b{blurs[k % 5].first, blurs[k % 5].second, kBlurBorders[k % 5], 40 + k};
      Config c;
      c.ksize = ksize;
      c.mode = kModes[k % 4];
      c.border = kSobelBorders[(k / 5) % 4];
      c.value = 200 - k;
      c.scale = k % 7 == 3 ? 0.5 : 1;
      c.schedule = "filter=on:vec=4:rows=2:wg=16x8";
      ++k;
      expectOnePassIsOpenCvs(b, c, in);
    }
}

// Work-item shapes other than the default (tiles narrower and shorter than the halo, rows per
// work-item from 1 to 16, groups of odd sizes): the same pixels.
TEST(BlurSobel, EveryShapeIsOpenCvs) {
  const char* shapes[] = {"vec=4:rows=1:wg=3x5", "vec=8:rows=2:wg=7x3", "vec=16:rows=16:wg=2x2",
                          "vec=4:rows=4:wg=16x4", "vec=16:rows=1:wg=4x16"};
  int k = 0;
  for (const char* shape : shapes)
    for (const cv::Size size : {cv::Size(3, 2), cv::Size(45, 31), cv::Size(150, 83)}) {
      const int type = k % 3 == 0 ? CV_8UC3 : k % 3 == 1 ? CV_8UC1 : CV_8UC4;
      const cv::Mat in = k % 2 ? realFrame(k, type, size.width, size.height)
                               : randomFrame(size.width, size.height, type, 300 + k);
      const BlurCase b{1.3, 9, kBlurBorders[k % 5], 11 * k};
      Config c;
      c.ksize = 3 + 2 * (k % 3);
      c.border = kSobelBorders[k % 4];
      c.value = 7 * k;
      c.schedule = std::string("filter=on:") + shape;
      ++k;
      expectOnePassIsOpenCvs(b, c, in);
    }
}

// The whole chain as one pass: gray read through from BGR and BGRA, the blur and the sobel, the
// histogram and brightness as stored; the same bytes and histograms as the chain unfused, over
// three frames, and the pixels of OpenCV's functions. At 404x131 (rows of whole words) the default
// tiles (128 bytes x 32 rows) have groups whose source lies wholly inside the frame.
TEST(BlurSobel, TheWholeChainIsOnePass) {
  const cv::Size sizes[] = {{7, 5}, {64, 33}, {203, 77}, {404, 131}};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const int type : {CV_8UC3, CV_8UC4}) {
      const std::string text =
          "gray,blur=sigma=1.2,sobel=filter=on:ksize=" + std::to_string(3 + 2 * (k % 3)) +
          ",hist,brightness=gain=1.4:bias=-12";
      ++k;
      Chain fused = Chain::parse(text), plain = Chain::parse(text);
      fused.setFusion(Chain::Fusion::On);
      plain.setFusion(Chain::Fusion::Off);
      for (int f = 0; f < 3; ++f) {
        const cv::Mat in = f % 2 ? randomFrame(size.width, size.height, type, 60 + k + f)
                                 : realFrame(k + f, type, size.width, size.height);
        SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
        std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
        const cv::Mat a = runChecked(fused, in, &sideFused), b = runChecked(plain, in, &sidePlain);
        ASSERT_EQ(fused.passes().size(), 1u);
        EXPECT_EQ(fused.passes()[0].label, "gray+blur+sobel+hist+brightness");
        EXPECT_EQ(maxAbsDiff(a, b), 0);
        EXPECT_EQ(sideFused, sidePlain);
        cv::Mat gray, ref;
        cv::cvtColor(in, gray, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        Config c;
        c.ksize = 3 + 2 * ((k - 1) % 3);
        reference(cvBlur(gray, 1.2, 9, "reflect101", 0), c).convertTo(ref, -1, 1.4, -12);
        EXPECT_EQ(maxAbsDiff(a, ref), 0);
      }
    }
}

// A live sigma that moves the blur's radius (2, 5, 0, 2): the pass rebuilds for it and each
// frame is OpenCV's.
TEST(BlurSobel, LiveSigmaMovesTheRadius) {
  const cv::Mat in = realFrame(3, CV_8UC3, 97, 61);
  Chain chain = Chain::parse("blur=sigma=0.6,sobel=filter=on:mode=l2");
  chain.setFusion(Chain::Fusion::On);
  for (const double sigma : {0.6, 1.4, 0.1, 0.6}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    chain.stage(0).params().set("sigma", std::to_string(sigma));
    chain.stage(0).update();
    const cv::Mat out = runChecked(chain, in);
    EXPECT_TRUE(computesTheBlur(chain.passes()));
    const int ksize = derivedKsize(sigma);
    Config c;
    c.mode = "l2";
    EXPECT_EQ(maxAbsDiff(out, reference(cvBlur(in, sigma, ksize, "reflect101", 0), c)), 0);
  }
}

// A live sigma past the pass's reach (radius 18 > 16) and back, in the whole chain: the gray
// functions, the blur and the sobel then run one after the other inside the sobel's pass, the
// chain unplanned; every frame and histogram is the unfused chain's and OpenCV's.
TEST(BlurSobel, LiveSigmaPastThePassAndBack) {
  const std::string text = "gray,blur=sigma=1.2,sobel=filter=on,hist,brightness=gain=1.3";
  Chain fused = Chain::parse(text), plain = Chain::parse(text);
  fused.setFusion(Chain::Fusion::On);
  plain.setFusion(Chain::Fusion::Off);
  int k = 0;
  for (const double sigma : {1.2, 6.0, 6.5, 1.2, 2.0}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    for (Chain* c : {&fused, &plain}) {
      c->stage(1).params().set("sigma", std::to_string(sigma));
      c->stage(1).update();
    }
    const cv::Mat in = k % 2 ? randomFrame(83, 45, CV_8UC3, 70 + k) : realFrame(k, CV_8UC3, 83, 45);
    ++k;
    std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
    const cv::Mat a = runChecked(fused, in, &sideFused), b = runChecked(plain, in, &sidePlain);
    ASSERT_EQ(fused.passes().size(), 1u);
    EXPECT_EQ(maxAbsDiff(a, b), 0);
    EXPECT_EQ(sideFused, sidePlain);
    cv::Mat gray, ref;
    cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
    reference(cvBlur(gray, sigma, derivedKsize(sigma), "reflect101", 0), Config{})
        .convertTo(ref, -1, 1.3, 0);
    EXPECT_EQ(maxAbsDiff(a, ref), 0);
  }
}

// With a GPU's facts the default chain is one pass on gray frames up to 1920x1080 (2560x1440 for
// ksize 5 and 7) with rows of whole words (padded rows always are) and radii up to 8, the same
// bytes as unfused; past any of those, and on colour frames, the blur runs as its own pass.
TEST(BlurSobel, GpuDefaults) {
  const auto passesOf = [](const std::string& text, const cv::Mat& in,
                           Chain::RowPitch rows = Chain::RowPitch::Auto) {
    Chain fused = Chain::parse(text), plain = Chain::parse(text);
    fused.setRowPitch(rows);
    plain.setRowPitch(rows);
    plain.setFusion(Chain::Fusion::Off);
    std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
    const cv::Mat a = runChecked(fused, in, &sideFused, Facts::Gpu),
                  b = runChecked(plain, in, &sidePlain, Facts::Gpu);
    EXPECT_EQ(maxAbsDiff(a, b), 0) << text;
    EXPECT_EQ(sideFused, sidePlain) << text;
    return fused.passes();
  };
  const cv::Mat bgr = realFrame(5, CV_8UC3, 1920, 1080);
  auto passes = passesOf("gray,blur,sobel,hist,brightness", bgr);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_TRUE(computesTheBlur(passes));
  EXPECT_TRUE(computesTheBlur(
      passesOf("gray,blur,sobel,hist,brightness", realFrame(5, CV_8UC3, 1919, 1080))));
  EXPECT_FALSE(
      computesTheBlur(passesOf("gray,blur,sobel,hist,brightness", realFrame(5, CV_8UC3, 1919, 1080),
                               Chain::RowPitch::Packed)));
  EXPECT_FALSE(computesTheBlur(passesOf("gray,blur,sobel", realFrame(6, CV_8UC3, 1924, 1080))));
  EXPECT_TRUE(
      computesTheBlur(passesOf("gray,blur,sobel=ksize=5", realFrame(6, CV_8UC3, 1924, 1080))));
  EXPECT_FALSE(computesTheBlur(passesOf("blur,sobel", realFrame(7, CV_8UC3, 320, 240))));
  const cv::Mat gray = realFrame(3, CV_8UC1, 1280, 720);
  EXPECT_FALSE(computesTheBlur(passesOf("blur=sigma=3,sobel", gray)));
  EXPECT_TRUE(computesTheBlur(passesOf("blur=sigma=2.5,sobel", gray)));
}

// Where the two stay apart: the sobel's border=wrap, filter=off, a blur schedule named by hand,
// fusion off, and by default on a CPU (on a GPU the default fuses them).
TEST(BlurSobel, WhereTheyStayApart) {
  const cv::Mat in = realFrame(1, CV_8UC1, 64, 48);
  for (const char* text : {"blur,sobel=filter=on:border=wrap", "blur,sobel=filter=off",
                           "blur=kernel=cpu,sobel=filter=on"}) {
    SCOPED_TRACE(text);
    Chain chain = Chain::parse(text);
    chain.setFusion(Chain::Fusion::On);
    runChecked(chain, in);
    EXPECT_EQ(chain.passes().size(), 2u);
    EXPECT_FALSE(computesTheBlur(chain.passes()));
  }
  Chain byDefault = Chain::parse("blur,sobel");
  runChecked(byDefault, in);
  EXPECT_EQ(computesTheBlur(byDefault.passes()), !context().facts().cpu);
  Chain off = Chain::parse("blur,sobel=filter=on");
  off.setFusion(Chain::Fusion::Off);
  runChecked(off, in);
  EXPECT_EQ(off.passes().size(), 2u);
}
