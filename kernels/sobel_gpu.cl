// sobel, "direct" schedule: every ksize (1, 3, 5, 7), no local memory and no barrier unless the
// rows come from the group's tile (LOCAL_ROWS, sobel_gpu_tile.cl). The same results
// as kernels/sobel.cl (see there for OpenCV's arithmetic and the modes), computed with fewer and
// cheaper instructions for GPUs:
//
// - A work-item owns VX consecutive bytes (channel samples) of PY consecutive rows and walks
//   down them: each of the PY + 2R source rows is loaded once (an aligned VX-byte vector plus
//   HW 4-byte words left and right of it, global loads that hit L1 for the neighbours' rows, or
//   with LOCAL_ROWS the same words read from the group's tile in local memory; in rows that do not
//   start on a VX-byte boundary, the aligned words around them and a byte permute per word) and
//   converted once, its loads issued AHEAD rows before its arithmetic (a ring of AHEAD + 1 loaded
//   rows). What slides down through registers is a schedule choice: slide=taps (the horizontal taps
//   of the 2R rows above: 4R x VX floats; ksize 5 and 7 always slide these) or slide=pixels (ksize
//   1 and 3: the converted pixels of the two rows above: 2 x (VX + 2 CH) floats, fewer registers;
//   at scale 1 the taps apply vertically first, which saves instructions; other scales recompute
//   three rows of horizontal taps per output row). Estimated per output byte at VX=16, PY=8, mode
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
// - EXACT (scale == 1) is a build option: the host builds both programs and launches the one
//   for the current scale, so the scale stays live and each kernel gets the registers of its
//   own path (one kernel with both paths ran at the larger path's register count).
//
// - H2 (ksize 3, modes mag/x/y, at scale 1): pairs of 16-bit floats (f16x2) hold two
//   neighbouring bytes (channel samples), so each instruction computes two outputs, and the bytes
//   go in and out by byte permutes, with no conversion instruction. See strip_h2 (sobel_gpu_h2.cl).
//
// Build options: -DKSIZE=1|3|5|7 -DCH=1|3|4 -DVX=4|8|16 -DPY -DTAIL_SHIFT=0|1 -DAHEAD=0|1|2
//                -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP} [-DSLIDE_PIXELS]
//                -DEXACT=0|1 [-DH2 [-DH2_PTX]] -DPERM_PTX=0|1 (1: NVIDIA's byte permute)
//                -DLOCAL_ROWS=0|1 (1: rows from a local tile, sobel_gpu_tile.cl; with -DWGX -DWGY)
// Run time:      the smoothing taps times scale (centre first), the border value; with
//                PROLOGUE (the source read through point-wise functions, prologue.cl) then the
//                functions' parameters; with EPILOGUE (the stores through point-wise functions
//                and histogram counters, epilogue.cl) then theirs, and each counter's buffers.

#include "border.cl"
#include "byte_perm.cl"

#if KSIZE != 1 && KSIZE != 3 && KSIZE != 5 && KSIZE != 7
#error "KSIZE must be 1, 3, 5 or 7"
#endif
#include "sobel_modes.cl"
#define UNROLL _Pragma("unroll")
#include "prologue.cl"

#if KSIZE == 1
#define R 1
#else
#define R (KSIZE / 2)
#endif
#define HB (R * CH)           // halo bytes on each side (at most 12)
#define HW ((HB + 3) / 4)     // halo words on each side
#define NW (VX / 4 + 2 * HW)  // words of a loaded row: HW left, VX/4, HW right

// The derivative taps, indexed by offset + R (ksize 1 and 3 share [-1 0 1]), and the smoothing
// taps' radius (ksize 1: the 1-tap [1]). The smoothing taps arrive scaled, as an argument.
#if KSIZE == 1 || KSIZE == 3
__constant float DV[3] = {-1, 0, 1};
#define SR (KSIZE / 2)
#elif KSIZE == 5
__constant float DV[5] = {-1, -2, 0, 2, 1};
#define SR 2
#else
__constant float DV[7] = {-1, -4, -5, 0, 5, 4, 1};
#define SR 3
#endif

#if VX == 8
#define UINTV uint2
#elif VX == 16
#define UINTV uint4
#elif VX != 4
#error "VX must be 4, 8 or 16"
#endif
#include "epilogue.cl"
#include "sobel_gpu_store.cl"

#define BIAS 0x1.0p23f

#include "sobel_gpu_rows.cl"
#include "sobel_gpu_tile.cl"

