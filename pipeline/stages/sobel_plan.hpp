#pragma once
// How the sobel runs on a device, apart from what it computes (the kernels): which kernel, the
// work per work-item and group, the fused paths it takes, its -D build options. Pure functions
// of the device's facts, the frame and the stage's parameters.
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/cl/build_options.hpp"
#include "pipeline/cl/device_facts.hpp"
#include "pipeline/frame.hpp"
#include "pipeline/params.hpp"

namespace vf {

// Centre-first halves of the smoothing taps (ksize 1: the 1-tap [1]).
std::vector<int> smoothingHalf(int ksize);

// "MODE_MAG" for mode=mag: the sobel kernels' build option of a mode.
std::string sobelModeDefine(const std::string& mode);

// What runs for these parameters on this device: the kernel, the work per work-item, the f16x2
// path (ksize 3, mag/x/y at scale 1: by default on NVIDIA, where the pairs of
// halves are instructions; half=on elsewhere runs the same lanes emulated in float) and the
// build options.
struct SobelPlan {
  bool direct = false;
  Size2 wg;  // work-items per group
  int vec = 16, rows = 16;
  int ahead = 0;  // source rows the direct kernel loads ahead of its arithmetic
  std::string load;
  std::size_t tileBytes = 0;  // the local memory a work-group's tile takes
  bool half = false;          // the f16x2 lanes, where the path applies
  bool prologue = false;      // reads through point-wise functions offered (Stage::takesPrologue)
  bool anySource = false;     // ... on any source (prologue=on), else those prologueSourceFits
  bool epilogue = false;      // stores through the stages after it (Stage::takesEpilogue)
  BuildOptions options;

  // The direct kernel's rows read from a tile in local memory (load=local).
  bool local() const { return direct && load == "local"; }
};

// Sub-histograms per work-group when an epilogue counts (kernels/epilogue.cl), unless the hist
// stage's `copies` asks for another number: neighbouring pixels of a gradient often have the
// same value, and the work-items of one step that count the same value into one copy wait on
// each other.
constexpr int kEpilogueCopies = 4;

// Work-group shapes (wg=0x0): 8x4 work-items; with an epilogue that counts, 32x8, so that 8
// warps share one set of sub-histograms and the frame's histogram takes an eighth of the
// merges. H200, blur,sobel,hist,brightness on gray frames, the sobel storing through hist and
// brightness against epilogue=off (8x4) in the same run, us: 1920x1080 31.2 at 8x4, 28.4 at
// 8x8, 27.0 at 8x16, 26.7 at 32x8, 27.4 at 8x32 against 31.9 off; 3840x2160 57.3, 46.9, 41.8,
// 39.6, 39.6 against 42.1 off (docs/PERFORMANCE.md).
constexpr Size2 kWg{8, 4}, kWgCounting{32, 8};

// The plan for the sobel's parameters `p` on frames `in`, groups of `wg` work-items (0x0: the
// schedule's; kWg where it has none); `counting`: it stores through an epilogue that counts
// histograms.
SobelPlan planSobel(const Params& p, const DeviceFacts& facts, const FrameDesc& in, Size2 wg,
                    bool counting = false);

}  // namespace vf
