// The preview's picture, drawn without a display: where the pictures and the panel go for any
// window size, and that the graph, the stage bars and the histogram put their colours where the
// numbers say (positions computed here from the numbers, independently of the drawing code).
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <random>

#include "app/frame_graph.hpp"
#include "app/histogram_panel.hpp"
#include "app/layout.hpp"
#include "app/panel.hpp"
#include "app/stage_table.hpp"
#include "app/text.hpp"
#include "app/theme.hpp"
#include "app/view.hpp"
#include "tests/test_preview_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

namespace {

bool inside(const cv::Rect& r, cv::Size canvas) {
  return (r & cv::Rect(0, 0, canvas.width, canvas.height)) == r;
}

// Columns of `r` holding at least one pixel of `colour`.
std::vector<int> columnsWith(const cv::Mat& m, cv::Rect r, const cv::Scalar& colour) {
  std::vector<int> cols;
  for (int x = r.x; x < r.br().x; ++x)
    if (pixelsOf(m(cv::Rect(x, r.y, 1, r.height)), colour, 2) > 0) cols.push_back(x);
  return cols;
}

// Rows of `r` in which `colour` covers at least half the width.
std::vector<int> rowsAcross(const cv::Mat& m, cv::Rect r, const cv::Scalar& colour) {
  std::vector<int> rows;
  for (int y = r.y; y < r.br().y; ++y)
    if (pixelsOf(m(cv::Rect(r.x, y, r.width, 1)), colour, 2) * 2 >= r.width) rows.push_back(y);
  return rows;
}

}  // namespace

// ---- layout -------------------------------------------------------------------------------------

TEST(Layout, A1080pCompareFitsA1280x800Screen) {
  const cv::Size work(1264, 760);  // 1280x800 less a window frame
  const cv::Size frame(1920, 1080);
  const int pw = theme::panelWidth(14);
  const cv::Size canvas = initialCanvas(frame, true, pw, 560, work);
  EXPECT_LE(canvas.width, work.width);
  EXPECT_LE(canvas.height, work.height);
  const ViewLayout l = layoutView(canvas, frame, true, pw);
  EXPECT_TRUE(l.stacked) << "two 16:9 pictures are larger one above the other here";
  EXPECT_EQ(l.original.size(), l.filtered.size());
  for (const cv::Rect& r : {l.original, l.filtered, l.panel}) EXPECT_TRUE(inside(r, canvas)) << r;
  EXPECT_EQ((l.panel & l.original).area(), 0);
  EXPECT_EQ((l.panel & l.filtered).area(), 0);
  EXPECT_EQ((l.original & l.filtered).area(), 0);
  // Aspect kept (within the rounding of one pixel).
  EXPECT_NEAR(double(l.filtered.width) / l.filtered.height, 16.0 / 9, 0.01);
  // The same frames on a wide screen go side by side.
  const ViewLayout wide = layoutView({3000, 800}, frame, true, pw);
  EXPECT_FALSE(wide.stacked);
  EXPECT_EQ(wide.original.y, wide.filtered.y);
  EXPECT_LT(wide.original.x, wide.filtered.x) << "original left, filtered right";
}

TEST(Layout, SmallFramesAreEnlargedByAWholeFactorBesideThePanel) {
  const cv::Size frame(332, 196), work(1264, 760);
  const int pw = theme::panelWidth(14), ph = 560;
  const cv::Size canvas = initialCanvas(frame, false, pw, ph, work);
  const ViewLayout l = layoutView(canvas, frame, false, pw);
  // 560 / 196 = 2.9 rounds to three times, which does not fit beside the panel (996 + 378 >
  // 1264): twice.
  EXPECT_DOUBLE_EQ(l.scale, 2.0);
  EXPECT_EQ(l.filtered.size(), cv::Size(664, 392));
  EXPECT_EQ((l.panel & l.filtered).area(), 0) << "the panel covers none of the picture";
  EXPECT_GE(canvas.height, ph);
  EXPECT_EQ(scaleInterpolation(l.scale), cv::INTER_NEAREST);
  // On a 1920x1080 screen three times fits.
  const cv::Size big = initialCanvas(frame, false, pw, ph, {1904, 1040});
  EXPECT_EQ(big, cv::Size(996 + pw, 588));
}