// Byte j (-HB <= j < VX + HB, relative to x0) of a loaded row as the float 2^23 + 256*b.
inline float biased(const uint* w, int j) {
  const uint word = w[(j + 4 * HW) / 4];
  const int k = (j + 4 * HW) % 4;
#if PERM_PTX
  // One byte permute: byte k of the word under the exponent byte 0x4B, zeros elsewhere.
  return as_float(perm(word, 0x4B000000u, 0x7404u | ((uint)k << 4)));
#else
  const uint m = k == 0 ? word << 8 : k == 1 ? word : k == 2 ? word >> 8 : word >> 16;
  return as_float(0x4B000000u | (m & 0xFF00u));
#endif
}

// A loaded row as biased floats: p[j + HB] = 2^23 + 256 * byte j, -HB <= j < VX + HB.
#define NB (VX + 2 * HB)
inline void to_floats(const uint* w, float* p) {
#pragma unroll
  for (int j = -HB; j < VX + HB; ++j) p[j + HB] = biased(w, j);
}

// The smoothing tap at distance k (scaled), from the centre-first taps.
inline float smooth_tap(float4 taps, int k) {
  return k == 0 ? taps.s0 : k == 1 ? taps.s1 : k == 2 ? taps.s2 : taps.s3;
}

// The horizontal taps of one row, in kernels/sobel.cl's order: d (derivative: the outer pair,
// then the inner pairs outward; exact) and s (smoothing times scale, OpenCV's FMA chain from the
// leftmost tap), VX lanes, 256 times the true values. Exact (scale 1): s from the biased values
// themselves (every sum a multiple of 256 below 2^30: exact; the bias cancels in gy); else from
// the unbiased ones.
inline void horizontal(const float* p, float4 taps, bool exact, float* d, float* s) {
  (void)taps;
  (void)exact;
#pragma unroll
  for (int i = 0; i < VX; ++i) {
#define PX(k) p[i + HB + (k)*CH]  // the pixel k to the right of output i (biased)
#if defined(NEED_GX)
    float dd = PX(R) - PX(-R);
#pragma unroll
    for (int k = 1; k < R; ++k) dd += DV[R + k] * (PX(k) - PX(-k));
    d[i] = dd;
#endif
#if defined(NEED_GY)
    float ss = (exact ? PX(-SR) : PX(-SR) - BIAS) * smooth_tap(taps, SR);
#pragma unroll
    for (int k = -SR + 1; k <= SR; ++k)
      ss = fma(exact ? PX(k) : PX(k) - BIAS, smooth_tap(taps, k < 0 ? -k : k), ss);
    s[i] = ss;
#endif
#undef PX
  }
}

// One lane of the horizontal taps at scales other than 1 (as horizontal() computes them; the
// pixels strip, ksize 1 and 3).
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

