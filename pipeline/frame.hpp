#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace vf {

// 8-bit pixel formats. Channel order follows OpenCV (BGR), so the app hands cv::Mat over as is.
enum class PixelFormat { Gray8, BGR8, BGRA8 };

int channels(PixelFormat f);
const char* formatName(PixelFormat f);  // "gray", "bgr", "bgra"

// What a stage sees: size and format. Device buffers hold rows rowBytes() apart, or further
// where the chain pads them (StageContext::pitchPixels, Chain::inputPitch).
struct FrameDesc {
  int width = 0;
  int height = 0;
  PixelFormat format = PixelFormat::Gray8;

  int channels() const { return vf::channels(format); }
  std::size_t rowBytes() const { return std::size_t(width) * channels(); }
  std::size_t bytes() const { return rowBytes() * std::size_t(height); }
  bool empty() const { return width <= 0 || height <= 0; }
  std::string str() const;  // "1920x1080 bgr"
  bool operator==(const FrameDesc& o) const {
    return width == o.width && height == o.height && format == o.format;
  }
  bool operator!=(const FrameDesc& o) const { return !(*this == o); }
};

// A host frame the library does not own: pointer, size, row stride in bytes, format.
struct FrameView {
  std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::size_t stride = 0;
  PixelFormat format = PixelFormat::Gray8;

  FrameDesc desc() const { return {width, height, format}; }
  std::uint8_t* row(int y) const { return data + std::size_t(y) * stride; }
};

// When a frame is presented, on its source's clock: pts x num/den seconds. The engine carries
// it from the source to the sink untouched, so an encoder keeps the input's timing (variable
// frame rates, gaps) and a live recording its capture clock.
struct FrameTime {
  static constexpr std::int64_t kUnknown = INT64_MIN;
  std::int64_t pts = kUnknown;  // kUnknown: the source has no clock (the sink numbers frames)
  std::int64_t duration = 0;    // in the same units; 0 when unknown
  int num = 1, den = 1;         // the time base, a fraction of a second

  bool known() const { return pts != kUnknown && den > 0 && num > 0; }
  double seconds() const { return known() ? double(pts) * num / den : 0.0; }
};

}  // namespace vf
