// blur in one pass for CPUs: what is computed is blur.cl's (its header has the algorithm,
// OpenCV's 8-bit fixed point, bit for bit); only the schedule differs.
//
// A work-item owns VEC consecutive elements of a row (a column strip VEC elements wide) over a
// band of BAND output rows. Going down, it blurs each of the BAND + 2R rows the band needs along
// the row (16-bit lanes: every partial sum is at most 255 * 256), keeps the last 2R + 1 of them in
// a ring of registers (unrolled shifts, so the ring never touches memory) as floats (each row
// converted once, not once per output row it enters: docs/PERFORMANCE.md, "PoCL"), and blurs the
// column from the ring. The row pass's 16-bit result never leaves the core: blur.cl writes it to a
// scratch frame and reads it back (4 bytes an element of traffic there; here the source is read
// once, its halo rows once more per band). No local memory and no barriers.
//
//   RADIUS   R (ksize = 2R+1), at most 8 by the host: the ring is 2R+1 vectors of registers
//   CHANNELS 1, 3 or 4               VEC      elements per vector (16: one AVX-512 register of
//   WGX      work-items per group             float for the column sums)
//   BAND     output rows per work-item     BORDER_*, TAPS_U, VF_UNALIGNED_TYPES as in blur.cl

#include "border.cl"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FLOATV CAT(float, VEC)
#define USHORTV CAT(ushort, VEC)
#define UCHARV CAT(uchar, VEC)
#define TO_FLOATV CAT(convert_float, VEC)
#define TO_USHORTV CAT(convert_ushort, VEC)
#define TO_UCHARV CAT(convert_uchar, VEC)

#if defined(VF_UNALIGNED_TYPES)
typedef UCHARV __attribute__((aligned(1))) uchar_vu;
#define LDU(AS, p) (*(const AS uchar_vu*)(p))
#define STU(v, p) (*(__global uchar_vu*)(p) = (v))
#else
#define LDU(AS, p) CAT(vload, VEC)(0, p)
#define STU(v, p) CAT(vstore, VEC)(v, 0, p)
#endif

#define HALO (RADIUS * CHANNELS)  // elements needed on each side of a strip
#define RING (2 * RADIUS + 1)

// Row y (inside the frame) blurred along the row at elements e .. e + VEC - 1, from the VEC + 2
// HALO elements around them at `p` (p[HALO] is element e).
#define ROW_SUM(AS, p, out)                                                  \
  do {                                                                       \
    USHORTV s_ = tw[0] * TO_USHORTV(LDU(AS, (p) + HALO)), s2_ = 0;           \
    _Pragma("unroll") for (int k = 1; k <= RADIUS; ++k) {                    \
      const USHORTV pair_ = TO_USHORTV(LDU(AS, (p) + HALO - k * CHANNELS)) + \
                            TO_USHORTV(LDU(AS, (p) + HALO + k * CHANNELS));  \
      if (k & 1)                                                             \
        s2_ += tw[k] * pair_;                                                \
      else                                                                   \
        s_ += tw[k] * pair_;                                                 \
    }                                                                        \
    out = s_ + s2_;                                                          \
  } while (0)

__kernel __attribute__((reqd_work_group_size(WGX, 1, 1))) void blur_ring(
    __global const uchar* src, __global uchar* dst, int width, int height, int pitch,
    __constant float* taps, int value) {
  const int n = width * CHANNELS;
  const int e = get_global_id(0) * VEC;
  const int y0 = get_global_id(1) * BAND;
  if (e >= n || y0 >= height) return;
  const int y1 = min(y0 + BAND, height);
  const __constant ushort* tu = (const __constant ushort*)(taps + TAPS_U);
  // The strip's elements and halo lie inside the row: plain vector loads. Else the border rule
  // fills a private copy of them first (the strips at the two ends of a row).
  const bool inside = e >= HALO && e + VEC + HALO <= n;
  // The taps in registers before the loop: read from __constant inside it, PoCL's compiler
  // reloads and broadcasts them for every row (the stores to dst might alias them).
  USHORTV tw[RADIUS + 1];
  float tf[RADIUS + 1];
  _Pragma("unroll") for (int k = 0; k <= RADIUS; ++k) {
    tw[k] = (USHORTV)tu[k];
    tf[k] = taps[k];
  }

  FLOATV ring[RING];  // ring[j]: row y - 2R + j blurred along the row
  for (int y = y0 - RADIUS; y < y1 + RADIUS; ++y) {
    _Pragma("unroll") for (int j = 0; j < RING - 1; ++j) ring[j] = ring[j + 1];
    const int by = border_index(y, height);
    USHORTV h;
    if (by < 0) {
      h = (USHORTV)(value * 256);  // a constant row blurs to itself: the taps sum to 256
    } else if (inside) {
      ROW_SUM(__global, src + (size_t)by * pitch + e - HALO, h);
    } else {
      uchar part[VEC + 2 * HALO];
      const __global uchar* srow = src + (size_t)by * pitch;
      for (int j = 0; j < VEC + 2 * HALO; ++j) {
        const int x = e - HALO + j;
        const int b = x >= 0 && x < n ? x : border_element(x, width, CHANNELS);
        part[j] = b < 0 ? (uchar)value : srow[b];
      }
      ROW_SUM(__private, part, h);
    }
    ring[RING - 1] = TO_FLOATV(h);
    if (y < y0 + RADIUS) continue;  // the ring fills

    // Output row y - R, its centre ring[R]. (s + 2^15) >> 16 exact in float (s < 2^24), as in
    // blur.cl.
    FLOATV s = tf[0] * ring[RADIUS], s2 = 0;
    _Pragma("unroll") for (int k = 1; k <= RADIUS; ++k) {
      const FLOATV pair = ring[RADIUS - k] + ring[RADIUS + k];
      if (k & 1)
        s2 += tf[k] * pair;
      else
        s += tf[k] * pair;
    }
    const UCHARV out = TO_UCHARV((s + s2 + 32768.0f) * (1.0f / 65536.0f));
    __global uchar* o = dst + (size_t)(y - RADIUS) * pitch + e;
    if (e + VEC <= n) {
      STU(out, o);
    } else {
      uchar part[VEC];
      CAT(vstore, VEC)(out, 0, part);
      for (int j = 0; j < n - e; ++j) o[j] = part[j];
    }
  }
}
