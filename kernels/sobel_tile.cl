// The sobel's arithmetic over a tile in local memory, shared by the kernels that hold their
// source there: sobel.cl (the tile loaded from the frame; its header argues the arithmetic
// against OpenCV) and blur_sobel.cl (the tile blurred from the frame). The tile: TH = WGY * PY
// rows and R halo rows above and below, each row TW = WGX * VX bytes starting PAD bytes into a
// local row of LP bytes, the R * CH halo bytes on each side in the padding. A work-item computes
// VX bytes of PY rows; sobel_tile_outputs stores them, through an epilogue where the includer
// defines one (epilogue.cl). Needs KSIZE, CH, VX, PY, WGX, WGY, one MODE_* and UNROLL (and NV_PTX
// where the includer sets it).

#ifndef VF_SOBEL_TILE_CL
#define VF_SOBEL_TILE_CL

// R: halo radius. ksize 1 is OpenCV's [-1 0 1] derivative with a 1-tap [1] "smoothing".
#if KSIZE == 1
#define R 1
#else
#define R (KSIZE / 2)
#endif

// The derivative taps, indexed by offset + R (ksize 1 and 3 share [-1 0 1]); the unrolled loops
// fold them into the arithmetic. The smoothing taps arrive scaled, as a kernel argument.
// SR: radius of the smoothing taps (ksize 1: the 1-tap [1]).
#if KSIZE == 1 || KSIZE == 3
__constant int DV[3] = {-1, 0, 1};
#define SR (KSIZE / 2)
#elif KSIZE == 5
__constant int DV[5] = {-1, -2, 0, 2, 1};
#define SR 2
#elif KSIZE == 7
__constant int DV[7] = {-1, -4, -5, 0, 5, 4, 1};
#define SR 3
#else
#error "KSIZE must be 1, 3, 5 or 7"
#endif

#include "sobel_modes.cl"

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define FLOATV XCAT(float, VX)
#define UCHARV XCAT(uchar, VX)
#define VLOAD XCAT(vload, VX)
#define VSTORE XCAT(vstore, VX)
#define TO_FLOATV XCAT(convert_float, VX)
#define TO_UCHARV XCAT(convert_uchar, VX)

#define TW (WGX * VX)  // tile width in bytes
#define TH (WGY * PY)  // tile height in rows
#define HB (R * CH)    // halo bytes on each side (at most 12)
#define PAD 16         // the tile interior starts 16 bytes into a local row: room for HB
#define LP (TW + 2 * PAD)
#define LH (TH + 2 * R)

// The smoothing taps (ksize 3: 1 2 1; 5: 1 4 6 4 1; 7: 1 6 15 20 15 6 1) times scale, rounded
// to float by the host as OpenCV rounds them (float tap times (float)scale): .s0 is the centre
// tap, .s1 the taps at offset +-1, and so on.
typedef float4 ScaledTaps;

inline float scaled_tap(ScaledTaps t, int offset) {
  return offset == 0 ? t.s0 : offset == 1 ? t.s1 : offset == 2 ? t.s2 : t.s3;
}

