#include "tests/support/test_support.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <opencv2/imgproc.hpp>
#include <random>
#include <stdexcept>

namespace vf::test {

ClContext& context() {
  static std::shared_ptr<ClContext> ctx = [] {
    const char* sel = std::getenv("VIDFILTER_TEST_DEVICE");
    return ClContext::open(sel ? sel : "");
  }();
  return *ctx;
}

cl::CommandQueue& queue() {
  static cl::CommandQueue q = context().makeQueue();
  return q;
}

ClContext& context(Facts facts) {
  if (facts == Facts::Device) return context();
  static std::unique_ptr<ClContext> gpu = [] {
    // The portable GPU schedules whatever device runs the tests: no CPU paths, and no vendor's
    // fast paths (on an NVIDIA GPU those are what Facts::Device runs).
    DeviceFacts f = context().facts();
    f.cpu = false;
    f.vendor = Vendor::Other;
    f.nvidiaCc = 0;
    return std::make_unique<ClContext>(context().info(), f);
  }();
  return *gpu;
}

cl::CommandQueue& queue(Facts facts) {
  if (facts == Facts::Device) return queue();
  static cl::CommandQueue q = context(Facts::Gpu).makeQueue();
  return q;
}

cv::Mat randomFrame(int width, int height, int type, unsigned seed) {
  cv::Mat m(height, width, type);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  for (int y = 0; y < m.rows; ++y) {
    auto* p = m.ptr<std::uint8_t>(y);
    for (std::size_t x = 0; x < std::size_t(m.cols) * m.channels(); ++x)
      p[x] = std::uint8_t(dist(rng));
  }
  if (width * height == 1) m.setTo(cv::Scalar::all(97 + seed % 100));  // never all-zero
  return m;
}

cv::Mat realFrame(int index, int type, int width, int height) {
  // The frames come from the raw file extract_frames wrote at build time (see tests/CMakeLists).
  static const std::vector<cv::Mat> frames = [] {
    const char* env = std::getenv("VIDFILTER_TEST_FRAMES");
    const std::string path = env ? env : VIDFILTER_TEST_FRAMES;
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    std::int32_t hdr[3];
    if (!in.read(magic, 8) || std::string(magic, 8) != "VFFRAMES" ||
        !in.read(reinterpret_cast<char*>(hdr), sizeof hdr))
      throw std::runtime_error("cannot read test frames " + path +
                               " (built from vtest.avi of opencv-doc; set VIDFILTER_TEST_FRAMES)");
    std::vector<cv::Mat> v;
    for (int i = 0; i < hdr[0]; ++i) {
      cv::Mat f(hdr[2], hdr[1], CV_8UC3);
      if (!in.read(reinterpret_cast<char*>(f.data), static_cast<std::streamsize>(f.total() * 3)))
        throw std::runtime_error("test frames file " + path + " is truncated");
      v.push_back(f);
    }
    return v;
  }();
  const cv::Mat& bgr = frames.at(static_cast<std::size_t>(index) % frames.size());
  cv::Mat out;
  switch (type) {
    case CV_8UC1:
      cv::cvtColor(bgr, out, cv::COLOR_BGR2GRAY);
      break;
    case CV_8UC4:
      cv::cvtColor(bgr, out, cv::COLOR_BGR2BGRA);
      break;
    default:
      out = bgr.clone();
  }
  if (width > 0 && height > 0 && (width != out.cols || height != out.rows)) {
    if (width <= out.cols && height <= out.rows) {
      out = out(cv::Rect((out.cols - width) / 2, (out.rows - height) / 2, width, height)).clone();
    } else {
      cv::Mat r;
      cv::resize(out, r, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
      out = r;
    }
  }
  return out;
}

cv::Mat runChecked(Chain& chain, const cv::Mat& in, std::vector<std::vector<std::uint8_t>>* side,
                   Facts facts) {
  const FrameView vin = viewOf(in);
  ClContext& cl = context(facts);
  if (!chain.configured() || chain.input() != vin.desc()) chain.configure(cl, vin.desc());
  cv::Mat a = makeMat(chain.output()), b = makeMat(chain.output());
  a.setTo(cv::Scalar::all(0x5A));
  b.setTo(cv::Scalar::all(0xA5));
  chain.runOnce(cl, queue(facts), vin, viewOf(a), side);
  chain.runOnce(cl, queue(facts), vin, viewOf(b), nullptr);
  const int diff = maxAbsDiff(a, b);
  EXPECT_EQ(diff, 0) << "two runs over differently poisoned outputs differ: a pixel was not "
                        "written, or the result is not deterministic";
  return a;
}

cv::Mat runChain(const std::string& chainText, const cv::Mat& in, Facts facts) {
  Chain chain = Chain::parse(chainText);
  return runChecked(chain, in, nullptr, facts);
}

std::vector<Chain::Pass> expectSameOver(const std::string& text, const std::vector<cv::Mat>& frames,
                                        Facts facts) {
  SCOPED_TRACE(text + " on " + viewOf(frames[0]).desc().str());
  Chain fused = Chain::parse(text), plain = Chain::parse(text);
  fused.setFusion(Chain::Fusion::On);
  plain.setFusion(Chain::Fusion::Off);
  for (const cv::Mat& f : frames) {
    std::vector<std::vector<std::uint8_t>> sideFused, sidePlain;
    const cv::Mat a = runChecked(fused, f, &sideFused, facts),
                  b = runChecked(plain, f, &sidePlain, facts);
    EXPECT_EQ(maxAbsDiff(a, b), 0);
    EXPECT_EQ(sideFused, sidePlain) << "side outputs differ";
  }
  return fused.passes();
}

int maxAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  if (a.size() != b.size() || a.type() != b.type())
    throw std::invalid_argument("maxAbsDiff: images differ in size or type");
  if (a.empty()) return 0;
  cv::Mat d;
  cv::absdiff(a, b, d);
  double mx = 0;
  cv::minMaxLoc(d.reshape(1), nullptr, &mx);
  return static_cast<int>(mx);
}

const std::vector<cv::Size>& oddSizes() {
  static const std::vector<cv::Size> s = {{1, 1}, {2, 2}, {17, 13}, {640, 480}, {1921, 1081}};
  return s;
}

}  // namespace vf::test
