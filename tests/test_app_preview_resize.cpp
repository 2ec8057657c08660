// The preview with a chain that changes the frame's size and shape (crop): the filtered picture
// is the chain's output at its own size, and in compare mode the original keeps its own aspect
// ratio inside its half (letterboxed) rather than being stretched to the output's. And the level
// threshold=mode=otsu applied, in the panel.
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "app/preview.hpp"
#include "app/theme.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

TEST(PreviewResize, CompareKeepsEachPicturesOwnShape) {
  Chain chain = Chain::parse("crop=0:0:400:100");
  PreviewOptions opts;
  opts.compare = true;
  opts.overlay = false;
  auto sink = makeSink(chain, opts);
  const cv::Mat in = test::realFrame(2, CV_8UC3);  // 768x576, 4:3
  TestFrame f(in, in(cv::Rect(0, 0, 400, 100)).clone());
  sink->consume(f.result);
  const cv::Mat shown = sink->lastRendered();
  const ViewLayout l = sink->lastLayout();
  ASSERT_FALSE(l.original.empty());
  // The filtered picture is the 4:1 output scaled into its place.
  EXPECT_NEAR(double(l.filtered.width) / l.filtered.height, 4.0, 0.1);
  cv::Mat want;
  cv::resize(f.out, want, l.filtered.size(), 0, 0, cv::INTER_LINEAR);
  const cv::Rect away(l.filtered.width / 4, l.filtered.height / 3, l.filtered.width / 2,
                      l.filtered.height / 2);  // away from the corner label
  EXPECT_LE(meanDiff(shown(l.filtered)(away), want(away)), 4.0);
  // The original, 4:3, sits centred in its 4:1 half with letterbox bars either side.
  const int w = int(std::lround(l.original.height * 4.0 / 3.0));
  const cv::Rect pic(l.original.x + (l.original.width - w) / 2, l.original.y, w, l.original.height);
  const cv::Rect leftBar(l.original.x, l.original.y, (l.original.width - w) / 2 - 1,
                         l.original.height);
  ASSERT_GT(leftBar.width, 0);
  EXPECT_EQ(pixelsOf(shown(leftBar), theme::kLetterbox, 2), leftBar.area());
  cv::Mat wantIn;
  cv::resize(in, wantIn, pic.size(), 0, 0, cv::INTER_AREA);
  const cv::Rect inner(pic.width / 4, pic.height / 3, pic.width / 2, pic.height / 2);
  EXPECT_LE(meanDiff(shown(pic)(inner), wantIn(inner)), 4.0);
}

TEST(PreviewResize, OtsuShowsTheLevelItApplied) {
  Chain chain = Chain::parse("gray,threshold=mode=otsu");
  auto sink = makeSink(chain);
  TestFrame f(test::realFrame(1, CV_8UC3), test::realFrame(1, CV_8UC1));
  const float level = 97;
  f.side.clear();
  f.side.emplace_back(sizeof level);
  std::memcpy(f.side[0].data(), &level, sizeof level);
  f.sideInfo = {{1, "otsu"}};
  f.result.side = &f.side;
  f.result.sideInfo = &f.sideInfo;
  sink->consume(f.result);
  const PanelInfo p = sink->currentPanel();
  ASSERT_EQ(p.table.stages.size(), 2u);
  EXPECT_EQ(p.table.stages[1].applied, "applied level 97");
}
