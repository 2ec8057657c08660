// The output names of several inputs: {name} and {index} in an -o or --stats pattern
// (app/job_list.cpp).
#include <gtest/gtest.h>

#include <string>

#include "app/job_list.hpp"
#include "pipeline/error.hpp"

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
