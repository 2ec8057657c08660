// The README's stage reference is `vidfilter --list-stages`, verbatim. When a stage or a
// parameter changes, this fails until the README is regenerated:
//   build/app/vidfilter --list-stages   (paste between the stages:begin/end markers)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pipeline/registry.hpp"

TEST(Readme, StageReferenceMatchesListStages) {
  std::ifstream in(VIDFILTER_SOURCE_DIR "/README.md");
  ASSERT_TRUE(in) << "README.md not found";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::string begin = "<!-- stages:begin -->\n```\n", end = "```\n<!-- stages:end -->";
  const auto a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  const std::string block = readme.substr(a + begin.size(), b - a - begin.size());
  EXPECT_EQ(block, vf::formatStageList())
      << "README.md's stage reference is stale: paste `vidfilter --list-stages` into it";
}
