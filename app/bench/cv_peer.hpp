#pragma once
// The same chain done with OpenCV: each vidfilter stage mapped to the OpenCV calls it matches
// (as the tests define them), on cv::Mat (CPU) or cv::UMat (T-API, OpenCV's own OpenCL). Used by
// `vidfilter bench` as the peer to time against and as the reference for --check.
#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "pipeline/stage.hpp"

namespace vf::bench {

// One stage's OpenCV equivalent, read from the stage's parameters.
struct CvStageSpec {
  // gray | blur | sobel | hist | brightness | resize | crop | equalize | threshold | color
  std::string name;
  std::string text;  // "blur=sigma=2" (for reports)
  // blur, sobel
  int ksize = 0;
  int border = cv::BORDER_REFLECT_101;
  int value = 0;  // border=constant
  // blur
  double sigma = 1.5;
  // sobel
  std::string mode = "mag";
  double scale = 1;
  // brightness
  bool autoMode = false;
  double gain = 1, bias = 0, clip = 1;
  // resize: size (0x0: by factor), factor, cv::INTER_*
  Size2 size;
  double factor = 1;
  int interp = 1;
  // crop: the window (w, h 0: to the edge)
  int x = 0, y = 0, w = 0, h = 0;
  // threshold: value, maxval, cv::THRESH_* (with THRESH_OTSU for mode=otsu)
  double thresh = 128, maxval = 255;
  int threshType = 0;
  // color: the target (hsv, lab, yuv, gray, bgr)
  std::string to;

  // What the OpenCV calls are, in words ("GaussianBlur 9x9 sigma 1.5 reflect101").
  std::string describe() const;
};

// Throws UserError for a stage without an OpenCV equivalent.
CvStageSpec cvSpecOf(const Stage& stage);
// Throws UserError where OpenCV's function refuses the stage on frames `in` (a resize factor
// that rounds a side to 0 pixels, which the stage makes 1).
void checkPeerTakes(const CvStageSpec& spec, const FrameDesc& in);

// Temporaries of one stage kept between frames (OpenCV reuses allocated outputs).
template <class M>
struct CvScratch {
  M pad, tmp, gx, gy, ax, ay, fx, fy;
  std::vector<M> planes;
  std::vector<M> hist;  // hist: one 256x1 CV_32F per channel
};

// Runs one stage: `out` = the stage applied to `in`. hist leaves the frame as it is (`out`
// shares `in`'s data) and leaves its histogram in s.hist. M is cv::Mat or cv::UMat.
template <class M>
void cvApply(const CvStageSpec& spec, const M& in, M& out, CvScratch<M>& s);

// s.hist as 256 counts per channel, one channel after another (the hist stage's layout).
template <class M>
std::vector<std::uint32_t> histCounts(const CvScratch<M>& s);

}  // namespace vf::bench
