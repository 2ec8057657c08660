// blur_gpu: the GPU schedule of the Gaussian blur. The same integers as blur.cl (read its header:
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
//     32-bit words (4 elements; LW = 8 or 16: a uint2 or uint4 of 2 or 4 words per load, fewer
//     memory instructions for the same bytes) straight from global memory and computes them in
//     16-bit lanes of 32-bit integers: lo = w & 0x00FF00FF holds elements 0 and 2,
//     hi = (w >> 8) & 0x00FF00FF elements 1 and 3, and lo * t adds two products at once (no lane
//     overflows: every partial sum is at most 255*256). 11 taps cost 22 integer multiply-adds
//     per 4 elements and no byte-to-float conversion at all.
//   - The row sums then read their neighbours from a float tile in local memory, converted once
//     per element: as_float(0x4B000000 | v) - 2^23 is v exactly, without a conversion
//     instruction. The one conversion left is the final float -> uchar, once per output.
//
//   blur_fused   one kernel, nothing in global memory but the frame in and out. A work-group
//                owns TW elements x TH rows of output. Phase 1: column sums for the TH rows and
//                for TW + 2*HL columns (HL: the row halo R*CH rounded up to whole units of LW
//                elements), a unit of LW elements x PY rows per work-item, into the float tile.
//                Barrier. Phase 2: each work-item takes VX consecutive outputs of one row from
//                the tile (consecutive work-items, consecutive outputs: coalesced stores) and
//                writes them; the tile is padded so their 16-byte local reads do not collide in
//                the banks (PHYS below), so a wide VX reads fewer halo elements per output. The
//                row phase's window takes only HA = R*CH rounded up to whole words each side (the
//                tile's extra HL - HA elements are never read).
//   blur_cols, blur_rows   the same two phases as two kernels through a 16-bit scratch in
//                global memory (`passes=2`): blur_cols a unit of LW elements x PY rows per
//                work-item; blur_rows stages its scratch rows (halo HA) in local memory.
//
// Build options (pipeline/stages/blur.cpp chooses them):
//   RADIUS, CHANNELS, BORDER_*   as in blur.cl        TAPS_U  where the ushort taps start
//   WG       work-items per group (1-D)
//   TW, TH   tile: TW elements (a multiple of VX) x TH rows (a multiple of PY)
//   PY       rows per work-item in the column phase     VX  outputs per work-item, row phase
//   LW       elements per column-phase unit and load: 4 (uint), 8 (uint2) or 16 (uint4); TW a
//            multiple of LW
//   ALIGNED  1: rows are a multiple of 4 bytes, so interior words load whole
//   ALIGNED_LW  1: rows are a multiple of LW bytes, so interior units load whole (uint2/uint4);
//            other units (at the rows' ends, or all of them when 0) take word by word the
//            4-element path: words when ALIGNED, else bytes
//   ALIGNED16  1: rows are a multiple of 16 bytes (16-byte output stores)
// Run time: src, dst, mid (passes=2), width, height, taps (floats, then ushorts at TAPS_U), value.

#include "border.cl"

#ifndef LW
#define LW 4
#endif
#ifndef ALIGNED_LW
#define ALIGNED_LW (ALIGNED && LW == 4)
#endif

#define HALO (RADIUS * CHANNELS)          // row halo, elements
#define HA (((HALO + 3) / 4) * 4)         // ... rounded up to whole words: the row phase's window
#define HL (((HALO + LW - 1) / LW) * LW)  // ... to whole units: blur_fused's tile
#define KL (LW / 4)                       // words per unit
// The row phase reads VX/4 float4s per work-item plus the halo; consecutive work-items start
// G = VX/4 float4s apart. For VX >= 8 that stride would put 8 neighbouring work-items' 16-byte
// reads in the same banks, so a padding float4 follows every G of them: work-item i starts at
// G+1 (odd) float4s times i, which spreads any 8 neighbours over all 8 bank groups. (The column
// phase's stores, KL float4s per unit and row, are conflict-free too when KL == G.)
#define G (VX / 4)
#define PADG (VX == 4 ? 0 : 1)
#define PHYS(L) ((L) + PADG * ((L) / G))             // logical float4 L of a tile row -> physical
#define PITCH_OF(W4) ((W4) + PADG * ((W4) / G + 1))  // physical float4s per tile row of W4
#define UNITS_F ((TW + 2 * HL) / LW)                 // blur_fused: units per tile row
#define PITCH_F PITCH_OF((TW + 2 * HL) / 4)          // ... its tile's pitch
#define TWH4_R ((TW + 2 * HA) / 4)                   // blur_rows: tile row in float4s
#define PITCH_R PITCH_OF(TWH4_R)                     // ... its tile's pitch
#define WINX (VX + 2 * HA)                           // a row-phase window, elements

