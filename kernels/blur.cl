// blur: separable Gaussian, bit-exact with OpenCV's 8-bit cv::GaussianBlur (4.x fixed point).
//
// The algorithm (what is computed):
//   taps  t[0..R]: the Gaussian of cv::getGaussianKernel quantised by the host to integers with
//         8 fractional bits exactly as OpenCV's 8U path does (symmetric, all 2R+1 sum to 256);
//         t[0] is the centre, t[k] the weight at distance k.
//   rows  mid(y, x) = sum_k t[|k|] * src(y, bx(x + k))             (0 .. 255*256: 16 bits)
//   cols  dst(y, x) = (sum_k t[|k|] * mid(by(y + k), x) + 2^15) >> 16
//   where bx, by fold indices by the border mode (border.cl). Under BORDER_CONSTANT the outside
//   pixels are `value` and the outside rows of mid are value*256 (a constant row blurs to
//   itself, the taps summing to 256).
// Every product and partial sum is an integer below 2^24, so float arithmetic is exact, fused or
// not (and fast on GPUs and CPU SIMD alike): the result equals OpenCV's integer code bit for
// bit. The intermediate is ushort: exact, and half the bytes of a float one.
//
// The schedule (how), all -D build options chosen by the host (pipeline/stages/blur_schedule.cpp):
//   RADIUS   R, the radius (ksize = 2R+1)     CHANNELS 1, 3 or 4: a row is width*CHANNELS
//   WGX,WGY  work-group shape                 BORDER_* one border mode (border.cl)
//   VEC      elements per vector along a row (explicit vectors: on PoCL they become SIMD
//            registers whether or not the work-item loop vectorises; on GPUs a small VEC keeps
//            local-memory accesses conflict-free)
//   ROW_PX   vectors per work-item in the row pass (interleaved WGX vectors apart), amortising
//            per-work-item overhead (on PoCL, the work-item loop's bookkeeping)
//   COL_PY   rows per work-item in the column pass (interleaved WGY apart), amortising the
//            2R halo rows over more outputs
//   ROW_T, COL_T  element type of the local tiles: float (converted once, on load) or, when a
//            large radius would not fit in local memory, the narrow storage type.
//   ROW_INT  1: the row pass computes in ushort lanes on a uchar tile (CPUs: twice the lanes
//            of float per register); 0: in float. TAPS_U is where the ushort copy of the taps
//            starts in the taps buffer (after the floats).
// Each pass reads a tile with its halo into local memory, every work-item helping to load it;
// work-items past the frame (global size rounded up) still reach the barrier; stores are
// guarded. Channels are interleaved (BGRBGR...): along a row, a neighbour is CHANNELS elements
// away, so the row pass works on elements and never splits pixels.

#include "border.cl"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if VEC == 1
#define FLOATV float
#define USHORTV ushort
#define TO_FLOATV convert_float
#define TO_USHORTV convert_ushort
#define TO_UCHARV convert_uchar
#define TO_ROWTV CAT(convert_, ROW_T)
#define TO_COLTV CAT(convert_, COL_T)
#else
#define FLOATV CAT(float, VEC)
#define USHORTV CAT(ushort, VEC)
#define TO_FLOATV CAT(convert_float, VEC)
#define TO_USHORTV CAT(convert_ushort, VEC)
#define TO_UCHARV CAT(convert_uchar, VEC)
#define TO_ROWTV CAT(CAT(convert_, ROW_T), VEC)
#define TO_COLTV CAT(CAT(convert_, COL_T), VEC)
#endif

// Vector loads and stores at element-aligned addresses: LD(T, AS, p) reads VEC elements of
// type T from address space AS, ST writes them. vloadN/vstoreN are the portable way; with
// -DVF_UNALIGNED_TYPES (set by the host for PoCL) they become plain accesses through vector
// types whose alignment is lowered to the element's, because PoCL's vload16 is eight 2-element
// loads and shuffles while this compiles to one unaligned SIMD load.
#if VEC == 1
#define LD(T, AS, p) (*(p))
#define ST(T, AS, v, p) (*(p) = (v))
#elif defined(VF_UNALIGNED_TYPES)
typedef CAT(uchar, VEC) __attribute__((aligned(1))) uchar_vu;
typedef CAT(ushort, VEC) __attribute__((aligned(2))) ushort_vu;
typedef CAT(float, VEC) __attribute__((aligned(4))) float_vu;
#define LD(T, AS, p) (*(const AS CAT(T, _vu)*)(p))
#define ST(T, AS, v, p) (*(AS CAT(T, _vu)*)(p) = (v))
#else
#define LD(T, AS, p) CAT(vload, VEC)(0, p)
#define ST(T, AS, v, p) CAT(vstore, VEC)(v, 0, p)
#endif

