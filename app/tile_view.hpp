#pragma once
// One picture of the preview of several inputs at the window's size: each input's filtered
// frame in its tile (app/tile_layout.hpp), its overlay line over the tile's top, what became of
// an input that has no picture (opening, failed) in the middle of its tile, and a note at the
// bottom of the window (paused), the key list on request. Pure drawing on cv::Mat: the tests render
// it without a display.
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/panel.hpp"
#include "app/tile_layout.hpp"

namespace vf::app {

struct TileContent {
  cv::Mat picture;      // 8-bit BGR, the last frame shown (empty: none yet)
  cv::Size frameSize;   // the input's output size (0x0: not known yet)
  std::string line;     // the overlay line's name part ("[1] cam0")
  std::string figures;  // and what follows it ("  640x480  30.0 fps  device 1.20 ms"), kept
                        // whole where the line is too long: the name is shortened first
  std::string status;   // in the middle of the tile when it has no picture ("opening ...")
  bool failed = false;  // the input failed: `status` says why, in red, over its picture if any
};

// A tile's overlay line for `room` pixels: too long, the name is shortened and the figures kept
// whole, while a little of the name still shows (else the whole line is cut when drawn).
std::string tileLine(const Text& t, const TileContent& tile, int room);

struct TilesContent {
  std::vector<TileContent> tiles;
  bool overlay = true;  // the overlay lines
  int large = -1;       // >= 0: that input alone, filling the window
  std::string note;     // at the bottom of the window ("paused"); "" none
  bool help = false;    // the key list over the tiles
};

// The keys of the preview of several inputs, as its help shows them: {keys, what they do}.
const std::vector<std::pair<std::string, std::string>>& tileHelpKeys();

class TileRenderer {
 public:
  TileRenderer();
  ~TileRenderer();
  cv::Mat render(cv::Size canvas, const TilesContent& c);
  const TileLayout& layout() const { return layout_; }  // where the last render put things

 private:
  const PanelFonts& fonts(int px);
  std::unique_ptr<PanelFonts> fonts_;
  TileLayout layout_;
};

}  // namespace vf::app