#if TW % VX != 0 || VX % 4 != 0 || TH % PY != 0 || VX > 32
#error "TW must be a multiple of VX, VX of 4, TH of PY"
#endif
#if (LW != 4 && LW != 8 && LW != 16) || TW % LW != 0
#error "LW must be 4, 8 or 16 and divide TW"
#endif

// Exact uchar/ushort -> float without a conversion instruction.
inline float bits_to_float(uint v) { return as_float(0x4B000000u | v) - 8388608.0f; }

// kw (1, 2 or 4) aligned 32-bit words from p in one load (uint, uint2, uint4).
inline void load_words(__global const uchar* p, uint* w, int kw) {
  if (kw == 4) {
    const uint4 v = *(const __global uint4*)p;
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
  } else if (kw == 2) {
    const uint2 v = *(const __global uint2*)p;
    w[0] = v.x;
    w[1] = v.y;
  } else {
    w[0] = *(const __global uint*)p;
  }
}

// Accumulators: lo[q * PY + m] and hi[q * PY + m] hold word q's column sums for row y + m as
// 16-bit lanes: lo elements 4q and 4q+2 of the unit, hi 4q+1 and 4q+3 (low half first).
//
// The column sums of the 4*kw elements e .. e+4*kw-1, all inside the row, the row a multiple of
// 4*kw bytes and e of 4*kw: one aligned load of kw words per row, all loads issued before any is
// used. Tiles away from the top and bottom (almost all) take rows as they are: straight-line
// code, so the compiler can issue the PY + 2R loads back to back (through the border rule's
// loops it issued one load per loop and waited for each).
inline void column_sums_words(__global const uchar* src, int e, int y, int n, int height,
                              __constant ushort* tu, int value, uint* lo, uint* hi, int kw) {
  // (Loops run to the constant KL with a test of kw, which folds once inlined: a loop bound of
  // kw itself fails PoCL's unrolling of the function's own copy.)
#pragma unroll
  for (int j = 0; j < PY * KL; ++j)
    if (j < PY * kw) lo[j] = hi[j] = 0u;
  const uint outside = (uint)value * 0x01010101u;
  const __global uchar* col = src + e;
  uint w[(PY + 2 * RADIUS) * KL];
  if (y - RADIUS >= 0 && y + PY + RADIUS <= height) {
    const __global uchar* p = col + (size_t)(y - RADIUS) * n;
#pragma unroll
    for (int i = 0; i < PY + 2 * RADIUS; ++i) load_words(p + (size_t)i * n, w + i * kw, kw);
  } else {
#pragma unroll
    for (int i = 0; i < PY + 2 * RADIUS; ++i) {
      const int by = border_index(y - RADIUS + i, height);
      if (by < 0) {
#pragma unroll
        for (int q = 0; q < KL; ++q)
          if (q < kw) w[i * kw + q] = outside;
      } else {
        load_words(col + (size_t)by * n, w + i * kw, kw);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < PY + 2 * RADIUS; ++i) {
#pragma unroll
    for (int q = 0; q < KL; ++q) {
      const uint l = w[i * kw + q] & 0x00FF00FFu, h = (w[i * kw + q] >> 8) & 0x00FF00FFu;
#pragma unroll
      for (int m = 0; m < PY; ++m) {
        const int k = i - m - RADIUS;  // this row's distance from output row m
        if (q < kw && k >= -RADIUS && k <= RADIUS) {
          lo[q * PY + m] += tu[k < 0 ? -k : k] * l;
          hi[q * PY + m] += tu[k < 0 ? -k : k] * h;
        }
      }
    }
  }
}

// The column sums of the 4 elements e..e+3 (one word: lo[m], hi[m]), for a unit that does not
// load whole: near the row's ends, or rows that are not whole units. Elements outside the row
// are folded by the border rule (or are `value`).
inline void column_sums4(__global const uchar* src, int e, int y, int n, int width, int height,
                         __constant ushort* tu, int value, uint* lo, uint* hi) {
#pragma unroll
  for (int m = 0; m < PY; ++m) lo[m] = hi[m] = 0u;
#if ALIGNED && LW > 4
  if (e >= 0 && e + 4 <= n) {  // rows of whole words, not whole units
    column_sums_words(src, e, y, n, height, tu, value, lo, hi, 1);
    return;
  }
#endif
  // Near the row's ends (or rows that are not whole words): each element's column through the
  // border rule, the word assembled from bytes.
  int q[4];  // each element's index in a row, or -1 for `value`
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int x = e + j;
    const int px = (x >= 0) ? x / CHANNELS : -((-x + CHANNELS - 1) / CHANNELS);  // floor
    const int bx = border_index(px, width);
    q[j] = bx < 0 ? -1 : bx * CHANNELS + (x - px * CHANNELS);
  }
  const uint outside = (uint)value * 0x01010101u;
#pragma unroll
  for (int i = 0; i < PY + 2 * RADIUS; ++i) {
    const int by = border_index(y - RADIUS + i, height);
    uint w = outside;
    if (by >= 0) {
      const __global uchar* row = src + (size_t)by * n;
      w = 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) w |= (uint)(q[j] < 0 ? (uchar)value : row[q[j]]) << (8 * j);
    }
    const uint l = w & 0x00FF00FFu, h = (w >> 8) & 0x00FF00FFu;
#pragma unroll
    for (int m = 0; m < PY; ++m) {
      const int k = i - m - RADIUS;
      if (k >= -RADIUS && k <= RADIUS) {
        lo[m] += tu[k < 0 ? -k : k] * l;
        hi[m] += tu[k < 0 ? -k : k] * h;
      }
    }
  }
}