// The VX tile bytes that start o bytes (|o| <= HB <= 12) after p, a VX-aligned tile address.
// With 16-byte vectors they are cut from aligned neighbours with swizzles (one byte-align
// instruction on x86) instead of a misaligned vload16, which some CPU compilers split into
// 4-byte pieces; narrower vectors (GPUs) just use vloadn.
#if VX == 16
inline uchar16 shifted16(uchar16 a, uchar16 b, uchar16 c, int o) {
  if (o == -1) return (uchar16)(a.sf, b.s0123, b.s4567, b.s89ab, b.scde);
  if (o == 1) return (uchar16)(b.s1234, b.s5678, b.s9abc, b.sdef, c.s0);
  if (o == -2) return (uchar16)(a.sef, b.s0123, b.s4567, b.s89ab, b.scd);
  if (o == 2) return (uchar16)(b.s2345, b.s6789, b.sabcd, b.sef, c.s01);
  if (o == -3) return (uchar16)(a.sdef, b.s0123, b.s4567, b.s89ab, b.sc);
  if (o == 3) return (uchar16)(b.s3456, b.s789a, b.sbcde, b.sf, c.s012);
  if (o == -4) return (uchar16)(a.scdef, b.s0123, b.s4567, b.s89ab);
  if (o == 4) return (uchar16)(b.s4567, b.s89ab, b.scdef, c.s0123);
  if (o == -6) return (uchar16)(a.sabcd, a.sef, b.s0123, b.s4567, b.s89);
  if (o == 6) return (uchar16)(b.s6789, b.sabcd, b.sef, c.s0123, c.s45);
  if (o == -8) return (uchar16)(a.s89ab, a.scdef, b.s0123, b.s4567);
  if (o == 8) return (uchar16)(b.s89ab, b.scdef, c.s0123, c.s4567);
  if (o == -9) return (uchar16)(a.s789a, a.sbcde, a.sf, b.s0123, b.s456);
  if (o == 9) return (uchar16)(b.s9abc, b.sdef, c.s0123, c.s4567, c.s8);
  if (o == -12) return (uchar16)(a.s4567, a.s89ab, a.scdef, b.s0123);
  if (o == 12) return (uchar16)(b.scdef, c.s0123, c.s4567, c.s89ab);
  return b;
}

inline UCHARV load_shifted(__local const uchar* p, int o) {
  const __local uchar16* q = (const __local uchar16*)p;
  return shifted16(o < 0 ? q[-1] : q[0], q[0], o > 0 ? q[1] : q[0], o);
}
#else
inline UCHARV load_shifted(__local const uchar* p, int o) { return VLOAD(0, p + o); }
#endif

// The horizontal taps of VX bytes of one tile row (p points at the first of them).
inline void horizontal_taps(__local const uchar* p, ScaledTaps taps, FLOATV* d, FLOATV* s) {
  (void)taps;  // unused in MODE_X
  FLOATV v[2 * R + 1];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) v[k] = TO_FLOATV(load_shifted(p, (k - R) * CH));
#if defined(NEED_GX)
  FLOATV dv = v[2 * R] - v[0];
#pragma unroll
  for (int k = 1; k < R; ++k) dv += (float)DV[R + k] * (v[R + k] - v[R - k]);
  *d = dv;
#else
  *d = 0;
#endif
#if defined(NEED_GY)
  FLOATV sv = v[R - SR] * scaled_tap(taps, SR);
#pragma unroll
  for (int k = R - SR + 1; k <= R + SR; ++k)
    sv = fma(v[k], (FLOATV)scaled_tap(taps, abs(k - R)), sv);
  *s = sv;
#else
  *s = 0;
#endif
}

// x rounded to the nearest integer, ties to even, for 0 <= x < 2^23: adding 2^23 leaves no
// fraction bits, so the float addition itself rounds (in the default mode, nearest even). Two
// adds, where rint() is a library call on some OpenCL CPUs.
inline FLOATV round_even(FLOATV x) { return (x + 0x1.0p23f) - 0x1.0p23f; }

// min(|round(g)|, cap) for an integer cap: the magnitude of OpenCV's int16 result as the modes
// use it (they all saturate at 255, or 256 before the l2 sum). Rounding ties to even is
// symmetric, so |round(g)| = round(|g|), and min(round(a), cap) = round(min(a, cap)).
inline FLOATV round_magnitude(FLOATV g, float cap) { return round_even(fmin(fabs(g), cap)); }

// Magnitude cap of the mode (the int16 saturation at 32767 lies far beyond it, so never shows).
#if defined(MODE_L2)
#define CAP 256.0f
#else
#define CAP 255.0f
#endif

