#include "app/camera_mode.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "app/option_values.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

constexpr unsigned fourcc(char a, char b, char c, char d) {
  return unsigned(static_cast<unsigned char>(a)) | unsigned(static_cast<unsigned char>(b)) << 8 |
         unsigned(static_cast<unsigned char>(c)) << 16 |
         unsigned(static_cast<unsigned char>(d)) << 24;
}

// One item of a camera suffix into `m`; false (and `why`) when it is not one.
bool takeItem(const std::string& item, CameraMode& m, std::string* why) {
  if (item.empty()) {
    *why = "an empty item";
    return false;
  }
  std::string inner;
  if (std::isalpha(static_cast<unsigned char>(item[0]))) {
    const auto f = parseCameraFormat(item, &inner);
    if (f) m.format = *f;
    *why = inner;
    return f.has_value();
  }
  const auto at = item.find('@');
  const std::string size = item.substr(0, at);
  if (!size.empty()) {
    const auto s = parseCameraSize(size, &inner);
    if (!s) {
      *why = "the size " + inner;
      return false;
    }
    m.width = s->width;
    m.height = s->height;
  }
  if (at != std::string::npos) {
    const auto fps = parseCameraFps(item.substr(at + 1), &inner);
    if (!fps) {
      *why = "the rate after '@' " + inner;
      return false;
    }
    m.fps = *fps;
  }
  return true;
}

}  // namespace

std::string CameraMode::str() const {
  std::string s;
  if (width > 0) s = std::to_string(width) + "x" + std::to_string(height);
  if (fps > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g fps", fps);
    s += (s.empty() ? "" : " at ") + std::string(buf);
  }
  if (!format.empty()) s += (s.empty() ? "" : ", ") + format;
  return s;
}

CameraMode CameraMode::over(const CameraMode& fallback) const {
  CameraMode m = *this;
  if (m.width == 0) {
    m.width = fallback.width;
    m.height = fallback.height;
  }
  if (m.fps == 0) m.fps = fallback.fps;
  if (m.format.empty()) m.format = fallback.format;
  return m;
}

std::optional<CameraMode> parseCameraSize(const std::string& text, std::string* why) {
  if (!checkSize(text, why)) return std::nullopt;
  CameraMode m;
  std::sscanf(text.c_str(), "%dx%d", &m.width, &m.height);
  return m;
}

std::optional<double> parseCameraFps(const std::string& text, std::string* why) {
  return parseRate(text, why);
}

std::optional<std::string> parseCameraFormat(const std::string& text, std::string* why) {
  const std::string t = lower(text);
  if (t == "mjpeg" || t == "mjpg") return std::string("mjpeg");
  if (t == "yuyv" || t == "yuy2") return std::string("yuyv");
  *why = "must be mjpeg or yuyv; got " + quote(text);
  return std::nullopt;
}

std::optional<CameraMode> parseCameraSuffix(const std::string& text, std::string* why) {
  CameraMode m;
  std::size_t a = 0;
  while (true) {
    const std::size_t b = text.find(':', a);
    const std::string item = text.substr(a, b == std::string::npos ? std::string::npos : b - a);
    std::string inner;
    if (!takeItem(item, m, &inner)) {
      *why =
          "the camera mode after ':' is size, size@fps, @fps and pixel format (mjpeg, yuyv) "
          "separated by ':', e.g. cam0:1280x720@60 or cam0:640x480:yuyv; in " +
          quote(text) + ", " + inner;
      return std::nullopt;
    }
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return m;
}

CameraMode cameraModeOf(const Settings& s) {
  CameraMode m;
  std::string why;
  if (s.cameraSize)
    if (const auto size = parseCameraSize(*s.cameraSize, &why)) m = *size;
  m.fps = s.cameraFps.value_or(0);
  m.format = s.cameraFormat.value_or("");
  return m;
}

unsigned cameraFourcc(const std::string& format) {
  if (format == "mjpeg") return fourcc('M', 'J', 'P', 'G');
  if (format == "yuyv") return fourcc('Y', 'U', 'Y', 'V');
  return 0;
}

std::string cameraFormatName(unsigned code) {
  if (code == fourcc('M', 'J', 'P', 'G')) return "mjpeg";
  if (code == fourcc('Y', 'U', 'Y', 'V')) return "yuyv";
  return "";
}

}  // namespace vf::app