inline float4 lanes_to_float4(uint lo, uint hi) {
  return (float4)(bits_to_float(lo & 0xFFFFu), bits_to_float(hi & 0xFFFFu), bits_to_float(lo >> 16),
                  bits_to_float(hi >> 16));
}

// Row phase: outputs e .. e+VX-1 of frame row y from tile row `t` (float4s), with s the first
// output's position in the tile less the tile's halo (s = seg * VX, a multiple of VX) and
// `lead` the float4s of that halo beyond the window's HA (the window starts at logical float4
// s/4 + lead).
inline void row_outputs(__local const float4* t, int s, int lead, __global uchar* dst, int y, int e,
                        int n, __constant float* taps) {
  float win[WINX];
#pragma unroll
  for (int i = 0; i < WINX / 4; ++i) {
    // PHYS(s/4 + lead + i), s/4 a multiple of G
    const float4 v = t[(s / 4) / G * (G + PADG) + (lead + i) + PADG * ((lead + i) / G)];
    win[4 * i] = v.x;
    win[4 * i + 1] = v.y;
    win[4 * i + 2] = v.z;
    win[4 * i + 3] = v.w;
  }
  uchar out[VX];
#pragma unroll
  for (int j = 0; j < VX; ++j) {
    float a = taps[0] * win[HA + j];
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k)
      a += taps[k] * (win[HA + j - k * CHANNELS] + win[HA + j + k * CHANNELS]);
    // (S + 2^15) >> 16: S * 2^-16 + 0.5 is exact (S < 2^24) and the conversion truncates.
    out[j] = convert_uchar_sat_rtz(a * (1.0f / 65536.0f) + 0.5f);
  }
  __global uchar* o = dst + (size_t)y * n + e;
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

