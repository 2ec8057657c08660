// The blur on the tensor cores in the sobel's pass (sobel filter=slab, kernels/
// blur_sobel_slab.cl; the products emulated off NVIDIA): against OpenCV (GaussianBlur, then
// Sobel) on real and random frames, odd and tiny sizes, every format, the blur's border rules
// against the sobel's, every aperture and mode, strips and groups narrower and shorter than the
// halo; the whole chain as one pass against the chain unfused (output and histogram); a live
// sigma that leaves the products' reach and comes back.
#include <opencv2/imgproc.hpp>

#include "pipeline/stages/blur_taps.hpp"
#include "tests/support/blur_sobel_check.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

const char* kSobelBorders[] = {"reflect101", "replicate", "reflect", "constant"};
const char* kBlurBorders[] = {"reflect101", "replicate", "reflect", "wrap", "constant"};
// Group shapes: tiles of 16, 32 and 224 bytes (16 sets x warps - 32) by strips of 1 to 4 bands,
// the sobel's vec x rows a work-item 4 x 1 to 16 x 4.
const char* kShapes[] = {"strip=1x16:warps=3:vec=4:rows=1", "strip=2x32:warps=2:vec=8:rows=4",
                         "strip=1x48:warps=4:vec=16:rows=2", "strip=2x64:warps=8"};

}  // namespace

// One pass, the pixels of GaussianBlur then Sobel: every format, aperture and mode, radii 1 to
// 8, sizes from 1x1 up, where every group touches an edge and where most do not.
TEST(BlurSobelSlab, IsOpenCvs) {
  const cv::Size sizes[] = {{1, 1}, {17, 13}, {45, 31}, {131, 67}};
  const std::pair<double, int> blurs[] = {{1.5, 11}, {0.8, 3}, {1.1, 5}, {2.5, 17}, {1.3, 9}};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const int ksize : {1, 3, 5, 7}) {
      const int type = k % 3 == 0 ? CV_8UC1 : k % 3 == 1 ? CV_8UC3 : CV_8UC4;
      const cv::Mat in = k % 2 ? randomFrame(size.width, size.height, type, 500 + k)
                               : realFrame(k, type, size.width, size.height);
      const BlurCase b{blurs[k % 5].first, blurs[k % 5].second, kBlurBorders[k % 5], 30 + k};
      Config c;
      c.ksize = ksize;
      c.mode = kModes[k % 4];
      c.border = kSobelBorders[(k / 5) % 4];
      c.value = 190 - k;
      c.scale = k % 7 == 3 ? 0.5 : 1;
      c.schedule = std::string("filter=slab:") + kShapes[k % 4];
      ++k;
      expectOnePassIsOpenCvs(b, c, in, "blur_sobel_slab");
    }
}

// The whole chain as one pass: gray read through from BGR and BGRA, the blur and the sobel, the
// histogram and brightness as stored; the same bytes and histograms as the chain unfused, over
// two frames, and the pixels of OpenCV's functions.
TEST(BlurSobelSlab, TheWholeChainIsOnePass) {
  const cv::Size sizes[] = {{7, 5}, {404, 131}};
  int k = 0;
  for (const cv::Size size : sizes)
    for (const int type : {CV_8UC3, CV_8UC4}) {
      const int ksize = 3 + 2 * (k % 3);
      const std::string text =
          "gray,blur=sigma=1.2,sobel=filter=slab:" + std::string(kShapes[k % 4]) +
          ":ksize=" + std::to_string(ksize) + ",hist,brightness=gain=1.4:bias=-12";
      ++k;
      Chain fused = Chain::parse(text), plain = Chain::parse(text);
      fused.setFusion(Chain::Fusion::On);
      plain.setFusion(Chain::Fusion::Off);
      for (int f = 0; f < 2; ++f) {
        const cv::Mat in = f % 2 ? randomFrame(size.width, size.height, type, 80 + k + f)
                                 : realFrame(k + f, type, size.width, size.height);
        SCOPED_TRACE(text + " on " + viewOf(in).desc().str());
        std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
        const cv::Mat a = runChecked(fused, in, &sideFused), b = runChecked(plain, in, &sidePlain);
        ASSERT_EQ(fused.passes().size(), 1u);
        EXPECT_EQ(fused.passes()[0].label, "gray+blur+sobel+hist+brightness");
        EXPECT_TRUE(computesTheBlur(fused.passes(), "blur_sobel_slab"));
        EXPECT_EQ(maxAbsDiff(a, b), 0);
        EXPECT_EQ(sideFused, sidePlain);
        cv::Mat gray, ref;
        cv::cvtColor(in, gray, type == CV_8UC3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        Config c;
        c.ksize = ksize;
        reference(cvBlur(gray, 1.2, 9, "reflect101", 0), c).convertTo(ref, -1, 1.4, -12);
        EXPECT_EQ(maxAbsDiff(a, ref), 0);
      }
    }
}

// A live sigma that moves the blur's radius (2, 5, 0, 2): radius 0 (a single tap of 256) is
// past the products, so the blur and the sobel run one after the other in the sobel's pass for
// that frame; every frame is OpenCV's.
TEST(BlurSobelSlab, LiveSigmaLeavesTheProductsAndComesBack) {
  const cv::Mat in = realFrame(4, CV_8UC1, 97, 61);
  Chain chain = Chain::parse("blur=sigma=0.6,sobel=filter=slab:strip=2x32:warps=2");
  chain.setFusion(Chain::Fusion::On);
  for (const double sigma : {0.6, 1.4, 0.1, 0.6}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    chain.stage(0).params().set("sigma", std::to_string(sigma));
    chain.stage(0).update();
    const cv::Mat out = runChecked(chain, in);
    EXPECT_TRUE(computesTheBlur(chain.passes(), "blur_sobel_slab"));
    EXPECT_EQ(maxAbsDiff(out, reference(cvBlur(in, sigma, derivedKsize(sigma), "reflect101", 0),
                                        Config{})),
              0);
  }
}

// A shape whose tile has no output columns is refused by name.
TEST(BlurSobelSlab, ShapeWithoutOutputsIsRefused) {
  Chain chain = Chain::parse("blur,sobel=filter=slab:strip=1x16:warps=2");
  chain.setFusion(Chain::Fusion::On);
  EXPECT_THROW(
      {
        try {
          runChecked(chain, realFrame(1, CV_8UC1, 64, 32));
        } catch (const UserError& e) {
          EXPECT_NE(std::string(e.what()).find("filter=slab"), std::string::npos) << e.what();
          throw;
        }
      },
      UserError);
}
