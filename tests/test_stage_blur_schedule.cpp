// The blur's schedule (pipeline/stages/blur_schedule.hpp) as a pure function of a device's facts:
// which kernel each device runs by default, with which build options and launch shapes. The
// expected plans are the defaults the H200 figures of docs/PERFORMANCE.md were measured with;
// the stage tests (test_stage_blur.cpp) run every kernel for its results.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "pipeline/border.hpp"
#include "pipeline/error.hpp"
#include "pipeline/stages/blur_schedule.hpp"
#include "pipeline/stages/blur_shape.hpp"
#include "pipeline/stages/blur_taps.hpp"

using namespace vf;

namespace {

// An NVIDIA H200 as its OpenCL driver reports it.
DeviceFacts h200() {
  DeviceFacts f;
  f.vendor = Vendor::Nvidia;
  f.nvidiaCc = 9;
  f.computeUnits = 132;
  f.localMemBytes = 48 * 1024;
  f.maxWorkGroupSize = 1024;
  f.maxAllocBytes = 35ull << 30;
  return f;
}
// A GPU without vendor extensions.
DeviceFacts otherGpu() {
  DeviceFacts f;
  f.computeUnits = 64;
  f.localMemBytes = 64 * 1024;
  f.maxWorkGroupSize = 256;
  return f;
}
// PoCL on a 2-core CPU.
DeviceFacts pocl() {
  DeviceFacts f;
  f.cpu = true;
  f.pocl = true;
  f.hostUnifiedMemory = true;
  f.computeUnits = 2;
  f.localMemBytes = 2 << 20;
  f.maxWorkGroupSize = 4096;
  return f;
}

BlurRequest request(int w, int h, PixelFormat format, int ksize, double sigma) {
  BlurRequest q;
  q.frame = {w, h, format};
  q.taps = fixedPointTaps(ksize > 0 ? ksize : derivedKsize(sigma), sigma);
  q.border = borderDefine(BorderMode::Reflect101);
  return q;
}

std::string ndr(const cl::NDRange& r) {
  std::string s = std::to_string(r[0]);
  for (cl::size_type i = 1; i < r.dimensions(); ++i) s += "x" + std::to_string(r[i]);
  return s;
}

// The plan in a line: the kernel, the build options that shape it, the launches.
std::string describe(const BlurPlan& p) {
  std::map<std::string, std::string> d;
  std::istringstream in(p.options);
  for (std::string o; in >> o;) {
    const auto eq = o.find('=');
    d[o.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
        eq == std::string::npos ? "" : o.substr(eq + 1);
  }
  const auto keys = [&](std::initializer_list<const char*> names) {
    std::string s;
    for (const char* k : names) s += std::string(" ") + k + "=" + d[k];
    return s;
  };
  std::string s = blurKernelName(p.kernel);
  switch (p.kernel) {
    case BlurKernel::Slab:
      s += keys({"WARPS", "NS", "BANDS", "SHARE", "PF", "ALIGNED", "ALIGNED16", "MMA_PTX"});
      break;
    case BlurKernel::Tiled:
      s += keys({"WG", "TW", "TH", "CPY", "VX", "ALIGNED", "ALIGNED16", "NV_PTX"});
      break;
    case BlurKernel::Cpu:
      s += keys({"VEC", "ROW_PX", "COL_PY", "ROW_T", "ROW_INT", "COL_T"});
      break;
    case BlurKernel::Ring:
      s += keys({"VEC", "WGX", "BAND"});
      break;
  }
  for (const BlurLaunch& l : p.launches)
    s += std::string(" ") + l.kernel + "=" + ndr(l.global) + "/" + ndr(l.local);
  return s;
}

std::string plan(const DeviceFacts& f, int w, int h, PixelFormat format, int ksize = 0,
                 double sigma = 1.5) {
  return describe(planBlur(request(w, h, format, ksize, sigma), f));
}

constexpr PixelFormat kGray = PixelFormat::Gray8, kBgr = PixelFormat::BGR8,
                      kBgra = PixelFormat::BGRA8;

}  // namespace

// On the H200 the slab kernel takes radii up to 8, its strip chosen per frame (groups of 2 warps
// where strips are 64 rows tall, else 4), the next band loaded ahead where the row halo is at most
// 16 elements and a strip has several bands; rows
// not a multiple of 4 bytes load byte by byte (ALIGNED=0).
TEST(BlurSchedule, H200RunsTheSlabKernelUpToRadius8) {
  const DeviceFacts f = h200();
  EXPECT_EQ(plan(f, 3840, 2160, kGray),
            "slab WARPS=4 NS=4 BANDS=2 SHARE=0 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x68/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 17, 3),
            "slab WARPS=4 NS=4 BANDS=2 SHARE=0 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x68/32x4");
  EXPECT_EQ(plan(f, 1920, 1080, kGray),
            "slab WARPS=4 NS=2 BANDS=1 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x68/32x4");
  EXPECT_EQ(plan(f, 1920, 1080, kBgr),
            "slab WARPS=4 NS=4 BANDS=1 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=2880x68/32x4");
  EXPECT_EQ(plan(f, 1920, 1080, kBgra, 5, 1.1),
            "slab WARPS=4 NS=4 BANDS=2 SHARE=0 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=3840x36/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kBgr),  // the row halo 15: ahead; strips of 64 rows: 2 warps
            "slab WARPS=2 NS=4 BANDS=4 SHARE=0 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=5760x34/32x2");
  EXPECT_EQ(plan(f, 7680, 4320, kBgra),  // the row halo 20: not ahead
            "slab WARPS=2 NS=4 BANDS=4 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=15360x68/32x2");
  EXPECT_EQ(plan(f, 1921, 1081, kBgr),
            "slab WARPS=4 NS=4 BANDS=1 SHARE=0 PF=0 ALIGNED=0 ALIGNED16=0 MMA_PTX=1 "
            "blur_slab=2912x68/32x4");
  EXPECT_EQ(plan(f, 1, 1, kGray),
            "slab WARPS=4 NS=1 BANDS=1 SHARE=0 PF=0 ALIGNED=0 ALIGNED16=0 MMA_PTX=1 "
            "blur_slab=32x4/32x4");
}

// Past radius 8 the slab kernel's column window grows (more pairs of slabs held, taller and
// narrower strips, the row operands in local memory once there are more than 17; where a warp
// alone would load 5 words of a row per word of output, eight warps side by side share the
// loads, the next band's vectors fetched ahead, on gray one set a strip, on rows not of whole
// vectors not ahead); past radius
// 72, or with a tap of 256 (all the weight in the centre), the tiled kernel where it reaches
// (radius 16, a row halo of 40 elements), else the cpu kernel with the GPU's tiles.
TEST(BlurSchedule, H200RunsTheSlabKernelUpToRadius72ThenTheTiledOrCpuKernel) {
  const DeviceFacts f = h200();
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 0, 3),  // radius 9: 4 pairs
            "slab WARPS=4 NS=4 BANDS=1 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x136/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kBgr, 0, 6),  // radius 18, the row halo 54: 9 words for 2, shared
            "slab WARPS=8 NS=2 BANDS=6 SHARE=1 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1440x184/32x8");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 0, 6),  // the row halo 18: 5 words for 2, not shared
            "slab WARPS=4 NS=4 BANDS=1 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x136/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kBgr, 25, 4),  // radius 12 on BGR: 7 words for 2, not shared
            "slab WARPS=4 NS=4 BANDS=6 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=5760x24/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kBgr, 0, 20),  // radius 60: 10 pairs, 17 operands, shared
            "slab WARPS=8 NS=2 BANDS=9 SHARE=1 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1440x120/32x8");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 0, 20),  // shared, one set a strip on gray
            "slab WARPS=8 NS=1 BANDS=9 SHARE=1 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=960x120/32x8");
  EXPECT_EQ(plan(f, 4001, 2003, kBgr, 0, 20),
            "slab WARPS=8 NS=2 BANDS=9 SHARE=1 PF=0 ALIGNED=0 ALIGNED16=0 MMA_PTX=1 "
            "blur_slab=1504x112/32x8");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 0, 10),  // radius 30 on gray: 7 words for 2, not shared
            "slab WARPS=4 NS=2 BANDS=5 SHARE=0 PF=0 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=3840x28/32x4");
  EXPECT_NE(planBlur(request(3840, 2160, kBgr, 0, 20), f).options.find("FRAG_LOCAL=0"),
            std::string::npos);
  EXPECT_NE(planBlur(request(3840, 2160, kBgr, 145, 24), f).options.find("FRAG_LOCAL=1"),
            std::string::npos);  // radius 72: 19 operands
  EXPECT_NE(planBlur(request(4001, 2003, kGray, 0, 20), f).options.find("FRAG_LOCAL=1"),
            std::string::npos);  // 10 operands on rows not of whole words
  EXPECT_NE(planBlur(request(3840, 2160, kBgr, 0, 6), f).options.find("FRAG_LOCAL=0"),
            std::string::npos);
  EXPECT_EQ(plan(f, 1921, 1081, kBgr, 0, 4),  // radius 12, rows of any length
            "slab WARPS=4 NS=4 BANDS=1 SHARE=0 PF=0 ALIGNED=0 ALIGNED16=0 MMA_PTX=1 "
            "blur_slab=2912x68/32x4");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 3, 0.1),
            "tiled WG=160 TW=128 TH=32 CPY=8 VX=16 ALIGNED=1 ALIGNED16=1 NV_PTX=1 "
            "blur_fused=4800x68/160x1");
  EXPECT_EQ(plan(f, 3840, 2160, kGray, 151, 26),  // radius 75
            "cpu VEC=4 ROW_PX=1 COL_PY=4 ROW_T=uchar ROW_INT=0 COL_T=ushort "
            "blur_rows=960x2160/16x4 blur_cols=960x540/16x4");
}

