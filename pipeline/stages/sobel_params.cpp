#include "pipeline/stages/sobel_params.hpp"

#include "pipeline/border.hpp"
#include "pipeline/error.hpp"

namespace vf {

std::vector<ParamSpec> sobelParams() {
  return {
      enumParam("mode", "mag", {"mag", "l2", "x", "y"},
                "mag: 0.5*|gx| + 0.5*|gy| (OpenCV tutorial); l2: sqrt(gx^2 + gy^2); "
                "x: |gx|; y: |gy|"),
      intParam("ksize", "3", 1, 7,
               "aperture 1, 3, 5 or 7 (1: [-1 0 1] without smoothing, as cv::Sobel)"),
      floatParam("scale", "1", 0, 100,
                 "multiplies the gradients before they are saturated to int16")
          .withOpenMin()
          .asLive(),
      enumParam("border", "reflect101", borderNames(), "how pixels outside the frame are read"),
      intParam("value", "0", 0, 255, "border=constant: the value").asLive(),
      sizeParam("wg", "0x0", 0, 1024,
                "work-group shape in work-items (each vec bytes x rows rows); 0x0: 8x4; on "
                "GPUs 64x4 for ksize 5 and 7, 32x4 for ksize 3 on colour frames, 32x8 for "
                "kernel=direct storing through an epilogue that counts (8 warps share its "
                "sub-histograms)")
          .asSchedule(),
      intParam("vec", "0", 0, 16,
               "bytes per work-item, 4, 8 or 16 (0: auto, 16; on GPUs 4 for ksize 5 and 7, "
               "8 for ksize 3 storing through an epilogue that counts)")
          .asSchedule(),
      intParam("rows", "0", 0, 16,
               "rows per work-item (0: auto, 16 on CPUs, 4 on GPUs; 8 on GPUs for ksize 5 "
               "and 7)")
          .asSchedule(),
      enumParam("load", "auto", {"auto", "rows", "items", "local"},
                "kernel=tile: tile load order, a work-item per tile row (auto on CPUs) or per "
                "vector (auto on GPUs: coalesced); kernel=direct: items, each work-item loads "
                "its rows (auto for ksize 1 and 3), or local, the work-group loads its rows "
                "into local memory once and its work-items read them there (auto on GPUs for "
                "ksize 5 and 7)")
          .asSchedule(),
      enumParam("kernel", "auto", {"auto", "tile", "direct", "slab"},
                "tile: local-memory tile (auto on CPUs); direct: rows slide through registers "
                "(auto on GPUs); slab: 8-bit matrix products, a strip per warp, modes mag, x "
                "and y at scale 1 on a pass of its own, else kernel=auto's (auto for ksize 5 "
                "and 7 on NVIDIA GPUs of compute capability 8+, mma.sync; emulated elsewhere: "
                "slow, for tests)")
          .asSchedule(),
      sizeParam("strip", "0x0", 0, 1024,
                "kernel=slab: a warp's strip, W sets of 16 bytes (up to 16) x H rows (a "
                "multiple of 16); 0: chosen per frame, 4 sets where strips of 4x64 still give "
                "every compute unit 40 warps, else 2")
          .asSchedule(),
      intParam("warps", "0", 0, 32, "kernel=slab: warps per work-group (0: 2)").asSchedule(),
      enumParam("prefetch", "auto", {"auto", "on", "off"},
                "kernel=slab: each band's rows loaded during the band before (auto: where the "
                "row halo, ksize/2 x channels bytes, is at most 8 and the strip has a next "
                "band)")
          .asSchedule(),
      enumParam("slide", "auto", {"auto", "pixels", "taps"},
                "kernel=direct: what slides down the rows in registers, the source pixels "
                "(auto for ksize 1, 3) or their horizontal taps (always for ksize 5, 7)")
          .asSchedule(),
      enumParam("ahead", "auto", {"auto", "0", "1", "2"},
                "kernel=direct: source rows a work-item loads ahead of the row it computes "
                "(auto: 1 for ksize 1 and 3, ksize 5 on 1 or 4 channels and ksize 7 on 4; else 0)")
          .asSchedule(),
      enumParam("half", "auto", {"auto", "on", "off"},
                "kernel=direct, ksize 3, modes mag/x/y at scale 1, vec 8 or 16: "
                "two samples per instruction in pairs of 16-bit floats (exact); auto: on "
                "NVIDIA GPUs of compute capability 8+ (f16x2 instructions); on: also "
                "elsewhere, emulated in float (slow; for tests); off: never")
          .asSchedule(),
      enumParam("filter", "auto", {"auto", "on", "off"},
                "fused chains: compute the blur just before it in its own pass, the blurred "
                "frame never written (auto: on GPUs, gray frames up to 1920x1080 (2560x1440 "
                "for ksize 5 and 7) with rows of whole 4-byte words, blur radius up to 8; "
                "on: wherever it fits, CPUs too; off: the blur runs as its own pass); never "
                "with border=wrap")
          .asSchedule(),
      enumParam("prologue", "auto", {"auto", "on", "off"},
                "kernel=direct or filter on gray frames, fused chains: read the point-wise "
                "stages just before it (gray, brightness) in its loads, one pass (auto: with "
                "the blur in its pass; else ksize up to 5 and their source within 2560x1440 "
                "BGR's bytes, where that is faster; off: they run as their own pass)")
          .asSchedule(),
      enumParam("epilogue", "auto", {"auto", "on", "off"},
                "kernel=direct or filter on gray frames, fused chains: put what it stores "
                "through the histograms and point-wise stages just after it (hist, "
                "brightness), one pass (auto: on, but where kernel=slab runs ksize 7 past "
                "2560x1440 or ksize 5 past 3840x2160, faster with them as their own pass; "
                "off: they run as their own pass)")
          .asSchedule(),
  };
}

void checkSobelParams(const Params& p) {
  const int k = p.integer("ksize");
  if (k != 1 && k != 3 && k != 5 && k != 7)
    throw ParamError("ksize", "ksize must be 1, 3, 5 or 7, got " + p.text("ksize"));
  const int v = p.integer("vec");
  if (v != 0 && v != 4 && v != 8 && v != 16)
    throw ParamError("vec", "vec must be 0 (auto), 4, 8 or 16, got " + p.text("vec"));
  const Size2 wg = p.size("wg");
  if ((wg.w == 0) != (wg.h == 0))
    throw ParamError("wg", "wg must be 0x0 (auto) or at least 1x1, got " + p.text("wg"));
  if (wg.w * wg.h > 1024)
    throw ParamError("wg", "wg must have at most 1024 work-items, got " + p.text("wg"));
  const Size2 strip = p.size("strip");
  if (strip.w > 16 || strip.h % 16 != 0)
    throw ParamError("strip",
                     "strip must be up to 16 sets x a multiple of 16 rows (0x0: auto), "
                     "got " +
                         p.text("strip"));
}

std::vector<std::string> sobelParamsWithoutEffect(const Params& p, const SobelPlan& plan,
                                                  bool slab) {
  std::vector<std::string> notes;
  const auto given = [&](const char* name) { return p.text(name) != "auto"; };
  const auto note = [&](const char* name, const std::string& why) {
    notes.push_back(std::string(name) + "=" + p.text(name) + ": " + why);
  };
  const std::string load = p.text("load");
  if (p.text("kernel") == "slab" && p.text("mode") == "l2")
    notes.push_back("kernel=slab: takes modes mag, x and y; mode=l2 runs kernel=auto's");
  for (const char* name : {"strip", "warps", "prefetch"})
    if (!slab && p.text(name) != "0" && p.text(name) != "0x0" && p.text(name) != "auto")
      note(name, "applies to kernel=slab");
  if (!plan.direct) {
    const std::string onTile = "applies to kernel=direct; this sobel runs kernel=tile";
    if (load == "local") note("load", onTile + " (its loads: rows or items)");
    for (const char* name : {"slide", "ahead"})
      if (given(name)) note(name, onTile);
    if (p.text("half") == "on") note("half", onTile);
    return notes;
  }
  if (load == "rows")
    note("load", "orders the tile kernel's loads; kernel=direct takes items or local");
  if (p.text("slide") == "pixels" && p.integer("ksize") > 3)
    note("slide", "takes ksize 1 and 3; ksize 5 and 7 slide their horizontal taps");
  if (p.text("half") == "on" && !plan.half)
    note("half",
         "takes ksize 3 in modes mag, x and y with each work-item loading its own rows "
         "(load=items)");
  return notes;
}

}  // namespace vf
