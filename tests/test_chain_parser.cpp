// The chain syntax: valid chains, every kind of error (with the caret), --list-stages.
#include <gtest/gtest.h>

#include "pipeline/chain.hpp"
#include "pipeline/registry.hpp"

using namespace vf;

namespace {
// Parses a chain that must fail; returns the error.
ChainError parseError(const std::string& text) {
  try {
    Chain::parse(text);
  } catch (const ChainError& e) {
    return e;
  }
  ADD_FAILURE() << "'" << text << "' parsed";
  return ChainError("", "", 0, 0);
}
}  // namespace

TEST(ChainParser, DefaultsAndNamedParameters) {
  Chain c = Chain::parse("gray,brightness=gain=1.2:bias=-10");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.stage(0).name(), "gray");
  EXPECT_EQ(c.stage(1).name(), "brightness");
  EXPECT_DOUBLE_EQ(c.stage(1).params().number("gain"), 1.2);
  EXPECT_DOUBLE_EQ(c.stage(1).params().number("bias"), -10);
  EXPECT_EQ(c.stage(1).params().text("mode"), "manual");  // default kept
  EXPECT_EQ(c.str(), "gray,brightness=gain=1.2:bias=-10");
}

TEST(ChainParser, BareValueSetsFirstParameter) {
  Chain c = Chain::parse("brightness=auto:clip=2");
  EXPECT_EQ(c.stage(0).params().text("mode"), "auto");
  EXPECT_DOUBLE_EQ(c.stage(0).params().number("clip"), 2);
  EXPECT_EQ(Chain::parse("brightness=mode=auto").stage(0).params().text("mode"), "auto");
}

TEST(ChainParser, WhitespaceAroundTokensIsAccepted) {
  Chain c = Chain::parse(" gray , brightness=gain = 2 ");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c.stage(1).params().number("gain"), 2);
}

TEST(ChainParser, OutOfRangeNamesStageParameterAndPointsAtIt) {
  const ChainError e = parseError("gray,brightness=gain=99");
  EXPECT_EQ(e.message(), "brightness: gain must be in [-16, 16], got 99");
  EXPECT_EQ(e.position(), 16u);  // under "gain=99"
  EXPECT_EQ(e.length(), 7u);
  const std::string full = e.what();
  EXPECT_NE(full.find("\n  gray,brightness=gain=99\n                  ^^^^^^^"), std::string::npos)
      << full;
}

// hsv, lab and yuv frames travel in BGR's layout: a stage converting from BGR after them would
// take their channels for B, G, R (color=to=yuv,color=to=bgr passed the YUV through as BGR).
TEST(ChainParser, AConversionFromBgrOfFramesColorMadeOtherwiseIsRefused) {
  const ChainError e = parseError("color=to=yuv,color=to=bgr");
  EXPECT_EQ(e.message(),
            "color=to=bgr reads BGR, but the frames here are yuv (from color=to=yuv, in BGR's "
            "layout): it cannot convert them; put it before color=to=yuv, or leave it out to "
            "keep the yuv channels");
  EXPECT_EQ(e.position(), 13u);
  EXPECT_EQ(e.length(), 12u);
  EXPECT_EQ(parseError("color=hsv,blur,gray").position(), 15u);
  EXPECT_NE(parseError("color=to=lab, sobel ,color=to=hsv").message().find("frames here are lab"),
            std::string::npos);
  // Otsu's threshold takes gray: the frames' space is named, not the layout they travel in.
  EXPECT_EQ(parseError("color=to=hsv,threshold=mode=otsu")
                .message()
                .rfind("threshold: mode=otsu needs gray input, but the frames here are hsv", 0),
            0u);
  // Stages that read any three channels take them; gray frames convert to BGR again.
  for (const char* ok :
       {"color=to=yuv,blur,sobel,hist", "color=to=hsv,threshold", "gray,color=to=bgr,color=to=hsv",
        "color=to=gray,color=to=bgr,gray", "color=to=hsv,brightness=gain=2"})
    EXPECT_NO_THROW(Chain::parse(ok)) << ok;
}

TEST(ChainParser, UnknownStageListsStages) {
  const ChainError e = parseError("gray,blurr");
  EXPECT_NE(e.message().find("unknown stage 'blurr'"), std::string::npos) << e.message();
  for (const auto& n : stageNames()) EXPECT_NE(e.message().find(n), std::string::npos) << n;
  EXPECT_EQ(e.position(), 5u);
  EXPECT_EQ(e.length(), 5u);
}

