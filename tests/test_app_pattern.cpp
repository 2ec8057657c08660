// Frame-number patterns (app/media/pattern.cpp): what they accept, the names they make and
// read back, and a clear complaint, with its column, for everything else; printf never sees
// them.
#include <gtest/gtest.h>

#include "app/media/pattern.hpp"

using vf::media::FramePattern;
using vf::media::parseFramePattern;
using vf::media::PatternProblem;

namespace {

std::string problemOf(const std::string& text, std::size_t* column = nullptr) {
  PatternProblem p;
  const auto r = parseFramePattern(text, &p);
  EXPECT_FALSE(r) << text;
  if (column) *column = p.column;
  return p.what;
}

}  // namespace

TEST(FramePattern, AcceptsExactlyOneFrameNumber) {
  PatternProblem p;
  auto a = parseFramePattern("out/frame_%05d.png", &p);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->name(1), "out/frame_00001.png");
  EXPECT_EQ(a->name(123456), "out/frame_123456.png");
  auto b = parseFramePattern("f_%d.png", &p);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name(0), "f_0.png");
  EXPECT_EQ(b->name(42), "f_42.png");
  auto c = parseFramePattern("100%%_%03d_%%.png", &p);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name(7), "100%_007_%.png");
  auto d = parseFramePattern("x_%010d.png", &p);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name(5), "x_0000000005.png");
}

TEST(FramePattern, NamesMatchBackToTheirNumbers) {
  PatternProblem p;
  const auto a = *parseFramePattern("dir/f_%04d.png", &p);
  for (const std::int64_t n : {0, 1, 9999, 10000, 123456789})
    EXPECT_EQ(a.match(a.name(n)), std::optional<std::int64_t>(n)) << n;
  EXPECT_FALSE(a.match("dir/f_001.png"));    // fewer digits than the width
  EXPECT_FALSE(a.match("dir/f_00001.png"));  // a leading zero beyond the width
  EXPECT_FALSE(a.match("dir/f_12a4.png"));
  EXPECT_FALSE(a.match("dir/g_0001.png"));
  EXPECT_FALSE(a.match("dir/f_0001.jpg"));
  const auto b = *parseFramePattern("%d", &p);
  EXPECT_EQ(b.match("17"), std::optional<std::int64_t>(17));
  EXPECT_FALSE(b.match("017"));
  EXPECT_FALSE(b.match(""));
}

TEST(FramePattern, PrintfConversionsAreErrorsWithTheirColumn) {
  // The adversarial pass's inputs: each crashed or wrote memory through snprintf.
  std::size_t col = 0;
  EXPECT_EQ(problemOf("x_%.5s_%05d.png", &col),
            "'%.5s' is not a frame number; use %d or %05d, and %% for a literal %");
  EXPECT_EQ(col, 3u);
  EXPECT_EQ(problemOf("x_%3$n.png", &col),
            "'%3$n' is not a frame number; use %d or %05d, and %% for a literal %");
  EXPECT_EQ(col, 3u);
  EXPECT_NE(problemOf("x_%5$p_%d.png").find("'%5$p' is not a frame number"), std::string::npos);
  EXPECT_NE(problemOf("x_%*d.png").find("'%*d' is not a frame number"), std::string::npos);
  EXPECT_NE(problemOf("x_%.3d.png").find("'%.3d' is not a frame number"), std::string::npos);
  EXPECT_NE(problemOf("x_%ld.png").find("'%l' is not a frame number"), std::string::npos);
  EXPECT_NE(problemOf("x_%s.png").find("'%s'"), std::string::npos);
  EXPECT_NE(problemOf("x_%\x01.png").find("\\x01"), std::string::npos);  // shown, not echoed
}

TEST(FramePattern, WidthsAndCountsOutOfBounds) {
  std::size_t col = 0;
  EXPECT_EQ(problemOf("a_%d_%d.png", &col),
            "a second frame number; a pattern holds exactly one %d");
  EXPECT_EQ(col, 6u);
  EXPECT_NE(problemOf("x_%011d.png").find("more than 10 digits"), std::string::npos);
  EXPECT_NE(problemOf("x_%0999999999999d.png").find("more than 10 digits"), std::string::npos);
  EXPECT_NE(problemOf("x_%5d.png").find("write %05d for zero-padded numbers"), std::string::npos);
  EXPECT_NE(problemOf("x_%0d.png").find("%0d has no width"), std::string::npos);
  EXPECT_NE(problemOf("end_%").find("a % at the end"), std::string::npos);
}

TEST(FramePattern, TextWithoutAFrameNumberIsNoPattern) {
  PatternProblem p;
  EXPECT_FALSE(parseFramePattern("plain.png", &p));
  EXPECT_TRUE(p.what.empty());
  EXPECT_FALSE(parseFramePattern("100%%.png", &p));
  EXPECT_TRUE(p.what.empty());
  EXPECT_EQ(vf::media::unescapePercents("100%%.png"), "100%.png");
  EXPECT_TRUE(vf::media::looksLikePattern("a_%3$n.png"));
  EXPECT_TRUE(vf::media::looksLikePattern("a_%05d.png"));
  EXPECT_FALSE(vf::media::looksLikePattern("100%%.png"));
  EXPECT_FALSE(vf::media::looksLikePattern("50% off.mp4"));
}