// The vertical taps over the window (centre at index R) and the mode's 8-bit result.
inline UCHARV vertical_taps_and_mode(const FLOATV* d, const FLOATV* s, ScaledTaps taps) {
  (void)d;  // each of these goes unused in one mode
  (void)s;
  (void)taps;
#if defined(NEED_GX)
  // Symmetric column pass: centre first, then the pairs, outward.
  FLOATV gx = d[R] * taps.s0;
#if SR >= 1
  gx = fma(d[R + 1] + d[R - 1], (FLOATV)taps.s1, gx);
#endif
#if SR >= 2
  gx = fma(d[R + 2] + d[R - 2], (FLOATV)taps.s2, gx);
#endif
#if SR >= 3
  gx = fma(d[R + 3] + d[R - 3], (FLOATV)taps.s3, gx);
#endif
  const FLOATV ax = round_magnitude(gx, CAP);
#endif
#if defined(NEED_GY)
  // Antisymmetric column pass: the +-1 pair first, then outward.
  FLOATV gy = (s[R + 1] - s[R - 1]) * (float)DV[R + 1];
#pragma unroll
  for (int k = 2; k <= R; ++k) gy = fma(s[R + k] - s[R - k], (FLOATV)DV[R + k], gy);
  const FLOATV ay = round_magnitude(gy, CAP);
#endif

  // Every result below is an integer in [0, 255] already, so the conversion needs no
  // saturation or rounding (the saturating one costs a dozen instructions on some CPUs).
#if defined(MODE_X)
  return TO_UCHARV(ax);
#elif defined(MODE_Y)
  return TO_UCHARV(ay);
#elif defined(MODE_MAG)
  // 0.5*a + 0.5*b of the 8-bit |g|, rounded half to even, as addWeighted.
  return TO_UCHARV(round_even((ax + ay) * 0.5f));
#else
  // a, b <= 256 keep a*a + b*b exact in float. sqrt of an integer q is never exactly n + 0.5,
  // and is at least 3.4e-4 away from it for q <= 2*256^2, far more than the 3 ulp OpenCL
  // allows sqrt, so rounding sqrt(q) to nearest gives the correctly rounded result.
  return TO_UCHARV(fmin(round_even(sqrt(ax * ax + ay * ay)), 255.0f));
#endif
}

// Stores the work-item's VX bytes of PY rows from the tile (lx, ly: its place in the group;
// x0, y0: the group's first byte column and row in the frame).
inline void sobel_tile_outputs(__local const uchar* tile, __global uchar* dst, int width,
                               int height, int pitch, ScaledTaps taps, int lx, int ly, int x0,
                               int y0 EPI_DECL) {
  const int rowBytes = width * CH;
  // Down the work-item's column: a window of the horizontal taps of 2R+1 consecutive rows,
  // d (derivative, exact integers) for gx and s (smoothing times scale, OpenCV's FMA chain from
  // the leftmost tap) for gy. Each step shifts the window (through registers) and adds a row;
  // once the window is full, each step also writes an output row. One rolled loop, prologue
  // included, keeps the program small (PoCL compiles a kernel per configuration, tests many);
  // unrolled where NV_PTX is set (the fused pass on NVIDIA), whose steps then overlap.
  __local const uchar* row = tile + ly * PY * LP + PAD + lx * VX;
  FLOATV d[2 * R + 1], s[2 * R + 1];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) d[k] = s[k] = 0;
  const int x = x0 + lx * VX;
  int y = y0 + ly * PY - 2 * R;  // the output row of the window once it is full
#if NV_PTX
#pragma unroll
#else
#pragma unroll 1
#endif
  for (int step = 0; step < PY + 2 * R; ++step, ++y, row += LP) {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) {
      d[k] = d[k + 1];
      s[k] = s[k + 1];
    }
    horizontal_taps(row, taps, &d[2 * R], &s[2 * R]);
    if (step < 2 * R || y >= height) continue;
    UCHARV out = vertical_taps_and_mode(d, s, taps);
#if EPILOGUE
    uint w[VX / 4];
    VSTORE(out, 0, (uchar*)w);
    epi_words(w, 0, rowBytes - x EPI_PASS);
    out = VLOAD(0, (const uchar*)w);
#endif
    const int at = y * pitch + x;
    if (x + VX <= pitch && at % VX == 0) {
      *(__global UCHARV*)(dst + at) = out;  // aligned (buffers start aligned): one store
    } else if (x + VX <= rowBytes) {
      VSTORE(out, 0, dst + at);
    } else {
      uchar tmp[VX];
      VSTORE(out, 0, tmp);
      for (int i = 0; i < VX && x + i < rowBytes; ++i) dst[at + i] = tmp[i];
    }
  }
}

#endif