#define KERNEL_ATTRS __attribute__((reqd_work_group_size(WG, 1, 1)))

__kernel KERNEL_ATTRS void blur_fused(__global const uchar* src, __global uchar* dst, int width,
                                      int height, __constant float* taps, int value) {
  __local float4 tile[TH * PITCH_F];
  __constant ushort* tu = (__constant ushort*)(taps + TAPS_U);
  const int lid = get_local_id(0);
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * TW;  // first output element of the tile
  const int y0 = get_group_id(1) * TH;  // first output row of the tile

  // Phase 1: column sums of tile columns 0 .. TW+2*HL-1 (row elements x0 - HL ...), a unit of
  // LW elements x PY rows each.
  for (int u = lid; u < UNITS_F * (TH / PY); u += WG) {
    const int strip = u / UNITS_F, c = u - strip * UNITS_F;
    const int e = x0 - HL + LW * c, y = y0 + strip * PY;
    __local float4* t = tile + strip * PY * PITCH_F;
#if ALIGNED_LW
    if (e >= 0 && e + LW <= n) {
      uint lo[PY * KL], hi[PY * KL];
      column_sums_words(src, e, y, n, height, tu, value, lo, hi, KL);
#pragma unroll
      for (int m = 0; m < PY; ++m)
#pragma unroll
        for (int q = 0; q < KL; ++q)
          t[m * PITCH_F + PHYS(c * KL + q)] = lanes_to_float4(lo[q * PY + m], hi[q * PY + m]);
      continue;
    }
#endif
    // A word at a time (a loop, so this rare path needs no more registers than one word).
#pragma unroll 1
    for (int q = 0; q < KL; ++q) {
      uint lo[PY], hi[PY];
      column_sums4(src, e + 4 * q, y, n, width, height, tu, value, lo, hi);
#pragma unroll
      for (int m = 0; m < PY; ++m)
        t[m * PITCH_F + PHYS(c * KL + q)] = lanes_to_float4(lo[m], hi[m]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Phase 2: row sums, VX outputs of one row per unit.
  for (int u = lid; u < TH * (TW / VX); u += WG) {
    const int r = u / (TW / VX), seg = u - r * (TW / VX);
    const int y = y0 + r, e = x0 + seg * VX;
    if (y < height && e < n)
      row_outputs(tile + r * PITCH_F, seg * VX, (HL - HA) / 4, dst, y, e, n, taps);
  }
}

// Two-pass form. blur_cols: the column sums of a unit of LW elements x PY rows per work-item into
// the 16-bit scratch (ushort, element order).
__kernel KERNEL_ATTRS void blur_cols(__global const uchar* src, __global ushort* mid, int width,
                                     int height, __constant float* taps, int value) {
  __constant ushort* tu = (__constant ushort*)(taps + TAPS_U);
  const int n = width * CHANNELS;
  const int e = get_global_id(0) * LW;
  const int y = get_global_id(1) * PY;
  if (e >= n) return;  // no barrier in this kernel
#if ALIGNED_LW
  if (e + LW <= n) {
    uint lo[PY * KL], hi[PY * KL];
    column_sums_words(src, e, y, n, height, tu, value, lo, hi, KL);
#pragma unroll
    for (int m = 0; m < PY; ++m) {
      if (y + m >= height) break;
      __global ushort* o = mid + (size_t)(y + m) * n + e;
#if LW == 4
      const uint a = lo[m], b = hi[m];
      *(__global ushort4*)o = (ushort4)(a & 0xFFFFu, b & 0xFFFFu, a >> 16, b >> 16);
#else
      // 16-byte stores, 8 elements each (e and the rows are multiples of 8 elements).
#pragma unroll
      for (int q = 0; q < KL; q += 2) {
        const uint a = lo[q * PY + m], b = hi[q * PY + m];
        const uint c = lo[(q + 1) * PY + m], d = hi[(q + 1) * PY + m];
        *(__global ushort8*)(o + 4 * q) = (ushort8)(a & 0xFFFFu, b & 0xFFFFu, a >> 16, b >> 16,
                                                    c & 0xFFFFu, d & 0xFFFFu, c >> 16, d >> 16);
      }
#endif
    }
    return;
  }
#endif
  // A word at a time (the row's end, or rows that are not whole units).
#pragma unroll 1
  for (int q = 0; q < KL; ++q) {
    const int f = e + 4 * q;  // this word's first element
    if (f >= n) break;
    uint lo[PY], hi[PY];
    column_sums4(src, f, y, n, width, height, tu, value, lo, hi);
#pragma unroll
    for (int m = 0; m < PY; ++m) {
      if (y + m >= height) break;
      __global ushort* o = mid + (size_t)(y + m) * n + f;
      const ushort4 v = (ushort4)(lo[m] & 0xFFFFu, hi[m] & 0xFFFFu, lo[m] >> 16, hi[m] >> 16);
      if (f + 4 <= n) {
#if ALIGNED
        *(__global ushort4*)o = v;
#else
        vstore4(v, 0, o);
#endif
      } else {
        const ushort part[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (f + j < n) o[j] = part[j];
      }
    }
  }
}

// blur_rows: a work-group stages TH scratch rows of TW + 2*HA elements (converted to float,
// folded at the row's ends) in local memory, then each work-item writes VX outputs of a row.
__kernel KERNEL_ATTRS void blur_rows(__global const ushort* mid, __global uchar* dst, int width,
                                     int height, __constant float* taps, int value) {
  __local float4 tile[TH * PITCH_R];
  const int lid = get_local_id(0);
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * TW;
  const int y0 = get_group_id(1) * TH;
  const float outside = (float)(value * 256);

  // All of a work-item's scratch loads first (straight-line, so they are in flight together),
  // then their conversions; words at the row's ends go through the border rule in the second
  // loop.
#define LOAD_ITERS ((TWH4_R * TH + WG - 1) / WG)
  ushort4 raw[LOAD_ITERS];
#pragma unroll
  for (int it = 0; it < LOAD_ITERS; ++it) {
    const int u = lid + it * WG;
    const int r = u / TWH4_R, c = u - r * TWH4_R;
    const int y = min(y0 + r, height - 1);  // rows past the frame: any valid row (not stored)
    const int e = x0 - HA + 4 * c;
    raw[it] = (ushort4)(0);
#if ALIGNED
    if (u < TWH4_R * TH && e >= 0 && e + 4 <= n)
      raw[it] = *(const __global ushort4*)(mid + (size_t)y * n + e);
#endif
  }
#pragma unroll
  for (int it = 0; it < LOAD_ITERS; ++it) {
    const int u = lid + it * WG;
    if (u >= TWH4_R * TH) break;
    const int r = u / TWH4_R, c = u - r * TWH4_R;
    const int y = min(y0 + r, height - 1);
    const int e = x0 - HA + 4 * c;
    float4 v;
#if ALIGNED
    if (e >= 0 && e + 4 <= n) {
      const uint4 w = convert_uint4(raw[it]);
      v = (float4)(bits_to_float(w.x), bits_to_float(w.y), bits_to_float(w.z), bits_to_float(w.w));
    } else
#endif
    {
      const __global ushort* row = mid + (size_t)y * n;
      float f[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int x = e + j;
        const int px = (x >= 0) ? x / CHANNELS : -((-x + CHANNELS - 1) / CHANNELS);
        const int bx = border_index(px, width);
        f[j] = bx < 0 ? outside : bits_to_float(row[bx * CHANNELS + (x - px * CHANNELS)]);
      }
      v = (float4)(f[0], f[1], f[2], f[3]);
    }
    tile[r * PITCH_R + PHYS(c)] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int u = lid; u < TH * (TW / VX); u += WG) {
    const int r = u / (TW / VX), seg = u - r * (TW / VX);
    const int y = y0 + r, e = x0 + seg * VX;
    if (y < height && e < n) row_outputs(tile + r * PITCH_R, seg * VX, 0, dst, y, e, n, taps);
  }
}
