// blur_tiled: the Gaussian blur in one kernel through a tile in local memory, the GPU kernel of
// pipeline/stages/blur_schedule.hpp ("tiled"). The same integers as blur.cl (read its header:
// taps quantised as OpenCV's 8-bit path does, bit-exact with cv::GaussianBlur), computed
// columns first:
//
//   v(y, x)   = sum_k t[|k|] * src(by(y + k), x)          at most 255*256: 16 bits, exact
//   dst(y, x) = (sum_k t[|k|] * v(y, bx(x + k*CH)) + 2^15) >> 16
//
// which is the same sum S of t[i]*t[j]*src as OpenCV's rows-then-columns order (all integers,
// no rounding before the final shift), so the result is identical. Under BORDER_CONSTANT an
// outside pixel is `value` in both orders (an outside column sums to value*256 either way).
//
// Why columns first, on a GPU (NVIDIA Hopper, per SM and clock: float FMA 128, integer 64,
// conversions only 16):
//   - The column sums need no neighbour along the row, so a work-item loads whole aligned
//     32-bit words (4 elements) straight from global memory and computes them in 16-bit lanes of
//     32-bit integers: lo = w & 0x00FF00FF holds elements 0 and 2, hi = (w >> 8) & 0x00FF00FF
//     elements 1 and 3, and lo * t adds two products at once (no lane overflows: every partial
//     sum is at most 255*256). 11 taps cost 22 integer multiply-adds per 4 elements and no
//     byte-to-float conversion at all.
//   - The row sums then read their neighbours from a float tile in local memory, converted once
//     per element: as_float(0x4B000000 | v) - 2^23 is v exactly, without a conversion
//     instruction. The one conversion left is the final float -> uchar, once per output.
//
// blur_fused: nothing in global memory but the frame in and out. A work-group owns TW elements
// x TH rows of output. Phase 1: column sums for the TH rows and for TW + 2*HA columns (HA: the
// row halo R*CH rounded up to whole words), CPY rows per work-item sliding down its word column,
// into the float tile; tiles whose words all lie inside the row run a copy of it without the
// row-end path. Barrier. Phase 2: each work-item takes VX consecutive outputs of one row from
// the tile (consecutive work-items, consecutive outputs: coalesced stores) and writes them; the
// tile is padded so their 16-byte local reads do not collide in the banks (PHYS below), so a
// wide VX reads fewer halo elements per output.
//
// Build options (pipeline/stages/blur_schedule.cpp chooses them):
//   RADIUS, CHANNELS, BORDER_*   as in blur.cl        TAPS_U  where the ushort taps start
//   WG       work-items per group (1-D)
//   TW, TH   tile: TW elements (a multiple of VX) x TH rows (a multiple of CPY)
//   CPY      rows per work-item in the column phase     VX  outputs per work-item, row phase
//   ALIGNED  1: rows are a multiple of 4 bytes, so interior words load whole
//   ALIGNED16  1: rows are a multiple of 16 bytes (16-byte output stores)
//   NV_PTX   1: an NVIDIA device, whose compiler takes inline PTX (the final rounding)
// Run time: src, dst, width, height, pitch (bytes from a row to the next), taps (floats, then
// ushorts at TAPS_U), value.

#include "border.cl"
// The column sums fold rows and elements by border.cl.
#include "blur_columns.cl"

#define HALO (RADIUS * CHANNELS)   // row halo, elements
#define HA (((HALO + 3) / 4) * 4)  // ... rounded up to whole words
#define TWH (TW + 2 * HA)          // tile width with both halos, elements
#define TWH4 (TWH / 4)             // ... in float4s
// The row phase reads VX/4 float4s per work-item plus the halo; consecutive work-items start
// G = VX/4 float4s apart. For VX >= 8 that stride would put 8 neighbouring work-items' 16-byte
// reads in the same banks, so a padding float4 follows every G of them: work-item i starts at
// G+1 (odd) float4s times i, which spreads any 8 neighbours over all 8 bank groups.
#define G (VX / 4)
#define PADG (VX == 4 ? 0 : 1)
#define PHYS(L) ((L) + PADG * ((L) / G))      // logical float4 L of a tile row -> physical
#define PITCH (TWH4 + PADG * (TWH4 / G + 1))  // physical float4s per tile row
#define WINX (VX + 2 * HA)                    // a row-phase window, elements

#if TW % VX != 0 || VX % 4 != 0 || TH % CPY != 0 || VX > 32
#error "TW must be a multiple of VX, VX of 4, TH of CPY"
#endif

