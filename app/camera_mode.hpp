#pragma once
// A camera's capture mode as the user asks for it: frame size, frame rate and pixel format, from
// `-i cam0:1280x720@60` or --camera-size / --camera-fps / --camera-format (config keys
// camera_size, camera_fps, camera_format). What is not asked is left to the camera.
#include <optional>
#include <string>

namespace vf::app {

struct CameraMode {
  int width = 0, height = 0;  // 0: the camera's choice
  double fps = 0;             // 0: the camera's choice
  std::string format;         // "mjpeg", "yuyv", or "" for the camera's choice

  bool empty() const { return width == 0 && fps == 0 && format.empty(); }
  // "1280x720 at 60 fps, mjpeg"; "" when empty.
  std::string str() const;
  // This mode with every part it leaves open taken from `fallback`.
  CameraMode over(const CameraMode& fallback) const;
};

// Each fills `why` (without the option's name) and returns nothing when the text is wrong.
std::optional<CameraMode> parseCameraSize(const std::string& text, std::string* why);  // WxH
std::optional<double> parseCameraFps(const std::string& text, std::string* why);       // 30, 29.97
// mjpeg (or mjpg) and yuyv (or yuy2), any case; returns the canonical name.
std::optional<std::string> parseCameraFormat(const std::string& text, std::string* why);

// The part of `-i camN:...` after the colon: items separated by ':', each a size with an
// optional rate (1280x720, 1280x720@60), a rate alone (@30), or a pixel format (mjpeg, yuyv).
std::optional<CameraMode> parseCameraSuffix(const std::string& text, std::string* why);

struct Settings;
// The mode the --camera-* options (or config keys) ask for.
CameraMode cameraModeOf(const Settings& settings);

// The V4L2 four-character code of a format name ("mjpeg" -> MJPG, "yuyv" -> YUYV), and back
// ("" for a code that has no name here).
unsigned cameraFourcc(const std::string& format);
std::string cameraFormatName(unsigned fourcc);

}  // namespace vf::app
