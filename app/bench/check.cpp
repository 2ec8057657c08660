#include "app/bench/check.hpp"

#include <algorithm>
#include <cstdlib>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "app/mat_view.hpp"
#include "pipeline/chain.hpp"

namespace vf::bench {

using app::cvTypeOf;
using app::viewOf;

bool CheckResult::passed() const {
  return std::all_of(rows.begin(), rows.end(), [](const CheckRow& r) { return r.passed(); });
}

namespace {

// The largest difference to OpenCV each stage is held to (what its tests hold it to): the
// float arithmetic of sobel's magnitudes, brightness, resize's interpolations and Lab may round
// a pixel to the neighbouring level on a device; every other stage is exact.
int limitOf(const CvStageSpec& spec) {
  if (spec.name == "sobel") return spec.mode == "x" || spec.mode == "y" ? 0 : 1;
  if (spec.name == "brightness") return 1;
  if (spec.name == "resize") return spec.interp == cv::INTER_NEAREST ? 0 : 1;
  if (spec.name == "color") return spec.to == "lab" ? 1 : 0;
  return 0;
}

int maxAbsDiff(const cv::Mat& a, const cv::Mat& b) {
  if (a.size() != b.size() || a.type() != b.type()) return 256;
  cv::Mat d;
  cv::absdiff(a, b, d);
  double mx = 0;
  cv::minMaxLoc(d.reshape(1), nullptr, &mx);
  return static_cast<int>(mx);
}

// `chainText` with only stage `only` enabled (all of them for -1) on `in`; the output poisoned
// first, so a pixel never written shows up.
cv::Mat runChain(ClContext& cl, cl::CommandQueue& q, const std::string& chainText, int only,
                 const cv::Mat& in, std::vector<std::vector<std::uint8_t>>* side = nullptr) {
  Chain chain = Chain::parse(chainText);
  if (only >= 0)
    for (std::size_t j = 0; j < chain.size(); ++j) chain.setEnabled(j, int(j) == only);
  chain.configure(cl, viewOf(in).desc());
  cv::Mat got(chain.output().height, chain.output().width, cvTypeOf(chain.output().format));
  got.setTo(cv::Scalar::all(0x5A));
  chain.runOnce(cl, q, viewOf(in), viewOf(got), side);
  return got;
}

}  // namespace

int maxCountDiff(const std::vector<std::vector<std::uint8_t>>& side,
                 const std::vector<std::uint32_t>& want) {
  if (side.empty() || side[0].size() != want.size() * 4) return 1 << 30;
  const auto* have = reinterpret_cast<const std::uint32_t*>(side[0].data());
  long long d = 0;
  for (std::size_t b = 0; b < want.size(); ++b) {
    const auto asFloat = static_cast<long long>(static_cast<float>(have[b]));
    d = std::max(d, std::llabs(asFloat - static_cast<long long>(want[b])));
  }
  return static_cast<int>(std::min<long long>(d, 1 << 30));
}

CheckResult runCheck(ClContext& cl, const std::string& chainText,
                     const std::vector<CvStageSpec>& specs, const std::vector<cv::Mat>& frames) {
  cl::CommandQueue q = cl.makeQueue();
  CheckResult res;
  for (const CvStageSpec& spec : specs) {
    res.rows.push_back({spec.text, 0, limitOf(spec), 0, "frame"});
    if (spec.name == "hist") res.rows.push_back({spec.text, 0, 0, 0, "histogram"});
  }
  for (const cv::Mat& frame : frames) {
    cv::Mat cur = frame;
    std::size_t row = 0;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      CvScratch<cv::Mat> s;
      cv::Mat ref;
      cvApply(specs[i], cur, ref, s);
      ref = ref.clone();
      std::vector<std::vector<std::uint8_t>> side;
      const cv::Mat got = runChain(cl, q, chainText, int(i), cur, &side);
      CheckRow& fr = res.rows[row++];
      fr.maxDiff = std::max(fr.maxDiff, maxAbsDiff(got, ref));
      ++fr.frames;
      if (specs[i].name == "hist") {
        CheckRow& hr = res.rows[row++];
        hr.maxDiff = std::max(hr.maxDiff, maxCountDiff(side, histCounts(s)));
        ++hr.frames;
      }
      cur = ref;
    }
    res.chainDiff = std::max(res.chainDiff, maxAbsDiff(runChain(cl, q, chainText, -1, frame), cur));
  }
  return res;
}

}  // namespace vf::bench
