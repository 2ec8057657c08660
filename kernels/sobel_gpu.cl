// sobel, "direct" schedule: ksize 1 and 3, no local memory, no barrier. The same results as
// kernels/sobel.cl (see there for OpenCV's arithmetic and the modes), computed with fewer and
// cheaper instructions for GPUs:
//
// - A work-item owns VX consecutive bytes (channel samples) of PY consecutive rows and walks
//   down them: each of the PY + 2 source rows is loaded once (an aligned VX-byte vector plus
//   the 4-byte words left and right of it, all global loads that hit L1 for the neighbours'
//   rows) and converted once. What slides down through registers is a schedule choice:
//   slide=taps (the horizontal taps of the two rows above: 4 x VX floats) or slide=pixels (the
//   converted pixels of the two rows above: 2 x (VX + 2 CH) floats, fewer registers; at scale
//   1 the taps apply vertically first, which saves instructions; other scales recompute three
//   rows of horizontal taps per output row). Estimated per output byte at VX=16, PY=8, mode
//   mag, scale 1 (counted in the PTX of clang's NVPTX backend, abs folded into min, the byte
//   -> float step as LOP3/shift): pixels ~15 instructions (10.4 FP32), taps ~17.5 (13 FP32),
//   none of them conversions; kernels/sobel.cl ~27 plus 5.5 conversions, which issue at 1/8
//   of the FP32 rate on Hopper (~66 FP32-slot equivalents).
// - No integer -> float conversion instruction: byte b becomes the float 2^23 + 256*b by
//   placing it in mantissa bits 8-15 under the exponent of 2^23 (one byte permute or
//   shift-and-mask). Values carry a factor 256 (a power of two, so every rounding OpenCV does
//   happens identically), and with the bias 2^23:
//     d = f[x+1] - f[x-1]                 the bias cancels, exact
//     s = f[x-1] + 2 f[x] + f[x+1]        at scale 1: 4*2^23 + 256*s < 2^26, multiples of 256,
//                                         exact; gy = s[y+1] - s[y-1] cancels the bias again
//   At other scales the smoothing taps multiply unbiased values (f - 2^23, exact) in OpenCV's
//   order. No float -> integer conversion either: a non-negative result n is rounded (ties to
//   even, as OpenCV) by an FMA that adds 2^23, after which the low byte of the float's bits is n.
// - `exact` (scale == 1) is a kernel argument, so the scale stays live: both variants are in
//   the program, chosen by a branch that is uniform over the whole launch.
//
// Build options: -DKSIZE=1|3 -DCH=1|3|4 -DVX=4|8|16 -DPY -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP} [-DSLIDE_PIXELS]
// Run time:      the smoothing taps times scale (centre first), the border value, exact.

#include "border.cl"

#if KSIZE != 1 && KSIZE != 3
#error "the direct sobel takes KSIZE 1 or 3"
#endif
#include "sobel_modes.cl"

#define R 1
#define HB CH            // halo bytes on each side
#define NW (VX / 4 + 2)  // words of a loaded row: the left word, VX/4 words, the right word

#if VX == 8
#define UINTV uint2
#elif VX == 16
#define UINTV uint4
#elif VX != 4
#error "VX must be 4, 8 or 16"
#endif
// The bytes of a private array, element by element (no vloadn from private memory: the array
// must stay in registers), stored as words (one 4-, 8- or 16-byte store; some compilers split
// a uchar16 store into 4-byte pieces).
#define PACK4(o, i) as_uint((uchar4)(o[i], o[i + 1], o[i + 2], o[i + 3]))
#if VX == 4
#define STORE_ALIGNED(p, o) *(__global uint*)(p) = PACK4(o, 0)
#elif VX == 8
#define STORE_ALIGNED(p, o) *(__global uint2*)(p) = (uint2)(PACK4(o, 0), PACK4(o, 4))
#else
#define STORE_ALIGNED(p, o) \
  *(__global uint4*)(p) = (uint4)(PACK4(o, 0), PACK4(o, 4), PACK4(o, 8), PACK4(o, 12))
#endif

#define BIAS 0x1.0p23f

// The byte at byte column bc (may lie outside the row) of source row sy (-1: a constant row).
inline uint fetch_byte(__global const uchar* src, int bc, int sy, int width, int value) {
  const int t = bc + HB;  // >= 0 for every column a work-item reads, so / and % floor
  const int sx = border_index(t / CH - R, width);
  if (sx < 0 || sy < 0) return (uint)value;
  return src[(sy * width + sx) * CH + t % CH];
}