TEST(Layout, AnyWindowSizeKeepsAspectAndNeverOverlaps) {
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    const cv::Size canvas(160 + int(rng() % 3000), 120 + int(rng() % 2000));
    const cv::Size frame(1 + int(rng() % 4000), 1 + int(rng() % 3000));
    const bool compare = rng() % 2, panel = rng() % 2;
    const int pw = panel ? theme::panelWidth(14) : 0;
    const ViewLayout l = layoutView(canvas, frame, compare, pw);
    SCOPED_TRACE(testing::Message() << canvas << " " << frame << " compare " << compare);
    ASSERT_TRUE(inside(l.filtered, canvas));
    ASSERT_GT(l.filtered.area(), 0);
    const double want = double(frame.width) / frame.height;
    const double got = double(l.filtered.width) / l.filtered.height;
    if (l.filtered.width > 20 && l.filtered.height > 20) {
      EXPECT_NEAR(got / want, 1.0, 0.1);
    }
    EXPECT_EQ((l.panel & l.filtered).area(), 0);
    if (compare) {
      ASSERT_TRUE(inside(l.original, canvas));
      EXPECT_EQ((l.original & l.filtered).area(), 0);
      EXPECT_EQ((l.panel & l.original).area(), 0);
    }
    if (panel && canvas.width >= pw + 96) {
      EXPECT_EQ(l.panel.width, pw);
    }
  }
}

// ---- the frame-time graph -----------------------------------------------------------------------

TEST(FrameGraph, DeviceAreaLatencyLineAndBudgetWhereTheNumbersPutThem) {
  // 5 s of a 30 fps source: device 10 ms, then 25 ms in the last second; latency 20 ms.
  FrameHistory h;
  for (int i = 0; i < 150; ++i) {
    const double t = 100 + i / 30.0;
    h.add(std::uint64_t(i), t, i >= 120 ? 25.0 : 10.0, 20.0);
    h.markShown(std::uint64_t(i), 20.0);
  }
  cv::Mat m(200, 400, CV_8UC3, cv::Scalar(0, 0, 0));
  const cv::Rect r(20, 30, 300, 120);
  GraphStyle style;
  style.budgetMs = 1000.0 / 30;
  Text small(12);
  const double yMax = drawFrameGraph(m, r, h, h.lastTime(), style, small);
  ASSERT_GT(yMax, 33.4);
  auto yOf = [&](double ms) { return r.br().y - 1 - int(std::lround(ms / yMax * (r.height - 2))); };
  // Everything inside the plot's rectangle.
  cv::Mat outside = m.clone();
  outside(r).setTo(cv::Scalar(0, 0, 0));
  EXPECT_EQ(cv::countNonZero(outside.reshape(1)), 0);
  // The budget: a dashed line across at its height.
  const auto budgetRows = rowsAcross(m, r, theme::kBudget);
  ASSERT_FALSE(budgetRows.empty());
  EXPECT_NEAR(budgetRows.front(), yOf(style.budgetMs), 1);
  // Device time: filled from the bottom to 10 ms in the old part, 25 ms in the last fifth.
  const int xOld = r.x + r.width / 3, xNew = r.br().x - 10;
  auto top = [&](int x, const cv::Scalar& c) {
    for (int y = r.y; y < r.br().y; ++y)
      if (pixelsOf(m(cv::Rect(x, y, 1, 1)), c, 2)) return y;
    return -1;
  };
  EXPECT_NEAR(top(xOld, theme::kDevice), yOf(10), 1);
  EXPECT_NEAR(top(xNew, theme::kDevice), yOf(25), 1);
  EXPECT_TRUE(pixelsOf(m(cv::Rect(xOld, yOf(2), 1, 1)), theme::kDevice, 2))
      << "the area is filled down to zero";
  // Latency: a line at 20 ms across the whole 5 s.
  const auto latCols = columnsWith(m, cv::Rect(r.x, yOf(20) - 2, r.width, 5), theme::kLatency);
  EXPECT_GT(int(latCols.size()), r.width * 9 / 10);
}

