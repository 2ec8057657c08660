#pragma once
// The one adapter between OpenCV's images and the pipeline's frames: 8-bit cv::Mat of 1, 3 or 4
// channels <-> FrameView of Gray8, BGR8 or BGRA8. Views share memory; nothing here copies unless
// its name says so.
#include <cstdint>
#include <opencv2/core.hpp>
#include <stdexcept>
#include <string>

#include "pipeline/frame.hpp"

namespace vf::app {

// Gray8, BGR8, BGRA8 -> CV_8UC1, CV_8UC3, CV_8UC4.
inline int cvTypeOf(PixelFormat f) { return CV_8UC(channels(f)); }

// CV_8UC1, CV_8UC3, CV_8UC4 -> Gray8, BGR8, BGRA8; anything else is a logic error of the caller.
inline PixelFormat formatOf(const cv::Mat& m) {
  switch (m.type()) {
    case CV_8UC1:
      return PixelFormat::Gray8;
    case CV_8UC3:
      return PixelFormat::BGR8;
    case CV_8UC4:
      return PixelFormat::BGRA8;
    default:
      throw std::invalid_argument(
          "a frame must be 8-bit with 1, 3 or 4 channels, got OpenCV type " +
          std::to_string(m.type()));
  }
}

// The Mat's pixels as a frame (no copy: `m` must outlive the view).
inline FrameView viewOf(const cv::Mat& m) {
  return {const_cast<std::uint8_t*>(m.data), m.cols, m.rows, m.step[0], formatOf(m)};
}

// The frame's pixels as a Mat header (no copy: the frame's memory must outlive the Mat).
inline cv::Mat matOf(const FrameView& f) {
  return cv::Mat(f.height, f.width, cvTypeOf(f.format), f.data, f.stride);
}

// A new Mat of the frame's size and format (contents undefined).
inline cv::Mat makeMat(const FrameDesc& d) {
  return cv::Mat(d.height, d.width, cvTypeOf(d.format));
}

// Copies `m` into the frame `v` (same size and format), row by row over the frame's stride.
inline void copyInto(const cv::Mat& m, const FrameView& v) {
  cv::Mat dst = matOf(v);
  m.copyTo(dst);
}

// A Mat holding a copy of the frame's pixels.
inline cv::Mat copyOf(const FrameView& f) { return matOf(f).clone(); }

}  // namespace vf::app
