#pragma once
// `vidfilter bench --table`: the device time of each chain on each frame size and format, next
// to the copy kernel's time on the same frame (the bandwidth ceiling) and, for a width that is not
// a multiple of 64, a frame of about the same area whose width is (the aligned peer), all in one
// run: the size x radius x format table of docs/PERFORMANCE.md.
#include <string>
#include <vector>

#include "pipeline/cl/context.hpp"

namespace vf::bench {

struct TableOptions {
  std::vector<std::string> chains;   // chain texts, e.g. "blur=ksize=3", "sobel=ksize=5"
  std::vector<std::string> sizes;    // WxH
  std::vector<std::string> formats;  // gray, bgr, bgra
  int frames = 50, warmup = 5, distinct = 2;
  bool peers = true;        // time the aligned peer of each unaligned width
  bool packedRows = false;  // rows packed, not the device's padded pitch (Chain::RowPitch)
  std::string json;         // one JSON object per row, one per line ("" for none)
};

// A frame size as the bench takes it: "WxH" (or "WXH"), each side decimal digits above 0 and
// nothing else. False for anything else.
bool parseSize(const std::string& text, int* w, int* h);

// The aligned peer of w x h: width a multiple of 64 nearest w (at least 64), height giving the
// nearest area.
void alignedPeer(int w, int h, int* pw, int* ph);

// Throws UserError for a chain, size or format that is not one (before any device is opened).
void checkTable(const TableOptions& o);

// Prints the table (and writes the JSON lines); returns 0, or 1 when a chain failed on a frame
// (the row says why, the others still run).
int runTable(ClContext& cl, const TableOptions& o);

}  // namespace vf::bench