TEST(ChainParser, UnknownParameterListsParameters) {
  const ChainError e = parseError("brightness=gian=2");
  EXPECT_NE(e.message().find("brightness: unknown parameter 'gian'"), std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("gain"), std::string::npos);
  EXPECT_NE(e.message().find("bias"), std::string::npos);
}

TEST(ChainParser, WrongTypesAndEnums) {
  EXPECT_EQ(parseError("brightness=gain=abc").message(),
            "brightness: gain must be a number, got 'abc'");
  EXPECT_EQ(parseError("brightness=mode=bright").message(),
            "brightness: mode must be one of manual, auto, got 'bright'");
  EXPECT_EQ(parseError("brightness=gain=").message(), "brightness: gain must be a number, got ''");
  // Decimal numbers only, as the command line's: no hexadecimal (0x10 was 16), no NaN or inf;
  // past what a double holds is out of range, and one that would read as 0 is refused.
  for (const char* v : {"0x10", "0x1p3", "nan", "inf", "-inf"})
    EXPECT_EQ(parseError(std::string("brightness=gain=") + v).message(),
              std::string("brightness: gain must be a number, got '") + v + "'")
        << v;
  EXPECT_EQ(parseError("brightness=gain=1e999")
                .message()
                .rfind("brightness: gain must be in [-16, 16], got 1e999", 0),
            0u);
  EXPECT_EQ(parseError("brightness=gain=1e-400").message(),
            "brightness: gain: '1e-400' is too close to 0 to be held as a number; write 0 or a "
            "larger value");
  // Where 0 is outside the range (sigma in (0, 50]), the range is what the user is told.
  EXPECT_EQ(parseError("blur=sigma=1e-400").message().rfind("blur: sigma must be in (0, 50]", 0),
            0u);
  EXPECT_NO_THROW(Chain::parse("brightness=gain=1.5e-1:bias=-2E1"));
  EXPECT_NO_THROW(Chain::parse("brightness=gain=1e-310"));  // subnormal: the number, rounded
}

TEST(ChainParser, ANameWithoutItsValueSaysSo) {
  try {
    (void)Chain::parse("blur=sigma");
    FAIL() << "blur=sigma parsed";
  } catch (const ChainError& e) {
    EXPECT_NE(std::string(e.what()).find("sigma needs a value, e.g. sigma="), std::string::npos)
        << e.what();
  }
  try {
    (void)Chain::parse("gray,brightness=gain=1.2:bias");
    FAIL() << "bias without a value parsed";
  } catch (const ChainError&) {
  }
}

TEST(ChainParser, StructuralErrors) {
  EXPECT_NE(parseError("").message().find("empty chain"), std::string::npos);
  EXPECT_NE(parseError("   ").message().find("empty chain"), std::string::npos);
  EXPECT_NE(parseError("gray,,brightness").message().find("empty stage"), std::string::npos);
  EXPECT_NE(parseError("gray,").message().find("empty stage"), std::string::npos);
  EXPECT_NE(parseError("gray=4:8").message().find("too many values"), std::string::npos);
  EXPECT_NE(parseError("brightness=gain=1:auto").message().find("needs a name"), std::string::npos);
}

TEST(ChainParser, ListStagesNamesRoundTrip) {
  const std::string list = formatStageList();
  for (const auto* info : stageRegistry()) {
    // Every listed stage parses by its name alone, and every parameter by name=default.
    EXPECT_NE(list.find(info->name + "  "), std::string::npos) << info->name;
    // A parameter without a default (the kernel stage's file) is given a value, which stays.
    std::string text = info->name, required;
    std::string sep = "=";
    for (const auto& p : info->params) {
      EXPECT_NE(list.find("    " + p.name + " ("), std::string::npos)
          << info->name << "." << p.name;
      if (p.defaultValue.empty()) required = "=" + p.name + "=x.cl";
      text += sep + p.name + "=" + (p.defaultValue.empty() ? "x.cl" : p.defaultValue);
      sep = ":";
    }
    Chain c = Chain::parse(text);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c.stage(0).name(), info->name);
    EXPECT_EQ(c.str(), info->name + required) << "defaults written out should canonicalise away";
  }
}
