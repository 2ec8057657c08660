// sobel_slab: the Sobel at scale 1 on NVIDIA's tensor cores, the integers of kernels/sobel.cl
// (cv::Sobel(CV_16S), then convertScaleAbs or addWeighted), each pass a product of 8-bit integer
// matrices (mma.sync m16n8k32, signed A by unsigned B into exact 32-bit sums) laid out as in
// kernels/blur_slab.cl, whose header describes the fragments, the slabs of 8 rows, the column
// window of pairs of slabs and the band's stores. This kernel keeps that layout with each warp
// loading its own words (blur_slab's SHARE 0), twice the products, and its own result.
//
//   rows     S(y, x) = sum_k s[k] src(y, x + k CH)         the smoothing taps s, S <= 64 * 255
//            D(y, x) = sum_k d[k] src(y, x + k CH) + BD    the derivative taps d; the bias
//            BD = 256 BH (its products' sums start there) keeps D >= 0 (|D - BD| <= 10 * 255)
//   columns  gx(y, x) = sum_k s[k] (D(y + k, x) - BD), gy(y, x) = sum_k d[k] S(y + k, x): each
//            two products, of the high and of the low bytes of the row sums, gx = 256 Hx + Lx
//            where Hx's sums start at -BH * sum(s) (the bias drops out) and gy = 256 Hy + Ly
//            (the d sum to 0). Every sum is exact; the int16 saturation of OpenCV's CV_16S never
//            shows in the modes below (each saturates |g| to 8 bits).
//   result   MODE_X min(|gx|, 255), MODE_Y min(|gy|, 255), MODE_MAG their average rounded half
//            to even: four outputs a word (sat_abs4, avg_even4). MODE_L2 is not built here.
//
// The taps, indexed by the offset k from -R to R: ksize 1 s = [1], d = [-1 0 1]; ksize 3 [1 2 1],
// [-1 0 1]; 5 [1 4 6 4 1], [-1 -2 0 2 1]; 7 [1 6 15 20 15 6 1], [-1 -4 -5 0 5 4 1]. The host lays
// them out as A fragments (pipeline/stages/sobel_slab.cpp): operand 0 the column smoothing, 1 the
// column derivative, 2 + c the row smoothing of chunk c, 2 + KC + c the row derivative.
//
// Build options: KSIZE, CH, BORDER_*, MODE_{X,Y,MAG}, NS (sets per strip), BANDS (TH = 16 BANDS),
// WARPS (strips one above the other per work-group), ALIGNED, ALIGNED16 (rows a multiple of 4, of
// 16 bytes), MMA_PTX (1: mma.sync, the byte permutes and the saturating packs in inline PTX,
// NVIDIA compute capability 8.0+; 0: emulated in OpenCL C, for tests), PF (1: each band's words
// loaded during the band before).
// Run time: src, dst, width, height, pitch, frag (the operands, lane l's operand j at j * 32 + l),
// value (BORDER_CONSTANT).

#include "border.cl"

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"
#include "sobel_modes.cl"
#ifndef NEED_GX
#define NEED_GX 0
#endif
#ifndef NEED_GY
#define NEED_GY 0
#endif
#include "warp_ops.cl"

#if KSIZE != 1 && KSIZE != 3 && KSIZE != 5 && KSIZE != 7
#error "sobel_slab: KSIZE 1, 3, 5 or 7"
#endif
#if defined(MODE_L2)
#error "sobel_slab: modes x, y and mag"
#endif
#if NS < 1
#error "sobel_slab: NS >= 1"
#endif

