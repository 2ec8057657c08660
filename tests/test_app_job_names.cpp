// The output names of several inputs: {name} and {index} in an -o or --stats pattern
// (app/job_list.cpp); a still image among several inputs writes one image to its name, as it
// does alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/job_list.hpp"
#include "pipeline/error.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

using vf::app::expandJobName;

namespace {

// The message expandJobName refuses `pattern` with, or "" when it takes it.
std::string refusal(const std::string& pattern) {
  try {
    expandJobName(pattern, "in/clip.mp4", 3);
  } catch (const vf::UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(AppJobNames, FieldsAreTheInputsNameAndPlace) {
  EXPECT_EQ(expandJobName("out/{name}_{index}.mkv", "in/clip.mp4", 3), "out/clip_3.mkv");
  EXPECT_EQ(expandJobName("{name}.mkv", "rtsp://cam/live/stream?user=a", 0), "stream.mkv");
  EXPECT_EQ(expandJobName("{name}.mkv", "a b+c.mov", 0), "a_b_c.mkv");
  // stdin is named so, never "-" (which, as an output, is stdout).
  EXPECT_EQ(expandJobName("{name}", "-", 0), "stdin");
  EXPECT_EQ(expandJobName("{name}.mkv", "-", 0), "stdin.mkv");
}

TEST(AppJobNames, AFieldWrittenOtherwiseIsRefusedNotTakenAsText) {
  EXPECT_EQ(refusal("o_{index}.mp4"), "");
  EXPECT_EQ(refusal("o_{index:03d}.mp4"),
            "'o_{index:03d}.mp4': {index:03d} is not a field; write {index} alone (the fields "
            "take no spaces or format)");
  EXPECT_NE(refusal("{name}_{ index }.mp4").find("{ index } is not a field; write {index}"),
            std::string::npos);
  EXPECT_NE(refusal("{nme}.mp4").find("{nme} is not a field; the fields are {name}"),
            std::string::npos);
  // Braces around other text stay part of the name.
  EXPECT_EQ(expandJobName("{take 2}_{name}.mkv", "a.mp4", 0), "{take 2}_a.mkv");
}

TEST(AppJobNames, StillImagesAmongSeveralInputsWriteAnImageEach) {
  using namespace vf::test;
  TempDir dir("job_names_stills");
  const std::string a = dir / "a.jpg", b = dir / "b.png";
  ffmpeg("-f lavfi -i testsrc2=size=160x120 -frames:v 1 " + q(a));
  ffmpeg("-f lavfi -i testsrc=size=96x64 -frames:v 1 " + q(b));
  const auto r = runVidfilter({"-i", a, "-i", b, "--chain", "gray", "-o", dir / "out_{name}.png"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(dir / "out_a.png", "", "stream=width,pix_fmt"), "160\ngray");
  EXPECT_EQ(probeValue(dir / "out_b.png", "", "stream=width,pix_fmt"), "96\ngray");
  // From a list too.
  std::ofstream(dir / "list.txt") << a << "\n";
  const auto l = runVidfilter(
      {"--inputs", dir / "list.txt", "--chain", "gray", "-o", dir / "listed_{name}.png"});
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "listed_a.png"));
}
