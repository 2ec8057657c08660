// The rows the direct sobel kernel (sobel_gpu.cl) loads: a work-item's VX bytes of a source
// row and the halo words around them, by aligned vectors, by aligned words and byte permutes,
// or through the border rule at the row's ends; the source read through prologue.cl. Needs
// border.cl, byte_perm.cl, prologue.cl and CH, HB, HW, NW, VX, UINTV from the includer.

#ifndef VF_SOBEL_GPU_ROWS_CL
#define VF_SOBEL_GPU_ROWS_CL

// The byte at byte column bc (may lie outside the row) of source row sy (-1: a constant row);
// rows are `pitch` bytes apart.
inline uint fetch_byte(__global const uchar* src, int bc, int sy, int width, int pitch,
                       int value PRO_DECL) {
  const int t = bc + HB;  // >= 0 for every column a work-item reads, so / and % floor
  const int sx = border_index(t / CH - R, width);
  if (sx < 0 || sy < 0) return (uint)value;
  return SRC_BYTE((size_t)sy * pitch + sx * CH + t % CH);
}

// The halo words of a loaded row through the border rule: the left ones (w[0 .. HW - 1], bytes
// -4 HW .. -1 relative to x0) or the right ones (bytes VX .. VX + 4 HW - 1), only the HB bytes
// next to the vector fetched.
inline void halo_words(__global const uchar* src, uint* w, int x0, bool left, int sy, int width,
                       int pitch, int value PRO_DECL) {
#pragma unroll
  for (int i = 0; i < HW; ++i) w[left ? i : VX / 4 + HW + i] = 0;
#pragma unroll
  for (int k = 0; k < HB; ++k) {
    const int j = left ? -HB + k : VX + k;  // byte relative to x0
    const int b = j + 4 * HW;               // byte of the loaded row
    w[b / 4] |= fetch_byte(src, x0 + j, sy, width, pitch, value PRO_PASS) << (8 * (b % 4));
  }
}

#define TAIL_N (R + 2)  // the shortest row tail_halo takes: one reflection
#if TAIL_SHIFT && !defined(BORDER_WRAP)
#define TAIL_FOLD 1
// The right halo of a vector that ends with its row (x0 + VX == rowBytes: TAIL_SHIFT's last
// vectors) from the bytes loaded for it, the left halo words whole. Byte VX + k of the row is
// pixel k / CH past its end, channel k % CH; the border rule folds that pixel a fixed number of
// pixels back from the end whatever the row's length, given one reflection (rows of at least
// TAIL_N = R + 2 pixels), so border_index asked with constants gives it, and the byte lies within
// the vector or its left halo words (or is the constant).
inline void tail_halo(uint* w, int value) {
#pragma unroll
  for (int i = 0; i < HW; ++i) w[VX / 4 + HW + i] = 0;
#pragma unroll
  for (int k = 0; k < HB; ++k) {
    const int f = border_index(TAIL_N + k / CH, TAIL_N);  // -1: the constant
    uint b = (uint)value & 0xFFu;
    if (f >= 0) {
      const int s = VX + (f - TAIL_N) * CH + k % CH + 4 * HW;
      b = (w[s / 4] >> (8 * (s % 4))) & 0xFFu;
    }
    const int d = VX + k + 4 * HW;
    w[d / 4] |= b << (8 * (d % 4));
  }
}
#else
#define TAIL_FOLD 0
#define tail_halo(w, value)
#endif

