// kernel=file.cl: the three samples/kernels/ examples against OpenCV (invert: bitwise_not;
// unsharp: filter2D with the binomial 3x3 and every border; vignette: its formula on the host),
// on real and random frames, gray/bgr/bgra and odd sizes; live parameters without a rebuild;
// and a user's mistakes: a build error with the file, line and column, a file that defines no
// function, a missing file (its name shown as given, never used as a format).
#include <opencv2/imgproc.hpp>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "pipeline/cl/program_cache.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;
namespace fs = std::filesystem;

namespace {

std::string sample(const char* name) {
  return std::string(VIDFILTER_SOURCE_DIR) + "/samples/kernels/" + name;
}

std::vector<cv::Mat> frames(int type) {
  std::vector<cv::Mat> f = {realFrame(100, type)};
  unsigned seed = 40;
  for (const auto& sz : oddSizes())
    if (sz.area() < 1000000) f.push_back(randomFrame(sz.width, sz.height, type, seed++));
  return f;
}

// The colour channels through f, alpha kept.
cv::Mat colourOnly(const cv::Mat& in, const cv::Mat& changed) {
  if (in.channels() != 4) return changed;
  std::vector<cv::Mat> a, b;
  cv::split(changed, a);
  cv::split(in, b);
  a[3] = b[3];
  cv::Mat out;
  cv::merge(a, out);
  return out;
}

cv::Mat unsharpReference(const cv::Mat& in, double amount, int border) {
  const cv::Mat k = (cv::Mat_<float>(3, 3) << 1, 2, 1, 2, 4, 2, 1, 2, 1) / 16.f;
  cv::Mat f, padded, blur;
  in.convertTo(f, CV_32F);
  cv::copyMakeBorder(f, padded, 1, 1, 1, 1, border, cv::Scalar::all(0));
  cv::filter2D(padded, blur, CV_32F, k, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
  blur = blur(cv::Rect(1, 1, in.cols, in.rows));
  cv::Mat out;
  cv::Mat sharp = f + amount * (f - blur);
  sharp.convertTo(out, CV_8U);
  return colourOnly(in, out);
}

std::string writeFile(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

fs::path scratchDir() {
  return fs::temp_directory_path() / ("vf_user_kernel_" + std::to_string(::getpid()));
}

std::string errorOf(const std::string& chainText, const cv::Mat& in) {
  try {
    runChain(chainText, in);
  } catch (const ChainError& e) {  // refused as the chain is configured: without the caret
    return e.message();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(UserKernel, InvertSampleEqualsBitwiseNot) {
  for (Facts facts : {Facts::Device, Facts::Gpu})
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4})
      for (const cv::Mat& in : frames(type)) {
        cv::Mat ref;
        cv::bitwise_not(in, ref);
        EXPECT_EQ(
            maxAbsDiff(runChain("kernel=" + sample("invert.cl"), in, facts), colourOnly(in, ref)),
            0)
            << in.size() << " type " << type;
      }
}

TEST(UserKernel, UnsharpSampleEqualsFilter2DForEveryBorder) {
  const std::pair<const char*, int> borders[] = {{"constant", cv::BORDER_CONSTANT},
                                                 {"replicate", cv::BORDER_REPLICATE},
                                                 {"reflect", cv::BORDER_REFLECT},
                                                 {"reflect101", cv::BORDER_REFLECT_101},
                                                 {"wrap", cv::BORDER_WRAP}};
  for (const auto& [name, cvBorder] : borders)
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4})
      for (const cv::Mat& in : frames(type)) {
        const std::string chain =
            "kernel=" + sample("unsharp.cl") + ":p0=0.8:border=" + std::string(name);
        EXPECT_LE(maxAbsDiff(runChain(chain, in), unsharpReference(in, 0.8, cvBorder)), 1)
            << name << " " << in.size() << " type " << type;
      }
}

TEST(UserKernel, VignetteSampleFollowsItsFormula) {
  const cv::Mat in = realFrame(300, CV_8UC3, 641, 479);
  EXPECT_EQ(maxAbsDiff(runChain("kernel=" + sample("vignette.cl"), in), in), 0) << "p0=0";
  const cv::Mat out = runChain("kernel=" + sample("vignette.cl") + ":p0=0.6", in);
  cv::Mat ref = in.clone();
  const float cx = (in.cols - 1) * 0.5f, cy = (in.rows - 1) * 0.5f;
  for (int y = 0; y < in.rows; ++y)
    for (int x = 0; x < in.cols; ++x) {
      const float dx = x - cx, dy = y - cy;
      const float gain =
          std::min(1.f, std::max(0.f, 1.f - 0.6f * (dx * dx + dy * dy) / (cx * cx + cy * cy)));
      for (int c = 0; c < 3; ++c)
        ref.at<cv::Vec3b>(y, x)[c] = cv::saturate_cast<uchar>(in.at<cv::Vec3b>(y, x)[c] * gain);
    }
  EXPECT_LE(maxAbsDiff(out, ref), 1);
  EXPECT_LT(cv::mean(out(cv::Rect(0, 0, 40, 40)))[0], cv::mean(in(cv::Rect(0, 0, 40, 40)))[0]);
}

TEST(UserKernel, LiveParameterChangeNeedsNoBuild) {
  const cv::Mat in = realFrame(200, CV_8UC3);
  Chain c = Chain::parse("kernel=" + sample("unsharp.cl") + ":p0=0.2");
  EXPECT_LE(maxAbsDiff(runChecked(c, in), unsharpReference(in, 0.2, cv::BORDER_REFLECT_101)), 1);
  const auto before = context().programs().stats();
  c.stage(0).params().set("p0", "1.5");
  c.stage(0).update();
  EXPECT_LE(maxAbsDiff(runChecked(c, in), unsharpReference(in, 1.5, cv::BORDER_REFLECT_101)), 1);
  const auto after = context().programs().stats();
  EXPECT_EQ(after.builds, before.builds);
  EXPECT_EQ(after.diskHits, before.diskHits);
  EXPECT_EQ(c.stage(0).schedule(), "form=neighbourhood");
}

TEST(UserKernel, BuildErrorShowsFileLineAndColumn) {
  const std::string path = writeFile(scratchDir(), "broken.cl",
                                     "// a comment\n"
                                     "uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) {\n"
                                     "  return px + undeclared_thing;\n"
                                     "}\n");
  const std::string msg = errorOf("kernel=" + path, randomFrame(8, 8, CV_8UC3, 1));
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("broken.cl:3:"), std::string::npos) << "no file:line: " << msg;
  EXPECT_NE(msg.find("undeclared_thing"), std::string::npos) << msg;
  fs::remove_all(scratchDir());
}

