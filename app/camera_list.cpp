#include "app/camera_list.hpp"

#include <fcntl.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>

#include "app/camera_mode.hpp"

namespace vf::app {

namespace {

namespace fs = std::filesystem;

int xioctl(int fd, unsigned long request, void* arg) {
  int r = 0;
  do r = ::ioctl(fd, request, arg);
  while (r == -1 && errno == EINTR);
  return r;
}

std::string fourccText(unsigned code) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((code >> (8 * i)) & 0xff);
    if (c != ' ' && c != '\0') s += c;
  }
  return s;
}

std::string fpsText(double fps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", fps);
  return buf;
}

// The rates of one size: discrete ones listed, a range said in words.
void readIntervals(int fd, unsigned pixfmt, CameraSize& size) {
  v4l2_frmivalenum iv{};
  iv.pixel_format = pixfmt;
  iv.width = unsigned(size.width);
  iv.height = unsigned(size.height);
  for (iv.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &iv) == 0; ++iv.index) {
    if (iv.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
      if (iv.discrete.numerator > 0)
        size.fps.push_back(double(iv.discrete.denominator) / iv.discrete.numerator);
      continue;
    }
    const auto& s = iv.stepwise;  // max interval -> min rate
    if (s.max.numerator > 0 && s.min.numerator > 0)
      size.range += "@" + fpsText(double(s.max.denominator) / s.max.numerator) + "-" +
                    fpsText(double(s.min.denominator) / s.min.numerator);
    break;
  }
  std::sort(size.fps.rbegin(), size.fps.rend());
}

void readSizes(int fd, CameraFormat& f, unsigned pixfmt) {
  v4l2_frmsizeenum fsz{};
  fsz.pixel_format = pixfmt;
  for (fsz.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fsz) == 0; ++fsz.index) {
    CameraSize size;
    if (fsz.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
      size.width = int(fsz.discrete.width);
      size.height = int(fsz.discrete.height);
      readIntervals(fd, pixfmt, size);
      f.sizes.push_back(size);
      continue;
    }
    const auto& s = fsz.stepwise;
    size.range = std::to_string(s.min_width) + "x" + std::to_string(s.min_height) + " to " +
                 std::to_string(s.max_width) + "x" + std::to_string(s.max_height) +
                 " in steps of " + std::to_string(s.step_width) + "x" +
                 std::to_string(s.step_height);
    f.sizes.push_back(size);
    break;
  }
}

void readFormats(int fd, CameraDevice& d) {
  v4l2_fmtdesc desc{};
  desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
  for (desc.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &desc) == 0; ++desc.index) {
    CameraFormat f;
    f.fourcc = fourccText(desc.pixelformat);
    f.description = reinterpret_cast<const char*>(desc.description);
    f.name = cameraFormatName(desc.pixelformat);
    readSizes(fd, f, desc.pixelformat);
    d.formats.push_back(f);
  }
}

CameraDevice queryDevice(const std::string& path, int index) {
  CameraDevice d;
  d.path = path;
  d.index = index;
  const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    d.error = std::strerror(errno);
    return d;
  }
  v4l2_capability cap{};
  if (xioctl(fd, VIDIOC_QUERYCAP, &cap) != 0) {
    d.error = std::string("not a V4L2 device (") + std::strerror(errno) + ")";
  } else {
    d.card = reinterpret_cast<const char*>(cap.card);
    const unsigned caps =
        (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    d.capture = (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)) != 0;
    if (d.capture) readFormats(fd, d);
  }
  ::close(fd);
  return d;
}

std::string sizeLine(const CameraSize& s) {
  std::string line = s.width > 0 ? std::to_string(s.width) + "x" + std::to_string(s.height) : "";
  if (!s.fps.empty()) {
    line += " @ ";
    for (std::size_t i = 0; i < s.fps.size(); ++i) line += (i ? ", " : "") + fpsText(s.fps[i]);
    line += " fps";
  }
  if (!s.range.empty()) line += (line.empty() ? "" : " ") + s.range;
  return line;
}

}  // namespace

std::vector<CameraDevice> listCameras() {
  static const std::regex node("^video([0-9]+)$");
  std::vector<CameraDevice> devices;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string name = e.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, node))
      devices.push_back(queryDevice(e.path().string(), std::stoi(m[1].str())));
  }
  std::sort(devices.begin(), devices.end(),
            [](const CameraDevice& a, const CameraDevice& b) { return a.index < b.index; });
  return devices;
}

std::string formatCameraList(const std::vector<CameraDevice>& devices) {
  if (devices.empty())
    return "no cameras: there is no /dev/video* device on this machine (a USB camera appears "
           "there once plugged in and its driver, usually uvcvideo, is loaded)\n";
  std::string out;
  for (const CameraDevice& d : devices) {
    out += d.path + " (-i cam" + std::to_string(d.index) + ")";
    if (!d.error.empty()) {
      out += ": cannot be read: " + d.error + "\n";
      continue;
    }
    out += ": " + d.card + "\n";
    if (!d.capture) {
      out += "  no video capture here (a metadata or output node)\n";
      continue;
    }
    if (d.formats.empty()) out += "  no capture formats reported\n";
    for (const CameraFormat& f : d.formats) {
      out += "  " + f.fourcc + " (" + f.description + ")";
      out += f.name.empty() ? ": not selectable with --camera-format\n"
                            : ": --camera-format " + f.name + "\n";
      for (const CameraSize& s : f.sizes) out += "    " + sizeLine(s) + "\n";
    }
  }
  return out;
}

}  // namespace vf::app
