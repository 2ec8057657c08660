// The preview of several inputs without a display: the tile grid's arithmetic (1 to 9 inputs on
// windows of several shapes) and its drawing (each tile its own frame, the overlay lines, a
// failed input's tile). The program on a screen: tests/test_app_tiles.cpp.
#include <gtest/gtest.h>

#include "app/theme.hpp"
#include "app/tile_layout.hpp"
#include "app/tile_view.hpp"
#include "tests/test_tile_util.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

namespace {

// |w/h - fw/fh| within a pixel's rounding.
bool keepsAspect(cv::Rect r, cv::Size f) {
  return std::abs(double(r.width) * f.height - double(r.height) * f.width) <=
         std::max(f.width, f.height);
}

}  // namespace

// ---- the grid -----------------------------------------------------------------------------------

// 1 to 9 inputs of mixed sizes on windows of several shapes: every cell inside the window, no
// two overlapping, every picture inside its cell with its aspect kept and touching two sides,
// no empty row or column.
TEST(TileLayout, GridsForOneToNineInputsFitWithoutOverlap) {
  const std::vector<cv::Size> kinds{{768, 576}, {320, 240}, {1920, 1080}, {400, 300}, {17, 13}};
  const std::vector<cv::Size> canvases{{1280, 800}, {800, 800}, {640, 480}, {1920, 1080},
                                       {300, 900},  {241, 161}, {2000, 300}};
  for (int n = 1; n <= 9; ++n) {
    std::vector<cv::Size> frames;
    for (int i = 0; i < n; ++i) frames.push_back(kinds[i % kinds.size()]);
    for (const cv::Size c : canvases) {
      SCOPED_TRACE(std::to_string(n) + " inputs on " + std::to_string(c.width) + "x" +
                   std::to_string(c.height));
      const TileLayout t = layoutTiles(c, frames);
      ASSERT_EQ(t.cells.size(), std::size_t(n));
      ASSERT_EQ(t.pictures.size(), std::size_t(n));
      EXPECT_GE(t.cols * t.rows, n);
      EXPECT_LT((t.rows - 1) * t.cols, n) << "an empty row";
      EXPECT_LT(t.cols - 1, n) << "an empty column";
      const cv::Rect all(0, 0, c.width, c.height);
      for (int i = 0; i < n; ++i) {
        const cv::Rect cell = t.cells[i], pic = t.pictures[i];
        EXPECT_GT(cell.area(), 0);
        EXPECT_EQ(cell & all, cell) << "cell " << i << " " << cell;
        EXPECT_EQ(pic & cell, pic) << "picture " << i << " " << pic << " out of " << cell;
        EXPECT_TRUE(keepsAspect(pic, frames[i])) << i << ": " << pic << " for " << frames[i];
        EXPECT_TRUE(pic.width >= cell.width - 1 || pic.height >= cell.height - 1)
            << "picture " << pic << " does not fill " << cell;
        for (int j = 0; j < i; ++j)
          EXPECT_EQ((cell & t.cells[j]).area(), 0) << "cells " << i << " and " << j;
      }
    }
  }
}

TEST(TileLayout, TheUsualGridsOnALandscapeWindow) {
  const cv::Size vga(640, 480), win(1280, 800);
  auto grid = [&](int n) {
    const TileLayout t = layoutTiles(win, std::vector<cv::Size>(std::size_t(n), vga));
    return std::make_pair(t.cols, t.rows);
  };
  EXPECT_EQ(grid(1), std::make_pair(1, 1));
  EXPECT_EQ(grid(2), std::make_pair(2, 1)) << "two side by side";
  EXPECT_EQ(grid(3), std::make_pair(2, 2));
  EXPECT_EQ(grid(4), std::make_pair(2, 2));
  EXPECT_EQ(grid(6), std::make_pair(3, 2));
  EXPECT_EQ(grid(9), std::make_pair(3, 3));
  // Two in a tall window: one above the other, larger than side by side.
  const TileLayout tall = layoutTiles({600, 1000}, {vga, vga});
  EXPECT_EQ(tall.cols, 1);
  EXPECT_EQ(tall.rows, 2);
  EXPECT_GT(tall.pictures[0].width, 300);
}

// One input large: it alone, the window's whole width or height; the others not shown.
TEST(TileLayout, OneInputLarge) {
  const std::vector<cv::Size> frames{{640, 480}, {1920, 1080}, {320, 240}};
  const TileLayout t = layoutTiles({1280, 800}, frames, 1);
  EXPECT_EQ(t.cells[1], cv::Rect(0, 0, 1280, 800));
  EXPECT_EQ(t.pictures[1].width, 1280);
  EXPECT_TRUE(keepsAspect(t.pictures[1], frames[1]));
  EXPECT_EQ(t.cells[0].area() + t.cells[2].area(), 0);
  EXPECT_EQ(t.pictures[0].area() + t.pictures[2].area(), 0);
}

// An input not open yet has a cell (its status goes there) but no picture; the grid is chosen
// as if it had the others' shape.
TEST(TileLayout, AnInputOfUnknownSizeHasACellAndNoPicture) {
  const TileLayout t = layoutTiles({1280, 800}, {{640, 480}, {}});
  EXPECT_EQ(t.cols, 2);
  EXPECT_GT(t.cells[1].area(), 0);
  EXPECT_EQ(t.pictures[1].area(), 0);
  EXPECT_EQ(t.cells[0].size(), t.cells[1].size());
}