// The bytes x0 - 4 ... x0 + VX + 3 of source row sy as NW little-endian words (only the HB
// bytes next to the vector are used from the outer words).
inline void load_row(__global const uchar* src, uint* w, int x0, int sy, int width, int rowBytes,
                     int value, bool fast) {
  if (sy < 0) {
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = (uint)value * 0x01010101u;
  } else if (fast) {
    __global const uchar* p = src + sy * rowBytes + x0;
    w[0] = *(__global const uint*)(p - 4);
#if VX == 4
    w[1] = *(__global const uint*)p;
#else
    const UINTV q = *(__global const UINTV*)p;
    w[1] = q.s0;
    w[2] = q.s1;
#if VX == 16
    w[3] = q.s2;
    w[4] = q.s3;
#endif
#endif
    w[NW - 1] = *(__global const uint*)(p + VX);
  } else {
    // Frame edges and rows that do not start on a VX-byte boundary: byte by byte through the
    // border rules. Only the bytes the taps read.
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = 0;
#pragma unroll
    for (int j = -HB; j < VX + HB; ++j)
      w[(j + 4) / 4] |= fetch_byte(src, x0 + j, sy, width, value) << (8 * ((j + 4) % 4));
  }
}

// Byte j (-HB <= j < VX + HB, relative to x0) of a loaded row as the float 2^23 + 256*b.
inline float biased(const uint* w, int j) {
  const uint word = w[(j + 4) / 4];
  const int k = (j + 4) % 4;
  const uint m = k == 0 ? word << 8 : k == 1 ? word : k == 2 ? word >> 8 : word >> 16;
  return as_float(0x4B000000u | (m & 0xFF00u));
}

// A loaded row as biased floats: p[j + HB] = 2^23 + 256 * byte j, -HB <= j < VX + HB.
#define NB (VX + 2 * HB)
inline void to_floats(const uint* w, float* p) {
#pragma unroll
  for (int j = -HB; j < VX + HB; ++j) p[j + HB] = biased(w, j);
}

// The horizontal taps of one row: d (derivative, exact) and s (smoothing times scale, OpenCV's
// FMA chain from the leftmost tap), VX lanes, 256 times the true values.
inline void horizontal(const float* p, float4 taps, bool exact, float* d, float* s) {
  (void)taps;
  (void)exact;
#pragma unroll
  for (int i = 0; i < VX; ++i) {
    const float l = p[i], c = p[i + HB], r = p[i + 2 * HB];
    (void)l;
    (void)c;
    (void)r;
#if defined(NEED_GX)
    d[i] = r - l;
#endif
#if defined(NEED_GY)
    // Exact: the biased values themselves (the bias cancels in gy); else unbiased (exact).
    const float ul = exact ? l : l - BIAS, uc = exact ? c : c - BIAS, ur = exact ? r : r - BIAS;
#if KSIZE == 3
    s[i] = fma(ur, taps.s1, fma(uc, taps.s0, ul * taps.s1));
#else
    (void)ul;
    (void)ur;
    s[i] = uc * taps.s0;
#endif
#endif
  }
}

// One lane of the horizontal taps at scales other than 1 (as horizontal() computes them).
inline float h_deriv(const float* p, int i) { return p[i + 2 * HB] - p[i]; }
inline float h_smooth(const float* p, int i, float4 taps) {
  (void)taps;
#if KSIZE == 3
  return fma(p[i + 2 * HB] - BIAS, taps.s1,
             fma(p[i + HB] - BIAS, taps.s0, (p[i] - BIAS) * taps.s1));
#else
  return (p[i + HB] - BIAS) * taps.s0;
#endif
}

// OpenCV's column pass over the horizontal taps of rows y-1, y, y+1 (index 0, 1, 2).
inline void vertical(const float* d0, const float* d1, const float* d2, const float* s0,
                     const float* s2, float4 taps, int i, float* gx, float* gy) {
  (void)d0;
  (void)d1;
  (void)d2;
  (void)s0;
  (void)s2;
  (void)taps;
#if defined(NEED_GX)
#if KSIZE == 3
  *gx = fma(d2[i] + d0[i], taps.s1, d1[i] * taps.s0);
#else
  *gx = d1[i] * taps.s0;
#endif
#endif
#if defined(NEED_GY)
  *gy = s2[i] - s0[i];
#endif
}

