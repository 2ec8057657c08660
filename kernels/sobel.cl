// sobel: 8-bit in, 8-bit out, per channel, as OpenCV computes
//
//   gx = cv::Sobel(src, CV_16S, 1, 0, KSIZE, scale, 0, border)     (gy: dx=0, dy=1)
//   MODE_X    convertScaleAbs(gx)                     = min(|gx|, 255)
//   MODE_Y    convertScaleAbs(gy)
//   MODE_MAG  addWeighted(|gx|8u, 0.5, |gy|8u, 0.5, 0) = (a + b) / 2, ties to even (cvRound)
//   MODE_L2   saturate(round(sqrt(gx^2 + gy^2)))      from the int16 gradients
//
// The Sobel taps are integers, so the gradients are exact integers; `scale` multiplies them in
// float and the product is rounded to nearest even and saturated to int16 as CV_16S stores it.
// (At scale 1 that is just the int16 saturation, which matters: a 7x7 gradient reaches 163200.)
//
// Schedule. One work-group owns a tile of WGX bytes (channel samples) by WGY*PY rows; each
// work-item owns one byte column and PY consecutive rows of it. The tile plus a halo of R pixels
// (R*CH bytes) on the left and right and R rows above and below is loaded once into local
// memory, cooperatively and through the border rules. Then every work-item runs down its column:
// per tile row the horizontal smoothing (s) and derivative (d) taps, kept in a sliding window of
// 2R+1 rows in registers, and per output row the vertical taps: gx = sum SM*d, gy = sum DV*s.
// No gx/gy buffers, one barrier, no work-item returns before it; stores are guarded because the
// global size is rounded up to whole work-groups.
//
// Build options: -DKSIZE=1|3|5|7 -DCH=1|3|4 -DWGX -DWGY -DPY -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP}
// Run time:      scale (float), value (constant-border value 0..255)

#include "border.cl"

// R: halo radius. ksize 1 is OpenCV's [-1 0 1] derivative with no smoothing (a 1-tap [1]).
#if KSIZE == 1
#define R 1
#else
#define R (KSIZE / 2)
#endif
#define TAPS (2 * R + 1)

// Taps, indexed k = 0..2R (offset k - R). Zero-padded to TAPS for ksize 1; the loops over them
// are unrolled, so the compiler folds these constants (and the zeros) into the arithmetic.
#if KSIZE == 1
__constant int SM[TAPS] = {0, 1, 0};
__constant int DV[TAPS] = {-1, 0, 1};
#elif KSIZE == 3
__constant int SM[TAPS] = {1, 2, 1};
__constant int DV[TAPS] = {-1, 0, 1};
#elif KSIZE == 5
__constant int SM[TAPS] = {1, 4, 6, 4, 1};
__constant int DV[TAPS] = {-1, -2, 0, 2, 1};
#elif KSIZE == 7
__constant int SM[TAPS] = {1, 6, 15, 20, 15, 6, 1};
__constant int DV[TAPS] = {-1, -4, -5, 0, 5, 4, 1};
#else
#error "KSIZE must be 1, 3, 5 or 7"
#endif

#if !defined(MODE_X) && !defined(MODE_Y) && !defined(MODE_MAG) && !defined(MODE_L2)
#error "define one of MODE_X, MODE_Y, MODE_MAG, MODE_L2"
#endif
#if !defined(MODE_Y)
#define NEED_GX 1
#endif
#if !defined(MODE_X)
#define NEED_GY 1
#endif

#define TH (WGY * PY)          // tile rows
#define LW (WGX + 2 * R * CH)  // local tile width in bytes
#define LH (TH + 2 * R)        // local tile height in rows
#define WIN (PY + 2 * R)       // rows each work-item reads from the tile

// The int16 value cv::Sobel(CV_16S) stores for the exact integer gradient g.
inline int to_s16(int g, float scale) {
  return convert_int_sat_rte(clamp((float)g * scale, -32768.0f, 32767.0f));
}