// The first window: the frames at their size in the usual grid when they fit, shrunk to fit the
// screen when not.
TEST(TileLayout, FirstWindowSize) {
  const cv::Size work(1264, 760);
  const cv::Size two = initialTileCanvas({{320, 240}, {320, 240}}, work);
  EXPECT_GE(two.width, 640);
  EXPECT_LE(two.width, work.width);
  const TileLayout t = layoutTiles(two, {{320, 240}, {320, 240}});
  EXPECT_EQ(t.cols, 2);
  EXPECT_GE(t.pictures[0].width, 319);
  const std::vector<cv::Size> hd(4, cv::Size(1920, 1080));
  const cv::Size four = initialTileCanvas(hd, work);
  EXPECT_LE(four.width, work.width);
  EXPECT_LE(four.height, work.height);
  const TileLayout t4 = layoutTiles(four, hd);
  EXPECT_EQ(std::make_pair(t4.cols, t4.rows), std::make_pair(2, 2));
  EXPECT_GT(t4.pictures[3].width, four.width / 2 - 8);
}

// ---- the drawing --------------------------------------------------------------------------------

// Each tile shows its own frame scaled into its place; the overlay lines come and go with
// `overlay`; a failed input's tile says so in red, and no other tile does.
TEST(TileView, EachTileShowsItsFrameAndLine) {
  TilesContent c;
  for (int i = 0; i < 3; ++i) {
    TileContent t;
    t.picture = picture(i);
    t.frameSize = t.picture.size();
    t.line = "[" + std::to_string(i + 1) + "] input " + std::to_string(i);
    c.tiles.push_back(t);
  }
  TileContent failed;
  failed.line = "[4] bad.mkv  failed";
  failed.status = "failed: the file is not a video";
  failed.failed = true;
  c.tiles.push_back(failed);
  TileRenderer r;
  const cv::Mat with = r.render({1000, 700}, c);
  const TileLayout l = r.layout();
  c.overlay = false;
  const cv::Mat without = r.render({1000, 700}, c);
  ASSERT_EQ(r.layout().pictures, l.pictures);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const cv::Rect pic = l.pictures[i];
    ASSERT_GT(pic.area(), 0);
    EXPECT_LT(differenceFrom(with, pic, picture(i), middle(pic)), 3.0);
    for (int j = 0; j < 3; ++j) {
      if (j == i) continue;
      EXPECT_GT(differenceFrom(with, pic, picture(j), middle(pic)), 15.0) << j;
    }
    const cv::Rect line(pic.x, pic.y, pic.width / 2, 28);
    EXPECT_GT(whitish(with(line)), 30) << "the line's text";
    EXPECT_LT(differenceFrom(without, pic, picture(i), line), 3.0) << "o: no line";
    EXPECT_EQ(pixelsOf(with(l.cells[i]), theme::kFailed, 3), 0);
  }
  EXPECT_GT(pixelsOf(with(l.cells[3]), theme::kFailed, 3), 30) << "the failed tile says so";
  EXPECT_GT(pixelsOf(without(l.cells[3]), theme::kFailed, 3), 30) << "with the lines off too";
}

// A narrow picture (a portrait frame in a wide tile) gets its line across the tile, the
// letterbox beside the picture taking what the picture's width cannot: the figures are whole.
TEST(TileView, ANarrowPicturesLineUsesItsWholeTile) {
  TilesContent c;
  TileContent tile;
  tile.picture = cv::Mat(854, 480, CV_8UC3, cv::Scalar(200, 180, 160));
  tile.frameSize = tile.picture.size();
  tile.line = "[3] portrait.mp4";
  tile.figures = "  480x854  30.0 fps  device 0.42 ms";
  c.tiles = {tile};
  TileRenderer r;
  const cv::Mat shown = r.render({900, 500}, c);
  const cv::Rect pic = r.layout().pictures[0], cell = r.layout().cells[0];
  const Text t(theme::fontPx(shown.size()));
  ASSERT_GT(t.width(tile.line + tile.figures), pic.width) << "the picture would cut the line";
  ASSERT_LE(t.width(tile.line + tile.figures) + 2 * t.px(), cell.width);
  // The line starts in the letterbox left of the picture (over the picture it would be cut).
  const cv::Rect left(cell.x + 6, pic.y + 4, pic.x - cell.x - 8, t.lineHeight() - 4);
  ASSERT_GT(left.width, 4 * t.px());
  EXPECT_GT(whitish(shown(left)), 10) << "no text beside the picture";
}

// A tile's line too long for its tile keeps its figures (size, fps, device time) whole and
// shortens the name; where it fits, it is the whole line.
TEST(TileView, ALongNameIsShortenedBeforeTheFigures) {
  Text t(14);
  TileContent tile;
  tile.line = "[1] a_recording_with_a_rather_long_file_name_2026-12-05.mp4";
  tile.figures = "  1920x1080  25.0 fps  device 0.03 ms";
  const std::string whole = tile.line + tile.figures;
  EXPECT_EQ(tileLine(t, tile, t.width(whole) + 1), whole);
  const int room = t.width(tile.figures) + 8 * t.px();
  const std::string cut = tileLine(t, tile, room);
  EXPECT_LE(t.width(cut), room);
  ASSERT_GT(cut.size(), tile.figures.size());
  EXPECT_EQ(cut.substr(cut.size() - tile.figures.size()), tile.figures);
  EXPECT_EQ(cut.rfind("[1] a_rec", 0), 0u) << cut;
}