#define RADIUS (KSIZE == 1 ? 1 : KSIZE / 2)
#define CHANNELS CH
#define HALO (RADIUS * CHANNELS)  // at most 12
#define HR 8                      // column halo: the window is rows yb - 8 .. yb + 23
#define OW (16 * NS)              // a strip's bytes
#define TH (16 * BANDS)           // a strip's rows
#define OS (4 * NS + 4)           // words per row of a warp's output staging
#define BH (KSIZE == 7 ? 10 : KSIZE == 5 ? 3 : 1)                      // D's bias over 256
#define SSUM (KSIZE == 7 ? 64 : KSIZE == 5 ? 16 : KSIZE == 3 ? 4 : 1)  // sum of s
#include "slab_io.cl"  // the row window: HA, WPS, KC, NW, CHUNK_HI

// gx, gy of an output from its high and low products' sums.
inline int grad(uint h, uint l) { return (int)(h << 8) + (int)l; }

// min(|a|, 255) of a.x .. a.w as bytes 0 .. 3 of a word.
inline uint sat_abs4(int4 a) {
  const uint4 m = abs(a);
#if MMA_PTX
  uint hi, w;
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(hi) : "r"(m.w), "r"(m.z), "r"(0u));
  asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(w) : "r"(m.y), "r"(m.x), "r"(hi));
  return w;
#else
  const uint4 c = min(m, (uint4)(255u));
  return c.x | c.y << 8 | c.z << 16 | c.w << 24;
#endif
}

// The bytes' averages (a + b) / 2, rounded half to even, as addWeighted(a, 0.5, b, 0.5) rounds:
// the floor (a & b) + ((a ^ b) >> 1), one more where the sum is odd and the floor odd.
inline uint avg_even4(uint a, uint b) {
  const uint x = a ^ b;
  const uint f = (a & b) + ((x >> 1) & 0x7F7F7F7Fu);
  return f + (x & f & 0x01010101u);
}

// The four output bytes of one row of a lane: elements whose sums are (hx.k, lx.k), (hy.k, ly.k)
// for k = x, y, z, w.
inline uint result4(uint4 hx, uint4 lx, uint4 hy, uint4 ly) {
#if NEED_GX
  const uint ax =
      sat_abs4((int4)(grad(hx.x, lx.x), grad(hx.y, lx.y), grad(hx.z, lx.z), grad(hx.w, lx.w)));
#endif
#if NEED_GY
  const uint ay =
      sat_abs4((int4)(grad(hy.x, ly.x), grad(hy.y, ly.y), grad(hy.z, ly.z), grad(hy.w, ly.w)));
#endif
#if defined(MODE_X)
  return ax;
#elif defined(MODE_Y)
  return ay;
#else
  return avg_even4(ax, ay);
#endif
}

// The row products of set u on the slab whose words are w: ds the smoothing's, dd the
// derivative's (from BD); each only where the mode needs it.
#define ROW_SUMS2(ds, dd, w, u)                                       \
  do {                                                                \
    ds = (uint4)(0u);                                                 \
    dd = (uint4)(256u * BH);                                          \
    UNROLL                                                            \
    for (int c = 0; c < KC; ++c) {                                    \
      const uint2 b_ = (uint2)(w[(u) + 2 * c], w[(u) + CHUNK_HI(c)]); \
      if (NEED_GY) MMA_S(ds, ars[c], b_);                             \
      if (NEED_GX) MMA_S(dd, ard[c], b_);                             \
    }                                                                 \
  } while (0)

// ps, pd: set u's B words for 16 window rows (the slabs whose words are wa and wb), of S and of
// D: the high and low bytes of the row sums at elements e(g) (.x, .y) and e(g + 8) (.z, .w).
#define ROW_PAIRS(ps, pd, u)                                                                \
  do {                                                                                      \
    uint4 sa, da, sb, db;                                                                   \
    ROW_SUMS2(sa, da, wa, u);                                                               \
    ROW_SUMS2(sb, db, wb, u);                                                               \
    ps = (uint4)(split_bytes(sa.x, sa.y, sb.x, sb.y), split_bytes(sa.z, sa.w, sb.z, sb.w)); \
    pd = (uint4)(split_bytes(da.x, da.y, db.x, db.y), split_bytes(da.z, da.w, db.z, db.w)); \
  } while (0)