TEST(FrameGraph, ABudgetFarAboveTheFramesIsMarkedAboveThePlot) {
  FrameHistory h;
  for (int i = 0; i < 50; ++i) h.add(std::uint64_t(i), i / 10.0, 0.06, -1);
  cv::Mat m(150, 360, CV_8UC3, cv::Scalar(0, 0, 0));
  const cv::Rect r(0, 0, 360, 150);
  GraphStyle style;
  style.budgetMs = 16.7;
  Text small(12);
  const double yMax = drawFrameGraph(m, r, h, h.lastTime(), style, small);
  EXPECT_LT(yMax, 1.0) << "scaled to the frames, not to a budget 200x larger";
  EXPECT_GT(pixelsOf(m(cv::Rect(0, 0, 360, 1)), theme::kBudget, 2), 100) << "no mark at the top";
  EXPECT_GT(pixelsOf(m, theme::kDevice, 2), 1000) << "0.06 ms of device time is visible";
}

TEST(FrameGraph, NiceCeil) {
  EXPECT_DOUBLE_EQ(niceCeil(33.4 * 1.1), 40);
  EXPECT_DOUBLE_EQ(niceCeil(100), 100);
  EXPECT_DOUBLE_EQ(niceCeil(101), 120);
  EXPECT_DOUBLE_EQ(niceCeil(0.066), 0.08);
  EXPECT_DOUBLE_EQ(niceCeil(0), 1);
}

// ---- the stage table ----------------------------------------------------------------------------

TEST(StageTable, BarsMeasureTheMedianAgainstTheBudgetWithAP99Tick) {
  StageTable t;
  t.budgetMs = 40;
  t.stages = {{"blur", "sigma 2", "", true, false, true, 10, 30},
              {"sobel", "", "", true, true, true, 20, 25},
              {"hist", "", "", false, false, false, 0, 0},
              {"brightness", "", "", true, false, true, 60, 80}};
  Text font(14), small(12);
  cv::Mat m(stageTableHeight(t, font, small) + 10, 400, CV_8UC3, theme::kPanel);
  const cv::Rect bars = drawStageTable(m, cv::Rect(0, 0, 400, m.rows - 10), t, font, small);
  ASSERT_GT(bars.width, 40);
  // The bars, top to bottom: each starts at the left edge, p50/budget of the width long, green
  // (red and full when over the budget). Found where a run of bar colour begins.
  struct Bar {
    int length;
    cv::Scalar colour;
  };
  std::vector<Bar> found;
  bool inBar = false;
  for (int y = bars.y; y < bars.br().y; ++y) {
    const cv::Mat row = m(cv::Rect(bars.x, y, bars.width, 1));
    const cv::Scalar* colour = nullptr;
    for (const cv::Scalar* c : {&theme::kDevice, &theme::kBudget})
      if (pixelsOf(row.colRange(0, 1), *c, 2)) colour = c;
    if (colour && !inBar) {
      int n = 0;
      while (n < bars.width && pixelsOf(row.colRange(n, n + 1), *colour, 2)) ++n;
      found.push_back({n, *colour});
    }
    inBar = colour != nullptr;
  }
  // blur, sobel, brightness (hist is off: no bar), then the total (90 ms: over).
  ASSERT_EQ(found.size(), 4u);
  EXPECT_NEAR(found[0].length, bars.width * 10 / 40, 2);
  EXPECT_EQ(found[0].colour, theme::kDevice);
  EXPECT_NEAR(found[1].length, bars.width * 20 / 40, 2);
  EXPECT_EQ(found[2].colour, theme::kBudget) << "over the budget: the bar is full and red";
  EXPECT_NEAR(found[2].length, bars.width, 2);
  EXPECT_EQ(found[3].colour, theme::kBudget);
  // p99 ticks: blur's at 30/40 of the width.
  const auto ticks = columnsWith(m, bars, theme::kP99);
  ASSERT_FALSE(ticks.empty());
  const int blurTick = bars.x + bars.width * 30 / 40;
  EXPECT_TRUE(
      std::any_of(ticks.begin(), ticks.end(), [&](int x) { return std::abs(x - blurTick) <= 2; }));
}

// ---- the histogram panel ------------------------------------------------------------------------