// OpenCV's column pass (kernels/sobel.cl's order) over the horizontal taps of the window rows
// y - R .. y + R (d[k], s[k] for row y - R + k), lane i.
#define WIN (2 * R + 1)
inline void vertical(float d[WIN][VX], float s[WIN][VX], float4 taps, int i, float* gx, float* gy) {
  (void)d;
  (void)s;
  (void)taps;
#if defined(NEED_GX)
  float x = d[R][i] * taps.s0;
#pragma unroll
  for (int m = 1; m <= SR; ++m) x = fma(d[R + m][i] + d[R - m][i], smooth_tap(taps, m), x);
  *gx = x;
#endif
#if defined(NEED_GY)
  float y = (s[R + 1][i] - s[R - 1][i]) * DV[R + 1];
#pragma unroll
  for (int k = 2; k <= R; ++k) y = fma(s[R + k][i] - s[R - k][i], DV[R + k], y);
  *gy = y;
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

#if !defined(SLIDE_PIXELS) || KSIZE > 3
// slide=taps. The whole strip of a work-item; `exact` is a constant in each of the two inlined
// copies. The horizontal taps of the 2R rows above slide through registers (4R x VX floats).
inline void strip(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                  int height, int pitch, float4 taps, int value, bool exact, int x0, int y0,
                  int skip TILE_DECL PRO_DECL EPI_DECL) {
  const int rowBytes = width * CH;
  const bool vec = x0 + VX <= rowBytes;  // the vector lies in the row
  (void)vec;
  float d[WIN][VX], s[WIN][VX];
#pragma unroll
  for (int k = 0; k < WIN; ++k)
#pragma unroll
    for (int i = 0; i < VX; ++i) d[k][i] = s[k][i] = 0;
  // A ring of loaded rows: each row's loads are issued AHEAD steps before its arithmetic, so
  // their latency can pass under the rows before (where that pays, measured: docs/PERFORMANCE.md,
  // "Rows loaded ahead"). Rows past the frame's end fold to rows in it, so every address loaded
  // early is valid.
  uint wq[AHEAD + 1][NW];
  float p[NB];
#pragma unroll
  for (int a = 0; a < AHEAD && a < PY + 2 * R; ++a) {
    LOAD_ROW_T(wq[a], a);
  }
  // Unrolled: the window shifts are renames.
#pragma unroll
  for (int step = 0; step < PY + 2 * R; ++step) {
    const int y = y0 + step - 2 * R;  // the output row once the window is full
    if (step >= 2 * R && y >= height) break;
    if (step + AHEAD < PY + 2 * R) LOAD_ROW_T(wq[(step + AHEAD) % (AHEAD + 1)], step + AHEAD);
    to_floats(wq[step % (AHEAD + 1)], p);
    horizontal(p, taps, exact, d[2 * R], s[2 * R]);
    if (step >= 2 * R) {
      uchar out[VX];
#pragma unroll
      for (int i = 0; i < VX; ++i) {
        float gx = 0, gy = 0;
        vertical(d, s, taps, i, &gx, &gy);
        out[i] = (uchar)mode_byte(gx, gy, taps, exact);
      }
      store_row(dst, y * pitch + x0, out, skip, min(VX, rowBytes - x0), pitch - x0 EPI_PASS);
    }
#pragma unroll
    for (int k = 0; k < 2 * R; ++k)
#pragma unroll
      for (int i = 0; i < VX; ++i) {
        d[k][i] = d[k + 1][i];
        s[k][i] = s[k + 1][i];
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
                  int height, int pitch, float4 taps, int value, bool exact, int x0, int y0,
                  int skip TILE_DECL PRO_DECL EPI_DECL) {
  const int rowBytes = width * CH;
  const bool vec = x0 + VX <= rowBytes;  // the vector lies in the row
  (void)vec;
  // Source row t is y0 - 1 + t (t < PY + 2), loaded AHEAD rows before its arithmetic, as in
  // the slide=taps strip above.
  uint wq[AHEAD + 1][NW];
  float p0[NB], p1[NB], p2[NB];
#define LOAD_T(t)                                           \
  do {                                                      \
    if ((t) < PY + 2) LOAD_ROW_T(wq[(t) % (AHEAD + 1)], t); \
  } while (0)
#pragma unroll
  for (int t = 0; t <= AHEAD; ++t) LOAD_T(t);
  to_floats(wq[0], p0);
  LOAD_T(1 + AHEAD);
  to_floats(wq[1 % (AHEAD + 1)], p1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;
    if (y >= height) break;
    LOAD_T(r + 2 + AHEAD);
    to_floats(wq[(r + 2) % (AHEAD + 1)], p2);
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
    store_row(dst, y * pitch + x0, out, skip, min(VX, rowBytes - x0), pitch - x0 EPI_PASS);
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      p0[j] = p1[j];
      p1[j] = p2[j];
    }
  }
}
#undef LOAD_T
#endif

#include "sobel_gpu_h2.cl"

#if !defined(EXACT)
#error "define EXACT=1 (scale 1) or EXACT=0"
#endif
#if LOCAL_ROWS && (TAIL_SHIFT || defined(H2))
#error "LOCAL_ROWS takes neither TAIL_SHIFT nor H2"
#endif

#if LOCAL_ROWS
#define SOBEL_GROUP __attribute__((reqd_work_group_size(WGX, WGY, 1)))  // the tile's shape
#else
#define SOBEL_GROUP
#endif
__kernel SOBEL_GROUP void sobel(__global const uchar* restrict src, __global uchar* restrict dst,
                                int width, int height, int pitch, float4 taps,
                                int value PRO_DECL EPI_KDECL) {
  const int rowBytes = width * CH;
  int x0 = get_global_id(0) * VX;        // first byte column of the work-item
  const int y0 = get_global_id(1) * PY;  // first output row
  // TAIL_SHIFT (rows whose length is not a multiple of VX): a row's last vector, which would run
  // past the row's end, moves back to end with the row. It loads whole vectors like the others
  // (only its right halo through the border rule, not every byte) and stores only the bytes the
  // work-item before it does not. Without, the code of every other row length, unchanged.
  int skip = 0;
#if TAIL_SHIFT
  if (x0 < rowBytes && x0 + VX > rowBytes && rowBytes >= VX) {
    skip = x0 - (rowBytes - VX);
    x0 = rowBytes - VX;
  }
#endif
  EPI_BEGIN
#if LOCAL_ROWS
  __local uint tile[TW * TR];
  tile_fill(src, tile, width, height, pitch, value PRO_PASS);
#endif
  // Work-items past the frame (the rounded-up global size) compute nothing but reach the
  // epilogue's and the tile's barriers.
  if (x0 < rowBytes && y0 < height) {
#if EXACT && USE_H2
    (void)taps;
    strip_h2(src, dst, width, height, pitch, value, x0, y0, skip PRO_PASS EPI_PASS);
#else
    strip(src, dst, width, height, pitch, taps, value, EXACT, x0, y0,
          skip TILE_PASS PRO_PASS EPI_PASS);
#endif
  }
  EPI_END
}
