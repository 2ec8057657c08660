// The pixels' shape (sample aspect ratio) an output says: the input's, through crops and
// images, and through a resize as ffmpeg's scale keeps the displayed picture's shape. Inputs are
// made by the ffmpeg command at test time; ffprobe reads the results, and ffmpeg's own outputs
// are the reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf::test;

TEST(MediaAspect, TheSampleAspectRatioIsTheInputs) {
  // Anamorphic video (160x120 shown 16:9: pixels 4:3 wide) was written with square pixels:
  // the picture came out 4:3. ffmpeg keeps the input's; through a crop the pixels keep their
  // shape, images written keep it too; an image sequence read has square pixels.
  TempDir dir("meta_sar");
  const std::string in = dir / "wide.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -t 1 -vf setsar=4/3 -c:v libx264 " + q(in));
  const std::string sar = "stream=sample_aspect_ratio", dar = "stream=display_aspect_ratio";
  ASSERT_EQ(probeValue(in, "-select_streams v", sar), "4:3");
  for (const char* ext : {"mp4", "mkv", "webm", "avi"}) {
    SCOPED_TRACE(ext);
    const std::string ref = dir / (std::string("ref.") + ext);
    ffmpeg("-i " + q(in) + " " + q(ref));
    const std::string out = dir / (std::string("out.") + ext);
    const auto r = runVidfilter({"-i", in, "--chain", "blur", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    // Matroska stores the display size in whole pixels: 213x120 (71:40, pixels 213:160).
    for (const std::string& entry : {sar, dar})
      EXPECT_EQ(probeValue(out, "-select_streams v", entry),
                probeValue(ref, "-select_streams v", entry))
          << entry;
  }
  const std::string cropped = dir / "crop.mkv";
  const auto c = runVidfilter({"-i", in, "--chain", "crop=x=0:y=0:w=80:h=120", "-o", cropped});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(probeValue(cropped, "-select_streams v", sar), "4:3");
  // Images written from it say the same (PNG's pHYs, JPEG's density), as ffmpeg's image2.
  for (const char* ext : {"png", "jpg"}) {
    SCOPED_TRACE(ext);
    const std::string pattern = dir / (std::string("frame_%02d.") + ext);
    ASSERT_EQ(runVidfilter({"-i", in, "--frames", "2", "--chain", "blur", "-o", pattern}).status,
              0);
    const std::string first = dir / (std::string("frame_01.") + ext);
    ffmpeg("-i " + q(in) + " -frames:v 1 " + q(dir / (std::string("ref.") + ext)));
    EXPECT_EQ(probeValue(first, "-select_streams v", sar), "4:3");
    EXPECT_EQ(probeValue(first, "-select_streams v", sar),
              probeValue(dir / (std::string("ref.") + ext), "-select_streams v", sar));
  }
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 3 " + q(dir / "img_%02d.png"));
  const std::string seq = dir / "seq.mkv";
  const auto s = runVidfilter({"-i", dir / "img_%02d.png", "--chain", "gray", "-o", seq});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(probeValue(seq, "-select_streams v", sar), "1:1");
}

TEST(MediaAspect, AResizeKeepsTheDisplayedShapeAsFfmpegsScale) {
  // A DVD's 720x480 shown 16:9 (pixels 32:27): resized to 640x360 its pixels are square; a crop
  // then a resize to 320x240 makes them 2:3; a factor keeps them. Images say the same.
  TempDir dir("aspect_resize");
  const std::string in = dir / "dvd.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=720x480:rate=25 -t 0.4 -vf setsar=32/27 -c:v libx264 " + q(in));
  const std::string shape = "stream=width,height,sample_aspect_ratio,display_aspect_ratio";
  for (const auto& [chain, scale] : std::vector<std::pair<std::string, std::string>>{
           {"resize=size=640x360", "scale=640:360"},
           {"crop=w=360:h=480,resize=size=320x240", "crop=360:480:0:0,scale=320:240"},
           {"resize=scale=0.5", "scale=360:240"},
           {"gray,resize=size=360x480,blur", "scale=360:480"}}) {
    SCOPED_TRACE(chain);
    const std::string out = dir / "out.mkv", ref = dir / "ref.mkv";
    ffmpeg("-i " + q(in) + " -vf " + scale + " -c:v libx264 " + q(ref));
    const auto r = runVidfilter({"-y", "-i", in, "--chain", chain, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(probeValue(out, "-select_streams v", shape),
              probeValue(ref, "-select_streams v", shape));
    const std::string image = dir / "frame_%02d.png";
    ASSERT_EQ(runVidfilter({"-y", "-i", in, "--frames", "1", "--chain", chain, "-o", image}).status,
              0);
    ffmpeg("-i " + q(in) + " -frames:v 1 -vf " + scale + " " + q(dir / "ref.png"));
    EXPECT_EQ(probeValue(dir / "frame_01.png", "-select_streams v", shape),
              probeValue(dir / "ref.png", "-select_streams v", shape));
  }
  // Square pixels stretched to 640x240 become 1:2 (the picture still shows 4:3), as through
  // ffmpeg's scale.
  const std::string plain = dir / "plain.mp4";
  ffmpeg("-f lavfi -i testsrc2=size=320x240:rate=25 -t 0.2 -c:v libx264 " + q(plain));
  ASSERT_EQ(probeValue(plain, "-select_streams v", "stream=sample_aspect_ratio"), "1:1");
  const auto r =
      runVidfilter({"-y", "-i", plain, "--chain", "resize=size=640x240", "-o", dir / "wide.mp4"});
  ASSERT_EQ(r.status, 0) << r.err;
  ffmpeg("-i " + q(plain) + " -vf scale=640:240 " + q(dir / "wide_ref.mp4"));
  EXPECT_EQ(probeValue(dir / "wide.mp4", "-select_streams v", shape),
            probeValue(dir / "wide_ref.mp4", "-select_streams v", shape));
}