// One output byte from 256 times OpenCV's float gradients (before its rounding to int16). The
// low byte of the returned bits is the result.
inline uint mode_byte(float gx, float gy, float4 taps, bool exact) {
  (void)gx;
  (void)gy;
  (void)taps;
  // min(|round(g)|, cap) = round(min(|g|, cap)) for integer caps; rounding ties to even is
  // symmetric. fma(m, 2^-8, 2^23) = 2^23 + round(m / 256) in one rounding.
#if defined(MODE_X)
  return as_uint(fma(fmin(fabs(gx), 255.0f * 256), 0x1.0p-8f, BIAS));
#elif defined(MODE_Y)
  return as_uint(fma(fmin(fabs(gy), 255.0f * 256), 0x1.0p-8f, BIAS));
#elif defined(MODE_MAG)
  // 0.5*a + 0.5*b of the 8-bit |g|, rounded half to even, as addWeighted.
  if (exact) {  // gx, gy are multiples of 256: a + b is exact, one rounding of (a + b) / 2
    return as_uint(
        fma(fmin(fabs(gx), 255.0f * 256) + fmin(fabs(gy), 255.0f * 256), 0x1.0p-9f, BIAS));
  }
  const float a = fma(fmin(fabs(gx), 255.0f * 256), 0x1.0p-8f, BIAS);  // 2^23 + a
  const float b = fma(fmin(fabs(gy), 255.0f * 256), 0x1.0p-8f, BIAS);
  const float t = a + (b - BIAS);           // 2^23 + a + b, exact
  return as_uint(fma(t, 0.5f, 0x1.0p22f));  // 2^23 + (a + b) / 2, rounded half to even
#else
  // l2: a, b = min(|round(g)|, 256) as exact integers; a*a + b*b is exact in float, and
  // sqrt(q) is never within 3.4e-4 of n + 0.5 (see kernels/sobel.cl), so rounding it is exact.
  float a = fmin(fabs(gx), 256.0f * 256), b = fmin(fabs(gy), 256.0f * 256);
  if (exact) {
    a *= 0x1.0p-8f;
    b *= 0x1.0p-8f;
  } else {
    a = fma(a, 0x1.0p-8f, BIAS) - BIAS;
    b = fma(b, 0x1.0p-8f, BIAS) - BIAS;
  }
  return as_uint(fmin(sqrt(fma(a, a, b * b)), 255.0f) + BIAS);
#endif
}

inline void store_row(__global uchar* o, const uchar* out, bool aligned, int x0, int rowBytes) {
  if (aligned) {
    STORE_ALIGNED(o, out);
  } else {  // constant indices: `out` stays in registers on GPUs
#pragma unroll
    for (int i = 0; i < VX; ++i)
      if (x0 + i < rowBytes) o[i] = out[i];
  }
}

