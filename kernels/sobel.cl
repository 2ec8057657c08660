// sobel: 8-bit in, 8-bit out, per channel, as OpenCV computes
//
//   gx = cv::Sobel(src, CV_16S, 1, 0, KSIZE, scale, 0, border)     (gy: dx=0, dy=1)
//   MODE_X    convertScaleAbs(gx)                     = min(|gx|, 255)
//   MODE_Y    convertScaleAbs(gy)
//   MODE_MAG  addWeighted(|gx|8u, 0.5, |gy|8u, 0.5, 0) = (a + b) / 2 rounded half to even
//   MODE_L2   round(sqrt(gx^2 + gy^2)), saturated     from the int16 gradients
//
// Arithmetic. OpenCV builds gx from a row pass with the integer derivative taps and a column pass
// with the smoothing taps times `scale` (float), gy from a row pass with the smoothing taps times
// `scale` and a column pass with the derivative taps; each pass is a float FMA chain in a fixed
// order, rounded to nearest even and saturated to int16 at the end. This kernel runs the same
// chains in the same order (the scaled taps come from the host, rounded to float as OpenCV
// rounds them), so even scales whose products round (0.3) give OpenCV's int16 values. At
// scale 1, or any scale whose products are exact (powers of two, integers), every value is an
// integer below 2^24, so the float work is exact integer arithmetic.
// The int16 saturation itself never shows: every mode takes |g| and saturates to 8 bits (l2
// clamps each |g| at 256 first, past which the result is 255 anyway).
//
// Schedule. A work-item owns VX consecutive bytes (channel samples) of PY consecutive rows; a
// work-group (WGX x WGY items) owns a tile of WGX*VX bytes by WGY*PY rows. The tile and its halo
// (R pixels = R*CH bytes left and right, R rows above and below) is loaded once into local
// memory, cooperatively, through the border rules (whole rows or single vectors per work-item:
// see the load). After one barrier each work-item computes the horizontal taps of its PY + 2R
// rows (vectors of VX lanes) and the vertical taps of its PY output rows. Nothing returns
// before the barrier; stores are guarded (the global size is rounded up to whole work-groups).
//
// Build options: -DKSIZE=1|3|5|7 -DCH=1|3|4 -DVX=4|8|16 -DPY -DWGX -DWGY -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP} [-DLOAD_BY_ROWS]
// Run time:      the smoothing taps times scale as floats (centre first), the border value.

#include "border.cl"

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

// The byte at byte column bc (may lie outside the row) of source row sy (-1: a constant row).
inline uchar fetch(__global const uchar* src, int bc, int sy, int width, int value) {
  const int t = bc + HB;  // >= 0 for every column a tile reads, so / and % floor
  const int sx = border_index(t / CH - R, width);
  if (sx < 0 || sy < 0) return (uchar)value;
  return src[(sy * width + sx) * CH + t % CH];
}

// Copies VX bytes from byte column bx of source row sy (-1: a constant row) to the tile.
inline void load_vector(__global const uchar* src, __local uchar* t, int bx, int sy, int width,
                        int value) {
  const int rowBytes = width * CH;
  // Past the right edge only the HB bytes the last pixels read matter; the rounded-up
  // work-items beyond them compute results nobody stores, from whatever the tile holds.
  if (bx >= rowBytes + HB) return;
  if (sy >= 0 && bx + VX <= rowBytes) {
    // An aligned vector access where the address allows (buffers start aligned): some compilers
    // split vloadn/vstoren of uchar into bytes.
    const int at = sy * rowBytes + bx;
    *(__local UCHARV*)t = at % VX == 0 ? *(__global const UCHARV*)(src + at) : VLOAD(0, src + at);
  } else {
    for (int i = 0; i < VX; ++i) t[i] = fetch(src, bx + i, sy, width, value);
  }
}

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

__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1))) void sobel(
    __global const uchar* restrict src, __global uchar* restrict dst, int width, int height,
    ScaledTaps taps, int value) {
  __local UCHARV tile_v[LH * LP / VX];  // a vector array, so every VX-byte slot is aligned
  __local uchar* tile = (__local uchar*)tile_v;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int rowBytes = width * CH;
  const int x0 = get_group_id(0) * TW;  // first byte column the group writes
  const int y0 = get_group_id(1) * TH;  // first row the group writes

  // Cooperative load of the tile and its halo. Two orders of the same copy (a schedule choice):
#if defined(LOAD_BY_ROWS)
  // CPUs: a work-item copies whole tile rows, so the row's border arithmetic is done once per
  // row and the copy is a tight loop of vectors (work-items run one after another there).
  for (int r = ly * WGX + lx; r < LH && y0 + r < height + 2 * R; r += WGX * WGY) {
    const int sy = border_index(y0 + r - R, height);
    __local uchar* trow = tile + r * LP + PAD;
    for (int i = 0; i < WGX; ++i) load_vector(src, trow + i * VX, x0 + i * VX, sy, width, value);
    for (int h = 0; h < 2 * HB; ++h) {
      const int t = h < HB ? h - HB : TW + h - HB;  // left halo, then right halo
      trow[t] = fetch(src, x0 + t, sy, width, value);
    }
  }
#else
  // GPUs: neighbouring work-items copy neighbouring vectors of a row (coalesced); the halo
  // bytes go to the first 2*HB work-items.
  // (Rows past height - 1 + R are read only by outputs nobody stores.)
  for (int r = ly; r < LH && y0 + r < height + 2 * R; r += WGY) {
    const int sy = border_index(y0 + r - R, height);
    __local uchar* trow = tile + r * LP + PAD;
    load_vector(src, trow + lx * VX, x0 + lx * VX, sy, width, value);
    for (int h = lx; h < 2 * HB; h += WGX) {
      const int t = h < HB ? h - HB : TW + h - HB;
      trow[t] = fetch(src, x0 + t, sy, width, value);
    }
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);

  // Down the work-item's column: a window of the horizontal taps of 2R+1 consecutive rows,
  // d (derivative, exact integers) for gx and s (smoothing times scale, OpenCV's FMA chain from
  // the leftmost tap) for gy. Each step shifts the window (through registers) and adds a row;
  // once the window is full, each step also writes an output row. One rolled loop, prologue
  // included, keeps the program small (PoCL compiles a kernel per configuration, tests many).
  __local const uchar* row = tile + ly * PY * LP + PAD + lx * VX;
  FLOATV d[2 * R + 1], s[2 * R + 1];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k) d[k] = s[k] = 0;
  const int x = x0 + lx * VX;
  int y = y0 + ly * PY - 2 * R;  // the output row of the window once it is full
#pragma unroll 1
  for (int step = 0; step < PY + 2 * R; ++step, ++y, row += LP) {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) {
      d[k] = d[k + 1];
      s[k] = s[k + 1];
    }
    horizontal_taps(row, taps, &d[2 * R], &s[2 * R]);
    if (step < 2 * R || y >= height) continue;
    const UCHARV out = vertical_taps_and_mode(d, s, taps);
    const int at = y * rowBytes + x;
    if (x + VX <= rowBytes && at % VX == 0) {
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