__kernel __attribute__((reqd_work_group_size(32, WARPS, 1))) void sobel_slab(
    __global const uchar* src, __global uchar* dst, int width, int height, int pitch,
    __global const uint4* frag, int value) {
  WARP_OPS_LOCALS;
  __local uint out_stage[WARPS * 16 * OS];
  // WARPS strips one above the other; warps past the frame's last strip compute that strip and
  // store nothing.
  const int lane = get_local_id(0), warp = get_local_id(1);
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  const int2 strip = slab_group_strip(HA, 16 * NW - HA, OW, n);
  const int syn = (height + TH - 1) / TH, sy0 = strip.y * WARPS + warp;
  const bool live = sy0 < syn;
  const int x0 = strip.x * OW, y0 = min(sy0, syn - 1) * TH, xs = x0 - HA;
  // Every word inside its row (the last ends at xs + 16 NW = x0 + OW + HA) and every row read
  // (y0 - 8 .. y0 + TH + 7) inside the frame and above its last row.
  const bool inside = xs >= 0 && xs + 16 * NW <= n && y0 >= HR && y0 + TH + 8 < height;

  const uint4 acs = frag[lane], acd = frag[32 + lane];
  uint4 ars[KC], ard[KC];
  UNROLL
  for (int c = 0; c < KC; ++c) {
    ars[c] = frag[(2 + c) * 32 + lane];
    ard[c] = frag[(2 + KC + c) * 32 + lane];
  }
  __local uint* os = out_stage + warp * 16 * OS;

  // ps[u], pd[u]: set u's B words of the window's first pair (the band before's new one).
  uint4 ps[NS], pd[NS];
  uint wa[NW], wb[NW];
#if PF
  uint nxa[NW], nxb[NW];
  LOAD_SLABS(nxa, nxb, y0 - HR);
#endif

#pragma unroll 1
  for (int p = -1; p < BANDS; ++p) {
    const int yb = y0 + 16 * p;  // the band's first output row
    const int yn = yb + 8;       // the first row of its new pair
    BAND_SLABS(wa, wb, nxa, nxb, yn, p + 1 < BANDS);
    UNROLL
    for (int u = 0; u < NS; ++u) {
      uint4 ns, nd;
      ROW_PAIRS(ns, nd, u);
      if (p >= 0) {
        const uint hx = (uint)(-BH * SSUM);
        uint4 hx0 = (uint4)(hx), lx0 = (uint4)(0u), hx1 = (uint4)(hx), lx1 = (uint4)(0u);
        uint4 hy0 = (uint4)(0u), ly0 = (uint4)(0u), hy1 = (uint4)(0u), ly1 = (uint4)(0u);
        if (NEED_GX) MMA4_OP(MMA_S, hx0, lx0, hx1, lx1, acs, pd[u], nd);
        if (NEED_GY) MMA4_OP(MMA_S, hy0, ly0, hy1, ly1, acd, ps[u], ns);
        // Rows g (.x, .y) and g + 8 (.z, .w): elements 4q, 4q+1 from the first pair of
        // products, 4q+2, 4q+3 from the second.
        os[g * OS + 4 * u + q] = result4((uint4)(hx0.xy, hx1.xy), (uint4)(lx0.xy, lx1.xy),
                                         (uint4)(hy0.xy, hy1.xy), (uint4)(ly0.xy, ly1.xy));
        os[(8 + g) * OS + 4 * u + q] = result4((uint4)(hx0.zw, hx1.zw), (uint4)(lx0.zw, lx1.zw),
                                               (uint4)(hy0.zw, hy1.zw), (uint4)(ly0.zw, ly1.zw));
      }
      ps[u] = ns;
      pd[u] = nd;
    }
    if (p < 0) continue;
    WARP_SYNC();
    store_band(dst, os, yb, x0, n, pitch, height, lane, live);
    WARP_SYNC();
  }
}