#define KERNEL_ATTRS __attribute__((reqd_work_group_size(WGX, WGY, 1)))

// Tap loops: unrolled completely for the usual radii (the loop is then straight-line vector
// code and k & 1 below is static), by 4 for the large ones (code size, compile time).
#if RADIUS <= 16
#define UNROLL_TAPS _Pragma("unroll")
#else
#define UNROLL_TAPS _Pragma("unroll 4")
#endif

#define ROW_TW (WGX * VEC * ROW_PX)   // output elements of one row-pass tile row
#define ROW_HALO (RADIUS * CHANNELS)  // input elements needed on each side
#define ROW_CHUNKS ((ROW_TW + 2 * ROW_HALO + VEC - 1) / VEC)  // VEC-wide chunks per tile row
#define ROW_LOADS ((ROW_CHUNKS + WGX - 1) / WGX)

#define COL_TW (WGX * VEC)     // columns (elements) of one column-pass tile
#define COL_TH (WGY * COL_PY)  // output rows of one column-pass tile
#define COL_TILE_H (COL_TH + 2 * RADIUS)
#define COL_LOADS ((COL_TILE_H + WGY - 1) / WGY)

__kernel KERNEL_ATTRS void blur_rows(__global const uchar* src, __global ushort* mid, int width,
                                     int height, int pitch, __constant float* taps, int value) {
  __local ROW_T tile[WGY][ROW_CHUNKS * VEC];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int y = get_group_id(1) * WGY + ly;
  const int n = width * CHANNELS;           // elements in a row
  const int e0 = get_group_id(0) * ROW_TW;  // first output element of this tile
  const int first = e0 - ROW_HALO;          // element held by tile[ly][0]
  const bool rowInside = y < height;
  __local ROW_T* trow = tile[ly];

  if (rowInside) {
    const __global uchar* srow = src + (size_t)y * pitch;
    for (int k = 0; k < ROW_LOADS; ++k) {
      const int c = k * WGX + lx;  // chunk of VEC elements; tile element c*VEC is row element p
      const int p = first + c * VEC;
      // Chunks wholly past the last element any output needs are skipped (the last tile).
      if (c < ROW_CHUNKS && p < n + ROW_HALO) {
        if (p >= 0 && p + VEC <= n) {
          // Inside the row (all but the chunks at the two ends): one vector load.
          ST(ROW_T, __local, TO_ROWTV(LD(uchar, __global, srow + p)), trow + c * VEC);
        } else {
          for (int j = 0; j < VEC; ++j) {
            const int q = p + j;
            const int px = (q + ROW_HALO) / CHANNELS - RADIUS;  // floor(q / CHANNELS)
            const int bx = border_index(px, width);
            trow[c * VEC + j] =
                bx < 0 ? (ROW_T)value : (ROW_T)srow[bx * CHANNELS + (q - px * CHANNELS)];
          }
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (rowInside) {
    for (int j = 0; j < ROW_PX; ++j) {
      const int c = j * WGX + lx;  // output chunk in the tile
      const int e = e0 + c * VEC;  // its first element in the row
      if (e < n) {
        const __local ROW_T* centre = trow + c * VEC + ROW_HALO;
#if ROW_INT
        // 16-bit lanes, twice as many per SIMD register as float: every partial sum is at most
        // the total, 255*256, so ushort arithmetic is exact (CPUs; on GPUs 16-bit integers
        // buy nothing over float).
        const __constant ushort* tu = (const __constant ushort*)(taps + TAPS_U);
        USHORTV s = tu[0] * TO_USHORTV(LD(ROW_T, __local, centre)), s2 = 0;
        UNROLL_TAPS
        for (int k = 1; k <= RADIUS; ++k) {
          if (k & 1)
            s2 += tu[k] * (TO_USHORTV(LD(ROW_T, __local, centre - k * CHANNELS)) +
                           TO_USHORTV(LD(ROW_T, __local, centre + k * CHANNELS)));
          else
            s += tu[k] * (TO_USHORTV(LD(ROW_T, __local, centre - k * CHANNELS)) +
                          TO_USHORTV(LD(ROW_T, __local, centre + k * CHANNELS)));
        }
        const USHORTV sum = s + s2;
#else
        // Two accumulators halve the chain of dependent multiply-adds (unrolled, k & 1 is
        // static).
        FLOATV s = taps[0] * TO_FLOATV(LD(ROW_T, __local, centre)), s2 = 0;
        UNROLL_TAPS
        for (int k = 1; k <= RADIUS; ++k) {
          if (k & 1)
            s2 += taps[k] * (TO_FLOATV(LD(ROW_T, __local, centre - k * CHANNELS)) +
                             TO_FLOATV(LD(ROW_T, __local, centre + k * CHANNELS)));
          else
            s += taps[k] * (TO_FLOATV(LD(ROW_T, __local, centre - k * CHANNELS)) +
                            TO_FLOATV(LD(ROW_T, __local, centre + k * CHANNELS)));
        }
        const USHORTV sum = TO_USHORTV(s + s2);
#endif
        __global ushort* out = mid + (size_t)y * n + e;
        if (e + VEC <= n) {
          ST(ushort, __global, sum, out);
        } else {
          ushort part[VEC];
          ST(ushort, __private, sum, part);
          for (int q = 0; q < n - e; ++q) out[q] = part[q];
        }
      }
    }
  }
}

__kernel KERNEL_ATTRS void blur_cols(__global const ushort* mid, __global uchar* dst, int width,
                                     int height, int pitch, __constant float* taps, int value) {
  __local COL_T tile[COL_TILE_H][COL_TW];
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int n = width * CHANNELS;
  const int e0 = get_group_id(0) * COL_TW;  // first column (element) of this tile
  const int y0 = get_group_id(1) * COL_TH;  // first output row of this tile
  const int e = e0 + lx * VEC;              // this work-item's first column
  const int i = lx * VEC;                   // ... in the tile
  const COL_T outside = (COL_T)(value * 256);

  if (e < n) {
    for (int k = 0; k < COL_LOADS; ++k) {
      const int r = k * WGY + ly;  // tile row r holds frame row y0 - R + r
      if (r < COL_TILE_H) {
        const int by = border_index(y0 - RADIUS + r, height);
        __local COL_T* t = tile[r] + i;
        if (by < 0) {
          for (int j = 0; j < VEC; ++j) t[j] = outside;
        } else if (e + VEC <= n) {
          ST(COL_T, __local, TO_COLTV(LD(ushort, __global, mid + (size_t)by * n + e)), t);
        } else {
          for (int j = 0; j < n - e; ++j) t[j] = (COL_T)mid[(size_t)by * n + e + j];
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  if (e < n) {
    for (int m = 0; m < COL_PY; ++m) {
      const int r = m * WGY + ly;  // output row in the tile; its centre is tile row r + R
      const int y = y0 + r;
      if (y < height) {
        FLOATV s = taps[0] * TO_FLOATV(LD(COL_T, __local, tile[r + RADIUS] + i)), s2 = 0;
        UNROLL_TAPS
        for (int k = 1; k <= RADIUS; ++k) {
          if (k & 1)
            s2 += taps[k] * (TO_FLOATV(LD(COL_T, __local, tile[r + RADIUS - k] + i)) +
                             TO_FLOATV(LD(COL_T, __local, tile[r + RADIUS + k] + i)));
          else
            s += taps[k] * (TO_FLOATV(LD(COL_T, __local, tile[r + RADIUS - k] + i)) +
                            TO_FLOATV(LD(COL_T, __local, tile[r + RADIUS + k] + i)));
        }
        s += s2;
        // (s + 2^15) >> 16, exact in float (s < 2^24); truncation is floor for s >= 0 and the
        // result is at most 255 (s <= 255*2^16), so no saturation is needed.
        __global uchar* out = dst + (size_t)y * pitch + e;
        if (e + VEC <= n) {
          ST(uchar, __global, TO_UCHARV((s + 32768.0f) * (1.0f / 65536.0f)), out);
        } else {
          uchar part[VEC];
          ST(uchar, __private, TO_UCHARV((s + 32768.0f) * (1.0f / 65536.0f)), part);
          for (int j = 0; j < n - e; ++j) out[j] = part[j];
        }
      }
    }
  }
}
