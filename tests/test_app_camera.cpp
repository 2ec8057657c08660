// Cameras: the mode a user asks for (-i cam0:1280x720@60, --camera-size/-fps/-format, the config
// keys), each bad value one clear error; --list-cameras and a camera that is not there, through
// the real binary. This machine has no camera: a real mode being set and read back is not
// exercised here.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "app/camera_list.hpp"
#include "app/camera_mode.hpp"
#include "app/config.hpp"
#include "app/options.hpp"
#include "app/sources.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"

using namespace vf::app;
using namespace vf::test;

namespace {

CameraMode suffix(const std::string& text) {
  std::string why;
  const auto m = parseCameraSuffix(text, &why);
  EXPECT_TRUE(m) << text << ": " << why;
  return m.value_or(CameraMode{});
}

std::string suffixError(const std::string& text) {
  std::string why;
  const auto m = parseCameraSuffix(text, &why);
  EXPECT_FALSE(m) << text;
  return why;
}

bool haveCameras() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev", ec))
    if (e.path().filename().string().rfind("video", 0) == 0) return true;
  return false;
}

}  // namespace

TEST(CameraMode, SuffixTakesSizeRateAndFormatInAnyOrder) {
  CameraMode m = suffix("1280x720@60");
  EXPECT_EQ(m.width, 1280);
  EXPECT_EQ(m.height, 720);
  EXPECT_DOUBLE_EQ(m.fps, 60);
  EXPECT_EQ(m.format, "");
  m = suffix("640x480:yuyv");
  EXPECT_EQ(m.width, 640);
  EXPECT_EQ(m.fps, 0);
  EXPECT_EQ(m.format, "yuyv");
  m = suffix("MJPG:@29.97");
  EXPECT_EQ(m.width, 0);
  EXPECT_DOUBLE_EQ(m.fps, 29.97);
  EXPECT_EQ(m.format, "mjpeg");
  m = suffix("1920x1080@30000/1001:mjpeg");
  EXPECT_NEAR(m.fps, 29.97, 0.001);
  EXPECT_EQ(m.str(), "1920x1080 at 29.97 fps, mjpeg");
}

TEST(CameraMode, BadSuffixesSayWhatIsWrong) {
  EXPECT_NE(suffixError("1280x72O@60").find("the size must be WxH"), std::string::npos);
  EXPECT_NE(suffixError("1280x720@0").find("the rate after '@' must be frames per second"),
            std::string::npos);
  EXPECT_NE(suffixError("1280x720@").find("the rate after '@'"), std::string::npos);
  EXPECT_NE(suffixError("h264").find("must be mjpeg or yuyv; got 'h264'"), std::string::npos);
  EXPECT_NE(suffixError("").find("an empty item"), std::string::npos);
  EXPECT_NE(suffixError("640x480::yuyv").find("an empty item"), std::string::npos);
  EXPECT_NE(suffixError("0x480").find("the size must be WxH"), std::string::npos);
  // Every complaint shows the form that works.
  EXPECT_NE(suffixError("fast").find("e.g. cam0:1280x720@60"), std::string::npos);
}

TEST(CameraMode, TheInputsModeWinsOverTheOptionsForWhatItSays) {
  CameraMode input = suffix("1280x720");
  CameraMode options;
  options.width = 640;
  options.height = 480;
  options.fps = 15;
  options.format = "yuyv";
  const CameraMode m = input.over(options);
  EXPECT_EQ(m.width, 1280);
  EXPECT_EQ(m.height, 720);
  EXPECT_DOUBLE_EQ(m.fps, 15);
  EXPECT_EQ(m.format, "yuyv");
  EXPECT_TRUE(CameraMode{}.empty());
  EXPECT_EQ(CameraMode{}.str(), "");
}

TEST(CameraMode, FormatNamesAreTheV4l2Codes) {
  EXPECT_EQ(cameraFourcc("mjpeg"), 0x47504a4du);  // 'M' 'J' 'P' 'G', little-endian
  EXPECT_EQ(cameraFourcc("yuyv"), 0x56595559u);   // 'Y' 'U' 'Y' 'V'
  EXPECT_EQ(cameraFormatName(0x47504a4du), "mjpeg");
  EXPECT_EQ(cameraFormatName(0x56595559u), "yuyv");
  EXPECT_EQ(cameraFormatName(0x34363248u), "");  // H264: not selectable
}

TEST(CameraSource, InputTextCarriesTheMode) {
  SourceSpec s = classifySource("cam0:1280x720@60");
  EXPECT_EQ(s.kind, SourceKind::Camera);
  EXPECT_EQ(s.cameraIndex, 0);
  EXPECT_EQ(s.camera.width, 1280);
  EXPECT_DOUBLE_EQ(s.camera.fps, 60);
  s = classifySource("CAM2");
  EXPECT_EQ(s.kind, SourceKind::Camera);
  EXPECT_EQ(s.cameraIndex, 2);
  EXPECT_TRUE(s.camera.empty());
  try {
    classifySource("cam0:1280x720@sixty");
    ADD_FAILURE() << "a bad mode was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'cam0:1280x720@sixty': "), std::string::npos)
        << e.what();
  }
}

