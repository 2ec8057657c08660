// Fusion's plan (pipeline/fusion.hpp): which stages make one pass, prologues and epilogues
// included, from the stages' traits alone (the fused chain's pixels: tests/test_chain_fusion.cpp).
#include "pipeline/fusion.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

std::vector<std::vector<std::size_t>> stagesOf(const std::vector<PassPlan>& plan) {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& p : plan) out.push_back(p.stages);
  return out;
}

constexpr FusionTraits kPoint{true, false, false, false}, kStarts{true, true, false, false},
    kCounter{false, false, true, false}, kReader{false, false, false, true},
    kOpaque{false, false, false, false};
// Epilogues: a function that keeps the channels, a stage that stores through an epilogue, one
// that also reads through a prologue.
constexpr FusionTraits kKeeps{true, false, false, false, true, false},
    kWriter{false, false, false, false, false, true}, kBoth{false, false, false, true, false, true};

}  // namespace

TEST(FusionPlan, PointRunsAndCountersJoinOpaqueStagesBreak) {
  // gray, hist, brightness | blur | brightness, brightness
  const auto p =
      planPasses({0, 1, 2, 3, 4, 5}, {kPoint, kCounter, kPoint, kOpaque, kPoint, kPoint}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3}, {4, 5}}));
  EXPECT_TRUE(p[0].fused);
  EXPECT_FALSE(p[1].fused);
  EXPECT_TRUE(p[2].fused);
}

TEST(FusionPlan, AFunctionNeedingTheWholeFrameStartsAPass) {
  // hist, brightness=auto, brightness: the count cannot share the apply's pass.
  const auto p = planPasses({0, 1, 2}, {kCounter, kStarts, kPoint}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0}, {1, 2}}));
  EXPECT_FALSE(p[0].fused);
  EXPECT_TRUE(p[1].fused);
}

TEST(FusionPlan, SingleStagesAndCounterOnlyRunsStayUnfused) {
  const auto p = planPasses({2, 5, 7}, {kCounter, kCounter, kPoint}, true);
  // hist, hist: no function to fuse; they join the brightness after them.
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{2, 5, 7}}));
  const auto q = planPasses({2, 5}, {kCounter, kCounter}, true);
  EXPECT_EQ(stagesOf(q), (std::vector<std::vector<std::size_t>>{{2}, {5}}));
  const auto r = planPasses({0}, {kPoint}, true);
  EXPECT_FALSE(r[0].fused);
}

TEST(FusionPlan, OffEveryStageIsItsOwnPass) {
  const auto p = planPasses({0, 1, 2}, {kPoint, kCounter, kPoint}, false);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0}, {1}, {2}}));
  for (const auto& x : p) EXPECT_FALSE(x.fused);
}

TEST(ProloguePlan, FunctionsAfterTheLastCounterFoldIntoTheReader) {
  // gray, hist, brightness, blur: the count needs the gray frame; brightness folds.
  const auto p = planPasses({0, 1, 2, 3}, {kPoint, kCounter, kPoint, kReader}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0, 1}, {2, 3}}));
  EXPECT_TRUE(p[0].fused);
  EXPECT_FALSE(p[0].prologue);
  EXPECT_TRUE(p[1].fused);
  EXPECT_TRUE(p[1].prologue);
  // gray, brightness, blur, brightness: both functions before the blur fold; the one after is
  // a pass of its own.
  const auto q = planPasses({0, 1, 2, 3}, {kPoint, kPoint, kReader, kPoint}, true);
  EXPECT_EQ(stagesOf(q), (std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3}}));
  EXPECT_TRUE(q[0].prologue);
  EXPECT_FALSE(q[1].fused);
  // A function needing the whole frame first folds too (the reader runs its prelude).
  const auto r = planPasses({4, 6}, {kStarts, kReader}, true);
  EXPECT_EQ(stagesOf(r), (std::vector<std::vector<std::size_t>>{{4, 6}}));
  EXPECT_TRUE(r[0].prologue);
}