// The bytes x0 - 4 HW ... x0 + VX + 4 HW - 1 of source row sy (rows rowBytes long, `pitch`
// bytes apart) as NW little-endian words (only the HB bytes next to the vector are used from the
// outer words). vec: the VX bytes lie in the row. Vectors that start VX-aligned load as one
// aligned vector; others (not in the frame's last row, whose last word could end past the
// buffer, unless the row's pitch leaves room for it: with TAIL_SHIFT, whose last vectors end
// with their rows) as the aligned words around them, each wanted word cut from two by a byte
// permute. The halo words load the same way where they lie in the row; at the row's two ends only
// their HB bytes are fetched through the border rule (one work-item per row: its warp waits for a
// few byte loads, not for the whole row byte by byte).
inline void load_row(__global const uchar* src, uint* w, int x0, int sy, int width, int height,
                     int rowBytes, int pitch, int value, bool vec PRO_DECL) {
  const int at = (sy < 0 ? 0 : sy) * pitch + x0;  // the vector's first byte
  // right: the right halo words load as words. With TAIL_SHIFT also where only their HB bytes
  // lie in the row and the words within its pitch (the rest of them is padding, never used).
  // fold: the right halo from the vector's own bytes (tail_halo).
  const bool left = x0 >= 4 * HW;
  // (The build-time flags first: a constant right of && or || draws compilers' warnings.)
  const bool right = (TAIL_SHIFT && x0 + VX + HB <= rowBytes && x0 + VX + 4 * HW + 4 <= pitch) ||
                     x0 + VX + 4 * HW <= rowBytes;
  const bool fold = TAIL_FOLD && left && x0 + VX == rowBytes && width >= TAIL_N;
  if (sy < 0) {
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = (uint)value * 0x01010101u;
  } else if (vec && ((!TAIL_SHIFT && pitch % VX == 0) || at % VX == 0)) {
    __global const uchar* p = src + at;
    if (left) {
#pragma unroll
      for (int i = 0; i < HW; ++i) w[i] = SRC_WORD((size_t)(at / 4 + i - HW));
    } else {
      halo_words(src, w, x0, true, sy, width, pitch, value PRO_PASS);
    }
#if PROLOGUE
#pragma unroll
    for (int i = 0; i < VX / 4; ++i) w[HW + i] = SRC_WORD((size_t)(at / 4 + i));
#elif VX == 4
    w[HW] = *(__global const uint*)p;
#else
    const UINTV q = *(__global const UINTV*)p;
    w[HW] = q.s0;
    w[HW + 1] = q.s1;
#if VX == 16
    w[HW + 2] = q.s2;
    w[HW + 3] = q.s3;
#endif
#endif
    if (right) {
#pragma unroll
      for (int i = 0; i < HW; ++i) w[VX / 4 + HW + i] = SRC_WORD((size_t)((at + VX) / 4 + i));
    } else if (fold) {
      tail_halo(w, value);
    } else {
      halo_words(src, w, x0, false, sy, width, pitch, value PRO_PASS);
    }
  } else if (vec && ((TAIL_SHIFT && x0 + VX + 4 * HW + 4 <= pitch) || sy + 1 < height)) {
    const uint o = (uint)at & 3u;
    const int b = (int)((uint)(at - o) >> 2) - HW;  // word of byte -4 HW
    if (left) {
#pragma unroll
      for (int i = 0; i < HW; ++i) w[i] = funnel_word(SRC_WORD(b + i), SRC_WORD(b + i + 1), o);
    } else {
      halo_words(src, w, x0, true, sy, width, pitch, value PRO_PASS);
    }
#pragma unroll
    for (int i = HW; i < HW + VX / 4; ++i)
      w[i] = funnel_word(SRC_WORD(b + i), SRC_WORD(b + i + 1), o);
    if (right) {
#pragma unroll
      for (int i = HW + VX / 4; i < NW; ++i)
        w[i] = funnel_word(SRC_WORD(b + i), SRC_WORD(b + i + 1), o);
    } else if (fold) {
      tail_halo(w, value);
    } else {
      halo_words(src, w, x0, false, sy, width, pitch, value PRO_PASS);
    }
  } else {
    // The row's last, partial vector (and the last row when it does not start VX-aligned):
    // byte by byte through the border rules. Only the bytes the taps read.
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = 0;
#pragma unroll
    for (int j = -HB; j < VX + HB; ++j)
      w[(j + 4 * HW) / 4] |= fetch_byte(src, x0 + j, sy, width, pitch, value PRO_PASS)
                             << (8 * ((j + 4 * HW) % 4));
  }
}

#endif
