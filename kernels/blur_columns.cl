// The blur's column sums and its final rounding, shared by the kernels that compute it columns
// first through a float tile (blur_tiled.cl, blur_sobel.cl; blur_tiled.cl's header argues the
// arithmetic). Needs RADIUS, CHANNELS, CPY (rows per call), ALIGNED (rows a multiple of 4
// bytes), NV_PTX and border.cl.

#ifndef VF_BLUR_COLUMNS_CL
#define VF_BLUR_COLUMNS_CL

// Exact uchar/ushort -> float without a conversion instruction.
inline float bits_to_float(uint v) { return as_float(0x4B000000u | v) - 8388608.0f; }

// Row i of a column window (its first row RADIUS above output row 0) as the 4 elements of word
// w: its taps added to the sums of the CPY output rows it reaches, in 16-bit lanes: lo[m] holds
// elements 0 and 2, hi[m] elements 1 and 3 (low half first; no lane overflows: every partial sum
// is at most 255*256).
inline void add_row(uint w, int i, __constant ushort* tu, uint* lo, uint* hi) {
  const uint l = w & 0x00FF00FFu, h = (w >> 8) & 0x00FF00FFu;
#pragma unroll
  for (int m = 0; m < CPY; ++m) {
    const int k = i - m - RADIUS;  // this row's distance from output row m
    if (k >= -RADIUS && k <= RADIUS) {
      lo[m] += tu[k < 0 ? -k : k] * l;
      hi[m] += tu[k < 0 ? -k : k] * h;
    }
  }
}

// The column sums of the 4 elements e..e+3 for the CPY rows y .. y+CPY-1, as 16-bit lanes:
// lo[m] holds elements e and e+2, hi[m] elements e+1 and e+3 (low half first).
// Elements outside the row are folded by the border rule (or are `value`).
// inRow (a constant in each inlined copy): the caller knows the word lies inside the row.
inline void column_sums(__global const uchar* src, int e, int y, int n, int pitch, int width,
                        int height, __constant ushort* tu, int value, uint* lo, uint* hi,
                        bool inRow) {
#pragma unroll
  for (int m = 0; m < CPY; ++m) lo[m] = hi[m] = 0u;
  const uint outside = (uint)value * 0x01010101u;
#if ALIGNED
  if (inRow || (e >= 0 && e + 4 <= n)) {
    // Interior word: one aligned 32-bit load per row, all loads issued before any is used.
    // Tiles away from the top and bottom (almost all) take rows as they are: straight-line
    // code, so the compiler can issue the CPY + 2R loads back to back (through the border
    // rule's loops it issues one load per loop and waits for each).
    const __global uint* col = (const __global uint*)(src + e);
    const int stride = pitch / 4;
    uint w[CPY + 2 * RADIUS];
    if (y - RADIUS >= 0 && y + CPY + RADIUS <= height) {
      const __global uint* p = col + (size_t)(y - RADIUS) * stride;
#pragma unroll
      for (int i = 0; i < CPY + 2 * RADIUS; ++i) w[i] = p[(size_t)i * stride];
    } else {
#pragma unroll
      for (int i = 0; i < CPY + 2 * RADIUS; ++i) {
        const int by = border_index(y - RADIUS + i, height);
        w[i] = by < 0 ? outside : col[(size_t)by * stride];
      }
    }
#pragma unroll
    for (int i = 0; i < CPY + 2 * RADIUS; ++i) add_row(w[i], i, tu, lo, hi);
    return;
  }
#endif
  // Near the row's ends (or rows that are not whole words): each element's column through the
  // border rule, the word assembled from bytes. One row at a time, not unrolled: unrolled, the
  // compiler issues all (CPY + 2R) * 4 byte loads first, and the registers they take would set
  // the whole kernel's occupancy.
  int q[4];  // each element's index in a row, or -1 for `value`
#pragma unroll
  for (int j = 0; j < 4; ++j) q[j] = border_element(e + j, width, CHANNELS);
#pragma unroll 1
  for (int i = 0; i < CPY + 2 * RADIUS; ++i) {
    const int by = border_index(y - RADIUS + i, height);
    uint w = outside;
    if (by >= 0) {
      const __global uchar* row = src + (size_t)by * pitch;
      w = 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) w |= (uint)(q[j] < 0 ? (uchar)value : row[q[j]]) << (8 * j);
    }
    add_row(w, i, tu, lo, hi);
  }
}

inline float4 lanes_to_float4(uint lo, uint hi) {
  return (float4)(bits_to_float(lo & 0xFFFFu), bits_to_float(hi & 0xFFFFu), bits_to_float(lo >> 16),
                  bits_to_float(hi >> 16));
}

// (S + 2^15) >> 16 from a = S + 2^15 (an exact integer below 2^24).
#if NV_PTX
// One FMA rounding toward zero: a * 2^-16 + 2^23 is 2^23 + floor(a / 2^16), whose low mantissa
// bits are the result (below 256), so there is no conversion instruction, which on NVIDIA GPUs
// runs at 1/8 of the FMA rate. OpenCL C has no rounding mode for arithmetic, hence the PTX.
inline uchar shift16(float a) {
  float r;
  asm("fma.rz.f32 %0, %1, 0f37800000, 0f4B000000;" : "=f"(r) : "f"(a));
  return (uchar)as_uint(r);
}
#else
// a * 2^-16 is exact and the conversion truncates.
inline uchar shift16(float a) { return convert_uchar_sat_rtz(a * (1.0f / 65536.0f)); }
#endif

#endif