TEST(ProloguePlan, NothingToFoldOrFusionOffLeavesTheReaderAlone) {
  const auto counted = planPasses({0, 1, 2}, {kPoint, kCounter, kReader}, true);
  EXPECT_EQ(stagesOf(counted), (std::vector<std::vector<std::size_t>>{{0, 1}, {2}}));
  EXPECT_FALSE(counted[1].prologue);
  const auto opaque = planPasses({0, 1}, {kOpaque, kReader}, true);
  EXPECT_EQ(stagesOf(opaque), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
  const auto off = planPasses({0, 1}, {kPoint, kReader}, false);
  EXPECT_EQ(stagesOf(off), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
  for (const auto& x : off) EXPECT_FALSE(x.fused || x.prologue);
  const auto alone = planPasses({3}, {kReader}, true);
  EXPECT_FALSE(alone[0].fused || alone[0].prologue);
}

TEST(EpiloguePlan, CountersAndFunctionsKeepingTheChannelsJoinTheWriter) {
  // sobel, hist, brightness, blur: the count and the function join the sobel's pass.
  const auto p = planPasses({0, 1, 2, 3}, {kWriter, kCounter, kKeeps, kOpaque}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3}}));
  EXPECT_TRUE(p[0].fused && p[0].epilogue);
  EXPECT_FALSE(p[0].prologue);
  EXPECT_EQ(p[0].reader, 0u);
  // A function needing the whole frame ends it, and so does one that changes the channels.
  const auto q = planPasses({0, 1, 2, 3}, {kWriter, kCounter, kStarts, kKeeps}, true);
  EXPECT_EQ(stagesOf(q), (std::vector<std::vector<std::size_t>>{{0, 1}, {2, 3}}));
  const auto r = planPasses({0, 1, 2}, {kWriter, kPoint, kCounter}, true);
  EXPECT_EQ(stagesOf(r), (std::vector<std::vector<std::size_t>>{{0}, {1, 2}}));
  EXPECT_FALSE(r[0].epilogue);
  // Nothing after it, or fusion off: the writer alone.
  const auto alone = planPasses({0, 1}, {kWriter, kOpaque}, true);
  EXPECT_EQ(stagesOf(alone), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
  EXPECT_FALSE(alone[0].fused || alone[0].epilogue);
  const auto off = planPasses({0, 1}, {kWriter, kCounter}, false);
  EXPECT_EQ(stagesOf(off), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
  for (const auto& x : off) EXPECT_FALSE(x.fused || x.epilogue);
}

TEST(EpiloguePlan, APrologueAndAnEpilogueMakeOnePass) {
  // gray, sobel, hist, brightness, and a second sobel storing through a counter.
  const auto p =
      planPasses({0, 1, 2, 3, 4, 5}, {kPoint, kBoth, kCounter, kKeeps, kBoth, kCounter}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0, 1, 2, 3}, {4, 5}}));
  EXPECT_TRUE(p[0].prologue && p[0].epilogue);
  EXPECT_EQ(p[0].reader, 1u);
  EXPECT_FALSE(p[1].prologue);
  EXPECT_TRUE(p[1].epilogue);
  EXPECT_EQ(p[1].reader, 0u);
}

TEST(EpiloguePlan, FunctionsAnEpilogueTookAreNoPrologue) {
  // sobel, brightness, blur: the function joins the sobel; the blur reads its input as it is.
  const auto p = planPasses({0, 1, 2}, {kWriter, kKeeps, kReader}, true);
  EXPECT_EQ(stagesOf(p), (std::vector<std::vector<std::size_t>>{{0, 1}, {2}}));
  EXPECT_FALSE(p[1].prologue);
  // The epilogue stops at a function changing the channels; the blur's prologue would reach
  // back into it, so the blur reads as it is and that function is a pass of its own.
  const auto q = planPasses({0, 1, 2, 3}, {kWriter, kKeeps, kPoint, kReader}, true);
  EXPECT_EQ(stagesOf(q), (std::vector<std::vector<std::size_t>>{{0, 1}, {2}, {3}}));
  for (const auto& x : q) EXPECT_FALSE(x.prologue);
}

// Every sequence of four stages before a reader: the functions the plan folds into it are those
// from prologueStart on (what the chain judges the reader's source by), and prologueStart is the
// start of the run of functions before the reader, cut after its last counter.
TEST(ProloguePlan, TheFoldedFunctionsStartWherePrologueStartSays) {
  const FusionTraits kinds[] = {kPoint, kStarts, kCounter, kOpaque};
  for (int code = 0; code < 256; ++code) {
    std::vector<FusionTraits> traits;
    std::string shape;
    for (int j = 0, c = code; j < 4; ++j, c /= 4) {
      traits.push_back(kinds[c % 4]);
      shape += "PSCO"[c % 4];
    }
    traits.push_back(kReader);
    SCOPED_TRACE(shape + "R");
    // By hand: back from the reader while stages are functions, stopping after a counter or an
    // opaque stage, or at a function that starts a pass (it heads its run).
    std::size_t expect = 4;
    while (expect > 0 && (shape[expect - 1] == 'P' || shape[expect - 1] == 'S')) {
      --expect;
      if (shape[expect] == 'S') break;
    }
    EXPECT_EQ(prologueStart(traits, 4), expect);
    const auto p = planPasses({0, 1, 2, 3, 4}, traits, true);
    ASSERT_FALSE(p.empty());
    const PassPlan& last = p.back();
    EXPECT_EQ(last.prologue, expect < 4);
    EXPECT_EQ(last.stages.front(), expect);
    EXPECT_EQ(last.stages.back(), 4u);
  }
}