TEST(HistogramPanel, ReadableOnAnyFrameWithItsAxisAndScale) {
  const cv::Mat gray = test::realFrame(4, CV_8UC1);
  std::vector<std::uint32_t> bins(256, 0);
  for (auto it = gray.begin<std::uint8_t>(); it != gray.end<std::uint8_t>(); ++it) ++bins[*it];
  const int peak = int(std::max_element(bins.begin(), bins.end()) - bins.begin());
  Text font(14), small(12);
  HistogramView v{bins.data(), 1, "4 hist, of sobel's output", false};
  cv::Rect plots[2];
  cv::Mat drawn[2];
  int k = 0;
  for (const cv::Scalar& under : {cv::Scalar::all(0), cv::Scalar::all(255)}) {
    cv::Mat m(histogramPanelHeight(font, small) + 4, 380, CV_8UC3, under);
    plots[k] = drawHistogramPanel(m, cv::Rect(0, 0, 380, m.rows - 4), v, font, small);
    drawn[k++] = m;
  }
  // The same picture on a black and on a white frame: it has its own background.
  EXPECT_EQ(plots[0], plots[1]);
  EXPECT_EQ(differing(drawn[0](plots[0]), drawn[1](plots[1])), 0);
  const cv::Rect p = plots[0];
  const cv::Mat& m = drawn[0];
  // Linear scale: the curve reaches the top in the fullest bin's column and nowhere else far.
  const int peakX = p.x + peak * (p.width - 1) / 255;
  int topX = -1;
  for (int y = p.y; y < p.br().y && topX < 0; ++y)
    for (int x = p.x; x < p.br().x; ++x)
      if (pixelsOf(m(cv::Rect(x, y, 1, 1)), theme::kHistGray, 30)) {
        topX = x;
        break;
      }
  EXPECT_NEAR(topX, peakX, 2);
  // Axis labels under the plot: text at 0, 128 and 255.
  for (int v2 : {0, 128, 255}) {
    const int x = p.x + v2 * (p.width - 1) / 255;
    const cv::Rect under(std::clamp(x - 12, 0, m.cols - 24), p.br().y + 1, 24, small.lineHeight());
    EXPECT_GT(pixelsOf(m(under), theme::kDim, 60), 3) << "no label for " << v2;
  }
  // The scale is named: the linear and log pictures differ in the title line too.
  cv::Mat logPic(m.size(), CV_8UC3, cv::Scalar::all(0));
  v.log = true;
  drawHistogramPanel(logPic, cv::Rect(0, 0, 380, m.rows - 4), v, font, small);
  const cv::Rect title(300, 0, 80, font.lineHeight());
  EXPECT_GT(differing(logPic(title), m(title)), 10);
}

TEST(HistogramPanel, ThreeChannelsInTheirColours) {
  const cv::Mat bgr = test::realFrame(5, CV_8UC3);
  std::vector<std::uint32_t> bins(3 * 256, 0);
  for (auto it = bgr.begin<cv::Vec3b>(); it != bgr.end<cv::Vec3b>(); ++it)
    for (int c = 0; c < 3; ++c) ++bins[c * 256 + (*it)[c]];
  Text font(14), small(12);
  cv::Mat m(histogramPanelHeight(font, small), 380, CV_8UC3, theme::kPanel);
  const cv::Rect p =
      drawHistogramPanel(m, cv::Rect(0, 0, 380, m.rows), {bins.data(), 3, "x", true}, font, small);
  EXPECT_GT(pixelsOf(m(p), theme::kHistBlue, 40), 50);
  EXPECT_GT(pixelsOf(m(p), theme::kHistGreen, 40), 50);
  EXPECT_GT(pixelsOf(m(p), theme::kHistRed, 40), 50);
}

// ---- text and numbers ---------------------------------------------------------------------------

TEST(PanelText, NumbersAndTimecodes) {
  EXPECT_EQ(formatMs(0.0613), "0.061");
  EXPECT_EQ(formatMs(1.4921), "1.49");
  EXPECT_EQ(formatMs(33.33), "33.3");
  EXPECT_EQ(formatMs(250.4), "250");
  EXPECT_EQ(formatTimecode(0), "0:00.00");
  EXPECT_EQ(formatTimecode(79.5), "1:19.50");
  EXPECT_EQ(formatTimecode(3723.456), "1:02:03.46");
}