// A function whose declaration does not fit vidfilter's call of it: the error, which the
// compiler places in vidfilter's caller, says how to declare it.
TEST(UserKernel, AFunctionDeclaredAnotherWayNamesTheDeclaration) {
  const std::string path =
      writeFile(scratchDir(), "oneargument.cl", "uchar4 point(uchar4 px) {\n  return px;\n}\n");
  const std::string msg = errorOf("kernel=" + path, randomFrame(8, 8, CV_8UC3, 1));
  EXPECT_NE(msg.find("must be declared as uchar4 point(uchar4 px, int2 pos, int2 size, float8 p)"),
            std::string::npos)
      << msg;
  fs::remove_all(scratchDir());
}

TEST(UserKernel, AFileWithoutTheFunctionIsAClearError) {
  const std::string path = writeFile(scratchDir(), "empty.cl", "// nothing here\n");
  EXPECT_EQ(errorOf("kernel=" + path, randomFrame(8, 8, CV_8UC1, 1)),
            "kernel: '" + path +
                "' defines neither point() nor neighbourhood(); define one: uchar4 point(uchar4 "
                "px, int2 pos, int2 size, float8 p) or uchar4 neighbourhood(vf_image img, int2 "
                "pos, float8 p)");
  fs::remove_all(scratchDir());
}