#if !defined(SLIDE_PIXELS)
// slide=taps. The whole strip of a work-item; `exact` is a constant in each of the two inlined
// copies. The horizontal taps of rows y-1 and y slide through registers (4 x VX floats).
inline void strip(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                  int height, float4 taps, int value, bool exact, int x0, int y0) {
  const int rowBytes = width * CH;
  // The vector and both neighbour words lie inside the row, and every row starts VX-aligned
  // (buffers start aligned).
  const bool fast = x0 >= 4 && x0 + VX + 4 <= rowBytes && rowBytes % VX == 0;
  const bool alignedStore = x0 + VX <= rowBytes && rowBytes % VX == 0;
  float d0[VX], d1[VX], s0[VX], s1[VX], d2[VX], s2[VX];
#pragma unroll
  for (int i = 0; i < VX; ++i) d0[i] = d1[i] = d2[i] = s0[i] = s1[i] = s2[i] = 0;
  uint w[NW];
  float p[NB];
  // Unrolled: the loads of later rows can issue early, and the window shifts are renames.
#pragma unroll
  for (int step = 0; step < PY + 2; ++step) {
    const int y = y0 + step - 2;  // the output row once the window is full
    if (step >= 2 && y >= height) break;
    load_row(src, w, x0, border_index(y0 + step - R, height), width, rowBytes, value, fast);
    to_floats(w, p);
    horizontal(p, taps, exact, d2, s2);
    if (step >= 2) {
      uchar out[VX];
#pragma unroll
      for (int i = 0; i < VX; ++i) {
        float gx = 0, gy = 0;
        vertical(d0, d1, d2, s0, s2, taps, i, &gx, &gy);
        out[i] = (uchar)mode_byte(gx, gy, taps, exact);
      }
      store_row(dst + y * rowBytes + x0, out, alignedStore, x0, rowBytes);
    }
#pragma unroll
    for (int i = 0; i < VX; ++i) {
      d0[i] = d1[i];
      d1[i] = d2[i];
      s0[i] = s1[i];
      s1[i] = s2[i];
    }
  }
}
#else
// slide=pixels. The converted source pixels of rows y-1 and y slide through registers
// (2 x (VX + 2*HB) floats). At scale 1 the taps are applied vertically first, on the biased
// values (all exact, see the top): per column sv = p0 + 2 p1 + p2 and dv = p2 - p0, then
// gx = sv[x+1] - sv[x-1] and gy = dv[x-1] + 2 dv[x] + dv[x+1], both multiples of 256 below
// 2^26. At other scales the horizontal taps of the three rows are recomputed per output row,
// in OpenCV's order.
inline void strip(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                  int height, float4 taps, int value, bool exact, int x0, int y0) {
  const int rowBytes = width * CH;
  const bool fast = x0 >= 4 && x0 + VX + 4 <= rowBytes && rowBytes % VX == 0;
  const bool alignedStore = x0 + VX <= rowBytes && rowBytes % VX == 0;
  uint w[NW];
  float p0[NB], p1[NB], p2[NB];
  load_row(src, w, x0, border_index(y0 - 1, height), width, rowBytes, value, fast);
  to_floats(w, p0);
  load_row(src, w, x0, border_index(y0, height), width, rowBytes, value, fast);
  to_floats(w, p1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;
    if (y >= height) break;
    load_row(src, w, x0, border_index(y + 1, height), width, rowBytes, value, fast);
    to_floats(w, p2);
    uchar out[VX];
    if (exact) {
      float sv[NB], dv[NB];
#pragma unroll
      for (int j = 0; j < NB; ++j) {
#if KSIZE == 3
        sv[j] = fma(2.0f, p1[j], p0[j]) + p2[j];
#else
        sv[j] = p1[j];
#endif
        dv[j] = p2[j] - p0[j];
      }
#pragma unroll
      for (int i = 0; i < VX; ++i) {
        float gx = 0, gy = 0;
#if defined(NEED_GX)
        gx = sv[i + 2 * HB] - sv[i];
#endif
#if defined(NEED_GY)
#if KSIZE == 3
        gy = fma(2.0f, dv[i + HB], dv[i]) + dv[i + 2 * HB];
#else
        gy = dv[i + HB];
#endif
#endif
        out[i] = (uchar)mode_byte(gx, gy, taps, true);
      }
    } else {
      // Lane by lane (no arrays of taps: the register count of the kernel is that of its
      // heaviest path, and this one must not raise it for the scale-1 path).
#pragma unroll
      for (int i = 0; i < VX; ++i) {
        float gx = 0, gy = 0;
#if defined(NEED_GX)
#if KSIZE == 3
        gx = fma(h_deriv(p2, i) + h_deriv(p0, i), taps.s1, h_deriv(p1, i) * taps.s0);
#else
        gx = h_deriv(p1, i) * taps.s0;
#endif
#endif
#if defined(NEED_GY)
        gy = h_smooth(p2, i, taps) - h_smooth(p0, i, taps);
#endif
        out[i] = (uchar)mode_byte(gx, gy, taps, false);
      }
    }
    store_row(dst + y * rowBytes + x0, out, alignedStore, x0, rowBytes);
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      p0[j] = p1[j];
      p1[j] = p2[j];
    }
  }
}
#endif

__kernel void sobel(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                    int height, float4 taps, int value, int exact) {
  const int x0 = get_global_id(0) * VX;          // first byte column of the work-item
  const int y0 = get_global_id(1) * PY;          // first output row
  if (x0 >= width * CH || y0 >= height) return;  // the rounded-up global size (no barriers)
  if (exact)
    strip(src, dst, width, height, taps, value, true, x0, y0);
  else
    strip(src, dst, width, height, taps, value, false, x0, y0);
}