TEST(PanelText, TextIsMeasuredDrawnWhereAskedAndCutToFit) {
  Text t(14);
  const std::string s = "pthread-skylake-avx512 Intel(R) Xeon(R) Processor";
  EXPECT_GT(t.width(s), t.width("pthread"));
  const std::string cut = t.fit(s, 150);
  EXPECT_LE(t.width(cut), 150);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_EQ(t.fit("short", 150), "short");
  cv::Mat m(60, 400, CV_8UC3, cv::Scalar::all(0));
  const int end = t.draw(m, "frame time", 20, 40, theme::kText);
  EXPECT_EQ(end, 20 + t.width("frame time"));
  cv::Mat ink;
  cv::inRange(m, cv::Scalar::all(60), cv::Scalar::all(255), ink);
  const cv::Rect box = cv::boundingRect(ink);
  EXPECT_GE(box.x, 19);
  EXPECT_LE(box.br().x, end + 2);
  EXPECT_LE(box.br().y, 40 + 4) << "only descenders below the baseline";
  EXPECT_GE(box.y, 40 - t.px());
  // Right-aligned: ends at x.
  cv::Mat r(60, 400, CV_8UC3, cv::Scalar::all(0));
  t.draw(r, "0.061", 300, 40, theme::kText, Align::Right);
  cv::inRange(r, cv::Scalar::all(60), cv::Scalar::all(255), ink);
  EXPECT_NEAR(cv::boundingRect(ink).br().x, 300, 2);
}

// ---- the whole picture --------------------------------------------------------------------------

TEST(View, PicturesScaledIntoPlaceAndThePanelBeside) {
  const cv::Mat frame = test::realFrame(2, CV_8UC3, 332, 196);
  ViewContent c;
  c.filtered = frame;
  c.overlay = true;
  ViewRenderer v;
  const cv::Mat out = v.render({1200, 600}, c);
  const ViewLayout& l = v.layout();
  ASSERT_EQ(out.size(), cv::Size(1200, 600));
  ASSERT_GE(l.scale, 2.0);
  // Over 2x: each pixel a sharp square (nearest neighbour).
  cv::Mat want;
  cv::resize(frame, want, l.filtered.size(), 0, 0, cv::INTER_NEAREST);
  EXPECT_EQ(differing(out(l.filtered), want), 0);
  // Around the picture: the letterbox colour, nothing of the frame.
  if (l.filtered.y > 0) {
    EXPECT_EQ(pixelsOf(out(cv::Rect(l.filtered.x, 0, l.filtered.width, l.filtered.y)),
                       theme::kLetterbox, 0),
              l.filtered.width * l.filtered.y);
  }
  EXPECT_GT(pixelsOf(out(l.panel), theme::kPanel, 0), l.panel.area() / 3);
}

// Whatever size the window has for a moment (a window manager may hand out 1x1 while mapping
// it), whatever the frame: a picture of exactly that size, never an exception.
TEST(View, AnyCanvasAndFrameSizeRenders) {
  std::mt19937 rng(11);
  ViewRenderer v;
  std::vector<std::uint32_t> bins(256, 3);
  auto history = std::make_shared<FrameHistory>();
  for (int i = 0; i < 20; ++i) history->add(std::uint64_t(i), i * 0.05, 1.0, 5.0);
  for (int i = 0; i < 120; ++i) {
    const cv::Size canvas = i < 40 ? cv::Size(1 + i % 5, 1 + i / 5 % 4)
                                   : cv::Size(1 + int(rng() % 1600), 1 + int(rng() % 1000));
    const cv::Size frame(1 + int(rng() % 2000), 1 + int(rng() % 1200));
    ViewContent c;
    c.filtered = cv::Mat(frame, CV_8UC3, cv::Scalar(10, 20, 30));
    c.original = cv::Mat(frame, CV_8UC3, cv::Scalar(30, 20, 10));
    c.compare = i < 40 ? i % 2 : rng() % 2;
    c.overlay = i < 40 ? i / 20 : rng() % 2;
    c.help = rng() % 4 == 0;
    c.panel.hasHistogram = true;
    c.panel.histogram = {bins.data(), 1, "2 hist", true};
    c.panel.history = history;
    c.panel.now = 1;
    c.panel.table.stages = {{"blur", "sigma 1.5", "", true, true, true, 1, 2}};
    SCOPED_TRACE(testing::Message() << canvas << " frame " << frame);
    cv::Mat out;
    ASSERT_NO_THROW(out = v.render(canvas, c));
    EXPECT_EQ(out.size(), canvas);
    EXPECT_EQ(out.type(), CV_8UC3);
  }
}