TEST(CameraOptions, CommandLineAndConfigTakeTheMode) {
  const Settings s = parseArgs({"-i", "cam0", "--camera-size", "1280x720", "--camera-fps", "59.94",
                                "--camera-format", "MJPEG"})
                         .settings;
  EXPECT_EQ(s.cameraSize.value_or(""), "1280x720");
  EXPECT_DOUBLE_EQ(s.cameraFps.value_or(0), 59.94);
  EXPECT_EQ(s.cameraFormat.value_or(""), "mjpeg");
  const CameraMode m = cameraModeOf(s);
  EXPECT_EQ(m.width, 1280);
  EXPECT_EQ(m.height, 720);
  EXPECT_EQ(m.format, "mjpeg");

  const Settings c = parseConfig(
      "camera_size = \"640x480\"\ncamera_fps = 30\ncamera_format = \"yuyv\"\n", "t.toml");
  EXPECT_EQ(c.cameraSize.value_or(""), "640x480");
  EXPECT_DOUBLE_EQ(c.cameraFps.value_or(0), 30);
  EXPECT_EQ(c.cameraFormat.value_or(""), "yuyv");
  // The command line over the file, key by key.
  Settings both = parseArgs({"--camera-fps", "60"}).settings;
  both.fillFrom(c);
  EXPECT_DOUBLE_EQ(both.cameraFps.value_or(0), 60);
  EXPECT_EQ(both.cameraSize.value_or(""), "640x480");
}

TEST(CameraOptions, BadValuesNameTheOption) {
  EXPECT_NE(usageError({"--camera-size", "1280"}).find("--camera-size must be WxH"),
            std::string::npos);
  EXPECT_NE(usageError({"--camera-size", "99999x10"}).find("--camera-size must be WxH"),
            std::string::npos);
  EXPECT_NE(usageError({"--camera-fps", "-5"}).find("--camera-fps must be frames per second"),
            std::string::npos);
  EXPECT_NE(usageError({"--camera-format", "h264"}).find("--camera-format must be mjpeg or yuyv"),
            std::string::npos);
  EXPECT_NE(configError("camera_format = \"rgb\"").find("camera_format"), std::string::npos);
  EXPECT_NE(configError("camera_format = \"rgb\"").find("must be mjpeg or yuyv"),
            std::string::npos);
  EXPECT_NE(configError("camera_size = \"big\"").find("must be WxH"), std::string::npos);
  EXPECT_NE(configError("camera_fps = 0").find("must be frames per second"), std::string::npos);
}

TEST(CameraList, NoDeviceIsOneClearLine) {
  const std::string none = formatCameraList({});
  EXPECT_EQ(none.rfind("no cameras: there is no /dev/video* device", 0), 0u) << none;
  EXPECT_EQ(std::count(none.begin(), none.end(), '\n'), 1);
}

TEST(CameraList, ListsEachFormatWithItsSizesAndRates) {
  CameraDevice d;
  d.path = "/dev/video2";
  d.index = 2;
  d.card = "Test Camera";
  CameraFormat mjpg{"MJPG", "Motion-JPEG", "mjpeg", {}};
  mjpg.sizes.push_back({1280, 720, {60, 30}, ""});
  mjpg.sizes.push_back({640, 480, {30}, ""});
  CameraFormat h264{"H264", "H.264", "", {}};
  h264.sizes.push_back({0, 0, {}, "160x120 to 1920x1080 in steps of 2x2"});
  d.formats = {mjpg, h264};
  CameraDevice meta;
  meta.path = "/dev/video3";
  meta.index = 3;
  meta.card = "Test Camera";
  meta.capture = false;
  CameraDevice busy;
  busy.path = "/dev/video4";
  busy.index = 4;
  busy.error = "Permission denied";
  EXPECT_EQ(formatCameraList({d, meta, busy}),
            "/dev/video2 (-i cam2): Test Camera\n"
            "  MJPG (Motion-JPEG): --camera-format mjpeg\n"
            "    1280x720 @ 60, 30 fps\n"
            "    640x480 @ 30 fps\n"
            "  H264 (H.264): not selectable with --camera-format\n"
            "    160x120 to 1920x1080 in steps of 2x2\n"
            "/dev/video3 (-i cam3): Test Camera\n"
            "  no video capture here (a metadata or output node)\n"
            "/dev/video4 (-i cam4): cannot be read: Permission denied\n");
}

TEST(CameraBinary, ListCamerasWithoutDevicesExitsZero) {
  if (haveCameras()) GTEST_SKIP() << "this machine has /dev/video* devices";
  const auto r = runVidfilter({"--list-cameras"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("no cameras: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_TRUE(vf::test::errorLines(r.err).empty()) << r.err;
}

TEST(CameraBinary, MissingCameraWithAModeIsAUsageError) {
  expectOneError(runVidfilter({"-i", "cam97:1280x720@60:mjpeg", "--chain", "gray", "--no-preview"}),
                 2, "camera cam97:1280x720@60:mjpeg (index 97) could not be opened");
  expectOneError(runVidfilter({"-i", "cam97", "--camera-size", "640x480", "--camera-fps", "30",
                               "--chain", "gray", "--no-preview"}),
                 2, "camera cam97 (index 97) could not be opened");
}

TEST(CameraBinary, BadModesAreUsageErrors) {
  expectOneError(runVidfilter({"-i", "cam0:1280x720@fast", "--chain", "gray"}), 2,
                 "input 'cam0:1280x720@fast': the camera mode after ':'");
  expectOneError(runVidfilter({"-i", "cam0", "--camera-format", "rgb24", "--chain", "gray"}), 2,
                 "--camera-format must be mjpeg or yuyv; got 'rgb24'");
  expectOneError(runVidfilter({"-i", "cam0", "--camera-size", "1280", "--chain", "gray"}), 2,
                 "--camera-size must be WxH");
  expectOneError(runVidfilter({"-i", "cam0", "--camera-fps", "0", "--chain", "gray"}), 2,
                 "--camera-fps must be frames per second");
}