// A GPU without NVIDIA's tensor cores runs the tiled kernel (no PTX); a CPU the ring kernel up
// to radius 8 (a work-item per 16 elements of a row and 32 rows), past it the cpu kernel with
// 16-wide vectors and 16-bit row sums.
TEST(BlurSchedule, OtherDevicesRunTheTiledTheRingOrTheCpuKernel) {
  EXPECT_EQ(plan(otherGpu(), 1920, 1080, kGray),
            "tiled WG=160 TW=128 TH=32 CPY=8 VX=16 ALIGNED=1 ALIGNED16=1 NV_PTX=0 "
            "blur_fused=2400x34/160x1");
  EXPECT_EQ(plan(pocl(), 1920, 1080, kBgr), "ring VEC=16 WGX=8 BAND=32 blur_ring=360x34/8x1");
  EXPECT_EQ(plan(pocl(), 1921, 1081, kBgr, 17), "ring VEC=16 WGX=8 BAND=32 blur_ring=368x34/8x1");
  EXPECT_EQ(plan(pocl(), 1920, 1080, kBgr, 19),
            "cpu VEC=16 ROW_PX=4 COL_PY=4 ROW_T=uchar ROW_INT=1 COL_T=float "
            "blur_rows=96x1080/16x4 blur_cols=368x272/16x4");
  EXPECT_NE(planBlur(request(64, 64, kGray, 0, 1.5), pocl()).options.find("VF_UNALIGNED_TYPES"),
            std::string::npos);
}