TEST(UserKernel, ADirectoryOrAnEndlessFileIsRefusedUnread) {
  // /dev/zero never ends: reading stops at 1 MiB, more than any kernel source.
  EXPECT_EQ(errorOf("kernel=/dev/zero", randomFrame(8, 8, CV_8UC1, 1)),
            "kernel: '/dev/zero' is larger than 1 MiB, no kernel source; give the path of an "
            "OpenCL C file (samples/kernels/ has examples)");
  const std::string big = writeFile(scratchDir(), "big.cl", std::string((1 << 20) + 1, ' '));
  EXPECT_NE(errorOf("kernel=" + big, randomFrame(8, 8, CV_8UC1, 1)).find("larger than 1 MiB"),
            std::string::npos);
  const std::string dir = scratchDir().string();
  EXPECT_EQ(errorOf("kernel=" + dir, randomFrame(8, 8, CV_8UC1, 1)),
            "kernel: '" + dir +
                "' is a directory; give the path of an OpenCL C file (samples/kernels/ has "
                "examples)");
  fs::remove_all(scratchDir());
}

TEST(UserKernel, AMissingFileIsNamedAsGiven) {
  EXPECT_EQ(errorOf("kernel=no%s%n%d.cl", randomFrame(8, 8, CV_8UC1, 1)),
            "kernel: cannot read 'no%s%n%d.cl'; give the path of an OpenCL C file "
            "(samples/kernels/ has examples)");
  try {
    Chain::parse("kernel");
    ADD_FAILURE() << "no error";
  } catch (const ChainError& e) {
    EXPECT_EQ(e.message(), "kernel: give the kernel's file: kernel=path/to/file.cl");
  }
}

// vf_read at coordinates any distance outside the frame (a kernel that computes them: a warp,
// a hash, an overflow) reads what the border rule gives, at once: the reflecting rules repeat
// every 2n or 2n - 2 elements, so the reference takes the coordinate modulo that, then
// OpenCV's cv::borderInterpolate. One kernel a border: each output pixel reads a coordinate of
// the table by its position.
TEST(UserKernel, ReadsAnyDistanceOutsideTheFrameFollowTheBorder) {
  const cv::Mat in = randomFrame(17, 13, CV_8UC3, 91);
  const std::pair<const char*, int> borders[] = {{"replicate", cv::BORDER_REPLICATE},
                                                 {"reflect", cv::BORDER_REFLECT},
                                                 {"reflect101", cv::BORDER_REFLECT_101},
                                                 {"wrap", cv::BORDER_WRAP}};
  const std::vector<long long> xs = {-2147483647LL - 1, -2147483647LL, -100000007LL, 2147483647LL,
                                     123456789LL},
                               ys = {-2147483647LL, 5, 2147483647LL};
  std::string table = "  const long xs[5] = {";
  for (std::size_t i = 0; i < xs.size(); ++i)
    table += (i ? ", " : "") + std::to_string(xs[i]) + "L";
  table += "};\n  const long ys[3] = {";
  for (std::size_t i = 0; i < ys.size(); ++i)
    table += (i ? ", " : "") + std::to_string(ys[i]) + "L";
  table += "};\n";
  const std::string file =
      writeFile(scratchDir(), "far.cl",
                "uchar4 neighbourhood(vf_image img, int2 pos, float8 p) {\n" + table +
                    "  return vf_read(img, (int)xs[pos.x % 5], (int)ys[pos.y % 3]);\n}\n");
  const auto reference = [](long long i, int n, int border) {
    const long long period = border == cv::BORDER_REFLECT       ? 2LL * n
                             : border == cv::BORDER_REFLECT_101 ? 2LL * n - 2
                             : border == cv::BORDER_WRAP        ? n
                                                                : 0;
    if (period > 0) i = ((i % period) + period) % period;
    return cv::borderInterpolate(int(std::clamp<long long>(i, -(1 << 20), 1 << 20)), n, border);
  };
  for (const auto& [name, border] : borders) {
    const cv::Mat out = runChain("kernel=" + file + ":border=" + std::string(name), in);
    for (int y = 0; y < in.rows; ++y)
      for (int x = 0; x < in.cols; ++x) {
        const long long fx = xs[std::size_t(x % 5)], fy = ys[std::size_t(y % 3)];
        EXPECT_EQ(out.at<cv::Vec3b>(y, x),
                  in.at<cv::Vec3b>(reference(fy, in.rows, border), reference(fx, in.cols, border)))
            << name << " x " << fx << " y " << fy;
      }
  }
  fs::remove_all(scratchDir());
}