// convertScaleAbs of an int16 value: |g| saturated to 8 bits.
inline uint abs8(int g) { return min(abs(g), 255u); }

inline uchar combine(int gx, int gy) {
#if defined(MODE_X)
  return (uchar)abs8(gx);
#elif defined(MODE_Y)
  return (uchar)abs8(gy);
#elif defined(MODE_MAG)
  // 0.5*a + 0.5*b rounded half to even, in integers.
  const uint s = abs8(gx) + abs8(gy);
  return (uchar)((s + ((s >> 1) & 1u)) >> 1);
#else  // MODE_L2
  // Beyond 255 the result saturates anyway, so clamp first and stay exact in 32 bits.
  const uint a = min(abs(gx), 256u), b = min(abs(gy), 256u);
  const uint q = a * a + b * b;
  uint n = convert_uint(sqrt((float)q));  // float sqrt may be a few ulp off: fix up exactly
  if (n * n > q) --n;
  if ((n + 1) * (n + 1) <= q) ++n;
  n += (q > n * n + n) ? 1u : 0u;  // round(sqrt(q)): sqrt(q) >= n + 0.5  <=>  q > n^2 + n
  return (uchar)min(n, 255u);
#endif
}

__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1))) void sobel(
    __global const uchar* restrict src, __global uchar* restrict dst, int width, int height,
    float scale, int value) {
  __local uchar tile[LH][LW];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int rowBytes = width * CH;
  const int x0 = get_group_id(0) * WGX;  // first byte column the group writes
  const int y0 = get_group_id(1) * TH;   // first row the group writes

  // Cooperative halo load. Tile column t holds byte column x0 + t - R*CH, i.e. pixel
  // (x0 + t) / CH - R, channel (x0 + t) % CH (x0 + t >= 0, so plain / and % are right).
  for (int t = lx; t < LW; t += WGX) {
    const int c = x0 + t;
    const int px = border_index(c / CH - R, width);
#if defined(BORDER_CONSTANT)
    const int col = px < 0 ? -1 : px * CH + c % CH;
#else
    const int col = px * CH + c % CH;
#endif
    for (int r = ly; r < LH; r += WGY) {
      const int py = border_index(y0 + r - R, height);
#if defined(BORDER_CONSTANT)
      tile[r][t] = (col < 0 || py < 0) ? (uchar)value : src[py * rowBytes + col];
#else
      tile[r][t] = src[py * rowBytes + col];
#endif
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Horizontal taps for the WIN rows this work-item reads (its PY rows and R above and below).
  const int cx = lx + R * CH;
  const int r0 = ly * PY;
#if defined(NEED_GY)
  int s[WIN];
#endif
#if defined(NEED_GX)
  int d[WIN];
#endif
#pragma unroll
  for (int r = 0; r < WIN; ++r) {
    int sv = 0, dv = 0;
#pragma unroll
    for (int k = 0; k < TAPS; ++k) {
      const int p = tile[r0 + r][cx + (k - R) * CH];
      sv += SM[k] * p;
      dv += DV[k] * p;
    }
#if defined(NEED_GY)
    s[r] = sv;
#endif
#if defined(NEED_GX)
    d[r] = dv;
#endif
  }

  // Vertical taps and the mode's combination, one output row at a time.
  const int x = x0 + lx;
#pragma unroll
  for (int o = 0; o < PY; ++o) {
    int gx = 0, gy = 0;
#pragma unroll
    for (int k = 0; k < TAPS; ++k) {
#if defined(NEED_GX)
      gx += SM[k] * d[o + k];
#endif
#if defined(NEED_GY)
      gy += DV[k] * s[o + k];
#endif
    }
    const int y = y0 + r0 + o;
    if (x < rowBytes && y < height)
      dst[y * rowBytes + x] = combine(to_s16(gx, scale), to_s16(gy, scale));
  }
}