// A named kernel runs where it reaches; where it does not, a UserError says so and what to use.
TEST(BlurSchedule, NamedKernelOutsideItsReachIsAClearError) {
  BlurRequest q = request(640, 480, kBgra, 147, 24);  // radius 73
  q.kernel = "slab";
  // The message planning `q` refuses with ("" when it plans it).
  const auto refusal = [](const BlurRequest& r) {
    try {
      planBlur(r, pocl());
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(q),
            "blur: kernel=slab takes radius <= 72 (ksize 145) and taps below 256, on a "
            "little-endian device; ksize 147 on 4 channel(s) is past that: use kernel=auto");
  q.taps = fixedPointTaps(3, 0.282);  // [256, 0]: all the weight in the centre
  EXPECT_EQ(refusal(q),
            "blur: kernel=slab takes taps below 256; ksize 3 of this sigma puts all the weight "
            "(256) in the centre tap: use kernel=auto");
  q.taps = fixedPointTaps(19, 3);  // radius 9
  q.kernel = "tiled";
  EXPECT_EQ(planBlur(q, pocl()).kernel, BlurKernel::Tiled);  // 9 x 4 = 36 <= 40
  q.taps = fixedPointTaps(23, 4);                            // 11 x 4 = 44
  EXPECT_THROW(planBlur(q, pocl()), UserError);
  q.kernel = "cpu";
  EXPECT_EQ(planBlur(q, h200()).kernel, BlurKernel::Cpu);
}

// The slab kernel's schedule parameters reach its build options and launch.
TEST(BlurSchedule, SlabParametersShapeItsLaunch) {
  BlurRequest q = request(640, 480, kGray, 0, 1.5);
  q.kernel = "slab";
  q.strip = {3, 48};
  q.warps = 2;
  q.prefetch = "on";
  const BlurPlan p = planBlur(q, pocl());
  EXPECT_EQ(describe(p),
            "slab WARPS=2 NS=3 BANDS=3 SHARE=0 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=0 "
            "blur_slab=448x10/32x2");
  EXPECT_EQ(p.text,
            "kernel=slab strip=3x48 warps=2 share=off prefetch=on operands=registers "
            "products=emulated");
  q.operands = "local";  // two operands, in local memory on request
  const BlurPlan local = planBlur(q, pocl());
  EXPECT_NE(local.options.find("-DFRAG_LOCAL=1"), std::string::npos);
  EXPECT_NE(local.text.find(" operands=local "), std::string::npos);
  q.share = "on";  // warps side by side: the launch counts groups of strips across
  const BlurPlan shared = planBlur(q, pocl());
  EXPECT_EQ(describe(shared),
            "slab WARPS=2 NS=3 BANDS=3 SHARE=1 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=0 "
            "blur_slab=224x20/32x2");
  EXPECT_FALSE(shared.groupShrinks);  // warps given
}

// The shared loads' eight warps a group are the schedule's own choice: a device that runs fewer
// work-items for the built kernel (its registers) gets as many warps as it runs.
TEST(BlurSchedule, SharedSlabGroupShrinksToWhatTheKernelRuns) {
  const BlurRequest q = request(3840, 2160, kBgr, 0, 20);
  const BlurPlan full = planBlur(q, h200());
  EXPECT_EQ(full.groupItems, 256u);
  EXPECT_TRUE(full.groupShrinks);
  const BlurPlan fewer = planBlur(q, h200(), 192);
  EXPECT_EQ(describe(fewer),
            "slab WARPS=6 NS=2 BANDS=9 SHARE=1 PF=1 ALIGNED=1 ALIGNED16=1 MMA_PTX=1 "
            "blur_slab=1920x90/32x6");
  EXPECT_EQ(fewer.groupItems, 192u);
}

// The slab kernel's default strip per frame (slabShape): the tallest strips, then the widest,
// that leave every compute unit 24 warps, here for an H200's 132 (3,168 warps); a given nb or
// th is kept; a device reporting no compute units counts as one.
TEST(BlurSchedule, SlabShapePerFrame) {
  const auto shape = [](std::size_t n, int h, unsigned units, int nb = -1, int th = -1) {
    const SlabShape s = slabShape(n, h, units, 24, 2, nb, th);
    return std::to_string(s.nb) + "x" + std::to_string(s.th);
  };
  EXPECT_EQ(shape(3840, 2160, 132), "4x32");          // 60 x 34 = 2,040 warps at th 64; 4,080 at 32
  EXPECT_EQ(shape(30720, 4320, 132), "4x64");         // 7680x4320 BGRA: 480 x 68
  EXPECT_EQ(shape(5760, 1080, 132), "4x16");          // 1080p BGR: 3,060 warps at th 32
  EXPECT_EQ(shape(1920, 1080, 132), "2x16");          // 1080p gray: 2,040 at nb 4, th 16
  EXPECT_EQ(shape(1, 1, 132), "1x16");                // never enough: the smallest strip
  EXPECT_EQ(shape(3840, 2160, 0), "4x64");            // one unit: 24 warps suffice
  EXPECT_EQ(shape(3840, 2160, 132, 8), "8x16");       // nb given: only th chosen
  EXPECT_EQ(shape(1920, 1080, 132, -1, 32), "1x32");  // th given: only nb chosen
  EXPECT_EQ(shape(1920, 1080, 132, 3, 48), "3x48");   // both given
}
