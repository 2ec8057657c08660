// blur_sobel_slab: the blur and the sobel after it as one pass (pipeline/stages/blur_sobel.hpp),
// the blur on the tensor cores. blur_sobel.cl fills each work-group's sobel tile with blurred
// bytes summed in its ALUs; here the tile is filled band by band by the slab kernel's products
// (blur_slab_band.cl; blur_slab.cl's header describes them), and the sobel runs over each band
// as it is made (sobel_tile.cl), storing through the epilogue where there is one.
//
// A work-group's WARPS warps stand side by side, each blurring NS sets of 16 bytes of a band of
// 16 rows into the tile: the group's blurred columns are x0 - 16 .. x0 + TW + 15, the sobel's
// output columns x0 .. x0 + TW - 1 (TW = 16 NS WARPS - 32; the 16 bytes either side hold its
// halo). The group walks down a strip of SH = 16 BANDS - 2R output rows from y0 in BANDS bands
// of blurred rows, the first from y0 - R: after each band the tile holds blurred rows yb - 2R ..
// yb + 15 (the last 2R of the band before, then the band: tile row t is frame row yb - 2R + t)
// and the sobel computes rows yb - R .. yb + 15 - R from it, storing those from y0 on (band 0's
// first 2R rows read rows of the band before it, never made: they belong to the strip above).
// Then the band's last 2R rows move to the tile's top.
//
// Every byte is the two stages' own: the slab kernel's integers are cv::GaussianBlur's
// (blur_slab.cl), and the sobel reads the tile as sobel.cl reads the frame, positions outside
// the frame first rewritten by the sobel's border rule (sobel_border, in groups at the frame's
// edges: the blurred bytes the slab computes there, from the blur's border, are not the ones
// the sobel's rule reads). So the pass gives the bytes of the two stages run one after the other.
//
// Build options: the sobel's KSIZE, CH, VX, PY (bytes and rows a work-item computes in turn),
// MODE_*, SOBEL_BORDER (not wrap); the blur's RADIUS, CHANNELS (= CH), BORDER_*, NS, BANDS,
// WARPS, PF, ALIGNED, ALIGNED16, MMA_PTX, FRAG_OFF, FRAG_LOCAL (blur_slab.cl's).
// Run time: src, dst, width, height, pitch, the sobel's scaled taps and border value, the blur's
// taps buffer (TapsBlock, its operands from FRAG_OFF) and border value, then the prologue's and
// the epilogue's arguments.

#include "border.cl"

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"
#include "warp_ops.cl"
#include "blur_slab_band.cl"

// The sobel's tile (sobel_tile.cl): TW bytes x 16 rows computed VX bytes x PY rows at a time,
// rows LP bytes apart (4 words past a multiple of 32: the lanes' band writes fall in 32 banks).
#define WGX ((16 * NS * WARPS - 32) / VX)
#define WGY (16 / PY)
#define LP (16 * NS * WARPS + 16)
#include "epilogue.cl"
#include "sobel_tile.cl"

#define OS (LP / 4)  // slab_io.cl's staging stride (its band stores go unused here)
#include "slab_io.cl"

#if CHANNELS != CH || PAD < HB + CH - 1 || TW < 16 || TW % VX != 0 || 16 % PY != 0
#error "blur_sobel_slab: CHANNELS = CH, and TW = 16 NS WARPS - 32 >= 16 of whole VX, PY | 16"
#endif
#if SOBEL_BORDER == VF_BORDER_WRAP
#error "blur_sobel_slab: the sobel's border cannot be wrap"
#endif

#define SH (16 * BANDS - 2 * R)  // output rows per strip
#define WG (32 * WARPS)

__kernel __attribute__((reqd_work_group_size(32, WARPS, 1))) void blur_sobel_slab(
    __global const uchar* src, __global uchar* dst, int width, int height, int pitch,
    ScaledTaps taps, int svalue, __global const uint* btaps, int value PRO_DECL EPI_KDECL) {
  EPI_BEGIN
  WARP_OPS_LOCALS;
  __local UCHARV tile_v[LH * LP / VX];  // a vector array, so every VX-byte slot is aligned
  __local uchar* tile = (__local uchar*)tile_v;
  __local uint* tile_w = (__local uint*)tile_v;
  const int lane = get_local_id(0), warp = get_local_id(1), lid = warp * 32 + lane;
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  // The strip columns at the rows' ends first (slab_io.cl): the group's loads reach PAD + HA
  // bytes before x0 and 16 NS WARPS - PAD + HA bytes past it.
  const int2 strip = slab_group_strip(PAD + HA, 16 * NS * WARPS - PAD + HA, TW, n);
  const int x0 = strip.x * TW, y0 = strip.y * SH, ys = y0 - R;
  const int xs = x0 - PAD + warp * OW - HA;  // the warp's first loaded element
  // Every word the warp loads inside its row, and every row read (ys - HR .. ys + 16 BANDS -
  // 16 - HR + 16 NP - 1) inside the frame and above its last row.
  const bool inside = xs >= 0 && xs + 16 * NW <= n && ys >= HR &&
                      ys + 16 * BANDS - 16 - HR + 16 * NP < height;

  SLAB_OPERANDS((const __global uint4*)(btaps + FRAG_OFF));
  // The warp's band in the tile: set u's words of row r at bt[r * OS + 4 u ..].
  __local uint* bt = tile_w + (2 * R * LP + warp * OW) / 4;

  uint4 pr[NS][NP - 1];
  uint wa[NW], wb[NW];
#if PF
  uint nxa[NW], nxb[NW];
  LOAD_SLABS(nxa, nxb, ys - HR);
#endif

  // The bands with output rows in the frame (band p's first is y0 - 2R + 16 p).
  const int nb = min(BANDS, (height - y0 + 2 * R + 15) / 16);
#pragma unroll 1
  for (int p = 1 - NP; p < nb; ++p) {
    const int yb = ys + 16 * p;              // the band's first blurred row
    const int yn = yb - HR + 16 * (NP - 1);  // the first row of its new pair
    BAND_SLABS(wa, wb, nxa, nxb, yn, p + 1 < nb);
    BLUR_BAND(p, bt, OS);
    if (p < 0) continue;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ty = yb - R;  // the sobel's first row of this band
    if (x0 < HB || x0 + TW + HB > n || ty < R || ty + 16 + R > height) {
      sobel_border(tile, x0, ty, width, height, svalue, lid, WG);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int t = lid; t < WGX * WGY; t += WG)
      sobel_tile_outputs(tile, dst, width, height, pitch, taps, t % WGX, t / WGX, x0, ty,
                         y0 EPI_PASS);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 2 * R * OS; i += WG) tile_w[i] = tile_w[16 * OS + i];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  EPI_END
}
