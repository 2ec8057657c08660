#pragma once
// --list-cameras: every V4L2 capture device (/dev/video*) with the modes it offers, read with
// the V4L2 ioctls (VIDIOC_QUERYCAP, VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES,
// VIDIOC_ENUM_FRAMEINTERVALS), without opening a stream.
#include <string>
#include <vector>

namespace vf::app {

struct CameraSize {
  int width = 0, height = 0;
  std::vector<double> fps;  // the discrete rates offered, highest first (empty: not said)
  std::string range;        // a stepwise or continuous size or rate range, in words
};

struct CameraFormat {
  std::string fourcc;       // "MJPG", "YUYV"
  std::string description;  // the driver's words, "Motion-JPEG"
  std::string name;         // vidfilter's name for --camera-format ("mjpeg", "yuyv"), or ""
  std::vector<CameraSize> sizes;
};

struct CameraDevice {
  std::string path;     // /dev/video0
  int index = -1;       // N of /dev/videoN: -i camN opens it
  std::string card;     // "HD Webcam C920"
  std::string error;    // why it could not be read ("" when read)
  bool capture = true;  // false: a node without video capture (metadata, output)
  std::vector<CameraFormat> formats;
};

// The /dev/video* nodes, in index order, each queried.
std::vector<CameraDevice> listCameras();

// The listing --list-cameras prints; one clear line when there is no device.
std::string formatCameraList(const std::vector<CameraDevice>& devices);

}  // namespace vf::app
