#include "pipeline/frame.hpp"

namespace vf {

int channels(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8:
      return 1;
    case PixelFormat::BGR8:
      return 3;
    case PixelFormat::BGRA8:
      return 4;
  }
  return 1;
}

const char* formatName(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8:
      return "gray";
    case PixelFormat::BGR8:
      return "bgr";
    case PixelFormat::BGRA8:
      return "bgra";
  }
  return "?";
}

std::string FrameDesc::str() const {
  return std::to_string(width) + "x" + std::to_string(height) + " " + formatName(format);
}

}  // namespace vf