// Row phase: outputs e .. e+VX-1 of frame row y from tile row `t` (float4s; tile element i is
// row element x0 - HA + i), with s the first output's tile position (a multiple of 4).
inline void row_outputs(__local const float4* t, int s, __global uchar* dst, int y, int e, int n,
                        int pitch, __constant float* taps) {
  float win[WINX];
#pragma unroll
  for (int i = 0; i < WINX / 4; ++i) {
    const float4 v = t[(s / 4) / G * (G + PADG) + i + PADG * (i / G)];  // PHYS(s/4 + i)
    win[4 * i] = v.x;
    win[4 * i + 1] = v.y;
    win[4 * i + 2] = v.z;
    win[4 * i + 3] = v.w;
  }
  uchar out[VX];
#pragma unroll
  for (int j = 0; j < VX; ++j) {
    // a = S + 2^15: every partial sum is an integer below 2^24, so exact.
    float a = fma(taps[0], win[HA + j], 32768.0f);
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k)
      a += taps[k] * (win[HA + j - k * CHANNELS] + win[HA + j + k * CHANNELS]);
    out[j] = shift16(a);
  }
  __global uchar* o = dst + (size_t)y * pitch + e;
#if ALIGNED16 && VX % 16 == 0
  if (e + VX <= n) {
    // Rows a multiple of 16 bytes: one 16-byte store per 16 outputs.
#pragma unroll
    for (int j = 0; j < VX; j += 16)
      *(__global uchar16*)(o + j) =
          (uchar16)(out[j], out[j + 1], out[j + 2], out[j + 3], out[j + 4], out[j + 5], out[j + 6],
                    out[j + 7], out[j + 8], out[j + 9], out[j + 10], out[j + 11], out[j + 12],
                    out[j + 13], out[j + 14], out[j + 15]);
    return;
  }
#endif
  if (e + VX <= n) {
#pragma unroll
    for (int j = 0; j < VX; j += 4) {
      const uchar4 v = (uchar4)(out[j], out[j + 1], out[j + 2], out[j + 3]);
#if ALIGNED
      *(__global uchar4*)(o + j) = v;
#else
      vstore4(v, 0, o + j);
#endif
    }
  } else {
#pragma unroll
    for (int j = 0; j < VX; ++j)
      if (e + j < n) o[j] = out[j];
  }
}

// Phase 1 of blur_fused: the column sums of tile columns 0 .. TWH-1 (row elements x0 - HA ...),
// CPY rows per unit, into the float tile. inRow: every word of the tile lies inside the row.
inline void column_phase(__global const uchar* src, __local float4* tile, int x0, int y0, int n,
                         int pitch, int width, int height, __constant ushort* tu, int value,
                         int lid, bool inRow) {
  for (int u = lid; u < TWH4 * (TH / CPY); u += WG) {
    const int strip = u / TWH4, c = u - strip * TWH4;
    const int e = x0 - HA + 4 * c;
    uint lo[CPY], hi[CPY];
    column_sums(src, e, y0 + strip * CPY, n, pitch, width, height, tu, value, lo, hi, inRow);
#pragma unroll
    for (int m = 0; m < CPY; ++m)
      tile[(strip * CPY + m) * PITCH + PHYS(c)] = lanes_to_float4(lo[m], hi[m]);
  }
}

#define KERNEL_ATTRS __attribute__((reqd_work_group_size(WG, 1, 1)))

__kernel KERNEL_ATTRS void blur_fused(__global const uchar* src, __global uchar* dst, int width,
                                      int height, int pitch, __constant float* taps, int value) {
  __local float4 tile[TH * PITCH];
  __constant ushort* tu = (__constant ushort*)(taps + TAPS_U);
  const int lid = get_local_id(0);
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * TW;  // first output element of the tile
  const int y0 = get_group_id(1) * TH;  // first output row of the tile

  // Phase 1: column sums of tile columns 0 .. TWH-1 (row elements x0 - HA ...), CPY rows each.
  // Tiles whose words all lie inside the row (all but the first and last of a row) run a copy
  // without the row-end path; the choice is uniform over the work-group.
  const bool inRow = x0 >= HA && x0 + TW + HA <= n;
  if (inRow)
    column_phase(src, tile, x0, y0, n, pitch, width, height, tu, value, lid, true);
  else
    column_phase(src, tile, x0, y0, n, pitch, width, height, tu, value, lid, false);
  barrier(CLK_LOCAL_MEM_FENCE);

  // Phase 2: row sums, VX outputs of one row per unit.
  for (int u = lid; u < TH * (TW / VX); u += WG) {
    const int r = u / (TW / VX), seg = u - r * (TW / VX);
    const int y = y0 + r, e = x0 + seg * VX;
    if (y < height && e < n) row_outputs(tile + r * PITCH, seg * VX, dst, y, e, n, pitch, taps);
  }
}
