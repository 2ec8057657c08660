// blur_gpu: the GPU schedule of the Gaussian blur. Same arithmetic as blur.cl (read its header:
// taps quantised as OpenCV's 8-bit path does, exact integer sums held in float, bit-exact with
// cv::GaussianBlur), organised for a GPU:
//
//   blur_fused  one kernel, no intermediate in global memory. A work-group owns a tile of
//               TW elements x TH rows. Phase 1: the row sums of the TH + 2R rows the tile needs
//               (halo rows included), computed straight from global memory (neighbouring
//               work-items' loads hit L1) into a float tile in local memory. One barrier.
//               Phase 2: each work-item walks PY rows down 4 columns of that tile, keeping the
//               PY partial column sums in registers (each tile row is read once per 4 columns),
//               and writes PY x 4 output bytes.
//   blur_h, blur_v
//               the same two phases as two kernels through a 16-bit scratch in global memory
//               (`passes=2`): more bytes moved, but each kernel is simpler and fully occupied.
//
// Why it is shaped so (NVIDIA Hopper, per SM and clock): float FMA 128, integer 64, but
// conversions (I2F/F2I) only 16. A byte is therefore turned into a float by building the float's
// bits, as_float(0x4B000000 | b) - 2^23 (exact: 2^23 + b is representable), not by convert_float;
// a segment of HV consecutive elements shares the 2*R*CHANNELS halo bytes it converts. The one
// conversion left is the final float -> uchar, once per output byte.
//
// Build options (pipeline/stages/blur.cpp chooses them):
//   RADIUS, CHANNELS, BORDER_*     as in blur.cl
//   WG       work-items per group (1-D)
//   TW, TH   fused tile: TW elements (a multiple of HV and of 4) by TH rows (a multiple of PY)
//   HV       elements per row-sum segment (4, 8 or 16)
//   PY       output rows per work-item in the column phase
//   VV       columns per work-item in blur_v (4 or 8)
//   LOADW    bytes per global load in the row phase: 16 (uint4; rows a multiple of 16 bytes),
//            4 (uint; rows a multiple of 4 bytes) or 1 (any row length)
// Run time: src, dst (or mid), width, height, taps (float, centre first), value.

#include "border.cl"

#define HALO (RADIUS * CHANNELS)  // elements needed on each side of a row segment
#define WIN (HV + 2 * HALO)       // the window of one segment
#if LOADW == 16
#define HALO_L ((HALO + 15) / 16)  // loads on each side of the segment
#elif LOADW == 4
#define HALO_L ((HALO + 3) / 4)
#elif LOADW == 1
#define HALO_L HALO
#else
#error "LOADW must be 16, 4 or 1"
#endif
#define NLOAD (HV / LOADW + 2 * HALO_L)  // loads per segment (LOADW <= HV)
#define OFFB (HALO_L * LOADW - HALO)     // window element 0 is byte OFFB of the loaded bytes

#if LOADW > HV
#error "LOADW must not exceed HV"
#endif

// Exact uchar/ushort -> float without a conversion instruction.
inline float bits_to_float(uint v) { return as_float(0x4B000000u | v) - 8388608.0f; }

// The row sums of one segment: h[j] = sum_k taps[|k|] * row(s + j + k*CHANNELS), j < HV, with
// the row's border rule at both ends. `row` is the source row (by >= 0), n its length in
// elements.
inline void row_segment(__global const uchar* row, int s, int n, int width,
                        __constant float* taps, int value, float* h) {
  float win[WIN];
  if (s - HALO_L * LOADW >= 0 && s + HV + HALO_L * LOADW <= n) {
    // Inside the row: aligned loads (s is a multiple of HV, the row of LOADW), bytes picked out
    // of the loaded words at constant positions.
#if LOADW == 1
    const __global uchar* p = row + s - HALO;
#pragma unroll
    for (int i = 0; i < WIN; ++i) win[i] = bits_to_float(p[i]);
#else
    uint words[NLOAD * LOADW / 4];
#if LOADW == 16
    const __global uint4* p = (const __global uint4*)(row + s) - HALO_L;
#pragma unroll
    for (int i = 0; i < NLOAD; ++i) {
      const uint4 v = p[i];
      words[4 * i] = v.x;
      words[4 * i + 1] = v.y;
      words[4 * i + 2] = v.z;
      words[4 * i + 3] = v.w;
    }
#else
    const __global uint* p = (const __global uint*)(row + s) - HALO_L;
#pragma unroll
    for (int i = 0; i < NLOAD; ++i) words[i] = p[i];
#endif
#pragma unroll
    for (int i = 0; i < WIN; ++i)
      win[i] = bits_to_float((words[(OFFB + i) / 4] >> (8 * ((OFFB + i) % 4))) & 0xFFu);
#endif
  } else {
    // Near the row's ends: element by element through the border rule.
    for (int i = 0; i < WIN; ++i) {
      const int q = s - HALO + i;                          // element index, may be outside
      const int px = (q + HALO) / CHANNELS - RADIUS;       // floor(q / CHANNELS)
      const int bx = border_index(px, width);
      win[i] = bx < 0 ? (float)value : (float)row[bx * CHANNELS + (q - px * CHANNELS)];
    }
  }
#pragma unroll
  for (int j = 0; j < HV; ++j) {
    float a = taps[0] * win[HALO + j];
#pragma unroll
    for (int k = 1; k <= RADIUS; ++k)
      a += taps[k] * (win[HALO + j - k * CHANNELS] + win[HALO + j + k * CHANNELS]);
    h[j] = a;
  }
}

// The row sums of segment s of frame row y (any y: folded by the border rule; under
// BORDER_CONSTANT a row outside the frame sums to value * 256).
inline void row_sums(__global const uchar* src, int y, int s, int n, int width, int height,
                     __constant float* taps, int value, float* h) {
  const int by = border_index(y, height);
  if (by < 0) {
#pragma unroll
    for (int j = 0; j < HV; ++j) h[j] = (float)(value * 256);
  } else {
    row_segment(src + (size_t)by * n, s, n, width, taps, value, h);
  }
}

// out = (S + 2^15) >> 16 for the exact column sum S < 2^24: S * 2^-16 + 0.5 is exact, and the
// conversion truncates.
inline uchar4 finish4(float4 s) { return convert_uchar4_sat_rtz(s * (1.0f / 65536.0f) + 0.5f); }

inline void store4(__global uchar* dst, int y, int e, int n, uchar4 v) {
  __global uchar* o = dst + (size_t)y * n + e;
  if (e + 4 <= n) {
#if LOADW >= 4
    *(__global uchar4*)o = v;
#else
    vstore4(v, 0, o);
#endif
  } else {
    const uchar part[4] = {v.x, v.y, v.z, v.w};
    for (int j = 0; j < n - e; ++j) o[j] = part[j];
  }
}

#define TW4 (TW / 4)
#define TILE_ROWS (TH + 2 * RADIUS)
#define SEGS (TW / HV)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void blur_fused(
    __global const uchar* src, __global uchar* dst, int width, int height,
    __constant float* taps, int value) {
  __local float4 tile[TILE_ROWS * TW4];
  const int lid = get_local_id(0);
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * TW;   // first element of the tile
  const int y0 = get_group_id(1) * TH;   // first output row of the tile

  // Phase 1: row sums of tile rows 0 .. TH + 2R - 1 (frame rows y0 - R ...).
  for (int u = lid; u < TILE_ROWS * SEGS; u += WG) {
    const int r = u / SEGS, seg = u - r * SEGS;
    const int s = x0 + seg * HV;
    if (s < n) {
      float h[HV];
      row_sums(src, y0 - RADIUS + r, s, n, width, height, taps, value, h);
      __local float4* t = tile + r * TW4 + seg * (HV / 4);
#pragma unroll
      for (int j = 0; j < HV / 4; ++j)
        t[j] = (float4)(h[4 * j], h[4 * j + 1], h[4 * j + 2], h[4 * j + 3]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Phase 2: column sums, PY rows x 4 columns per unit.
  for (int u = lid; u < (TH / PY) * TW4; u += WG) {
    const int rb = u / TW4, c4 = u - rb * TW4;
    const int e = x0 + 4 * c4;
    if (e < n) {
      float4 acc[PY];
#pragma unroll
      for (int m = 0; m < PY; ++m) acc[m] = 0.0f;
#pragma unroll
      for (int i = 0; i < PY + 2 * RADIUS; ++i) {
        const float4 v = tile[(rb * PY + i) * TW4 + c4];
#pragma unroll
        for (int m = 0; m < PY; ++m) {
          const int d = i - m - RADIUS;  // this row's distance from output row m
          if (d >= -RADIUS && d <= RADIUS) acc[m] += taps[d < 0 ? -d : d] * v;
        }
      }
#pragma unroll
      for (int m = 0; m < PY; ++m) {
        const int y = y0 + rb * PY + m;
        if (y < height) store4(dst, y, e, n, finish4(acc[m]));
      }
    }
  }
}

// Two-pass form. blur_h: one segment of one row per work-item, row sums to the ushort scratch
// (exact: at most 255 * 256).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void blur_h(
    __global const uchar* src, __global ushort* mid, int width, int height,
    __constant float* taps, int value) {
  const int n = width * CHANNELS;
  const int s = get_global_id(0) * HV;
  const int y = get_global_id(1);
  if (s >= n || y >= height) return;  // no barrier in this kernel
  float h[HV];
  row_segment(src + (size_t)y * n, s, n, width, taps, value, h);
  __global ushort* o = mid + (size_t)y * n + s;
  // h is an exact integer below 2^16: the low bits of 2^23 + h are h (no conversion).
  ushort part[HV];
#pragma unroll
  for (int j = 0; j < HV; ++j) part[j] = (ushort)as_uint(h[j] + 8388608.0f);
  if (s + HV <= n) {
#pragma unroll
    for (int j = 0; j < HV; j += 4) {
      const ushort4 v = (ushort4)(part[j], part[j + 1], part[j + 2], part[j + 3]);
#if LOADW >= 4
      *(__global ushort4*)(o + j) = v;  // rows a multiple of 4 elements: 8-byte aligned
#else
      vstore4(v, 0, o + j);
#endif
    }
  } else {
    for (int j = 0; j < n - s; ++j) o[j] = part[j];
  }
}

// blur_v: VV columns x PY rows per work-item, column sums straight from the scratch.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void blur_v(
    __global const ushort* mid, __global uchar* dst, int width, int height,
    __constant float* taps, int value) {
  const int n = width * CHANNELS;
  const int e = get_global_id(0) * VV;
  const int y0 = get_global_id(1) * PY;
  if (e >= n) return;
  const float outside = (float)(value * 256);
  float4 acc[PY][VV / 4];
#pragma unroll
  for (int m = 0; m < PY; ++m)
#pragma unroll
    for (int c = 0; c < VV / 4; ++c) acc[m][c] = 0.0f;
#pragma unroll
  for (int i = 0; i < PY + 2 * RADIUS; ++i) {
    const int by = border_index(y0 - RADIUS + i, height);
    float4 v[VV / 4];
    if (by < 0) {
#pragma unroll
      for (int c = 0; c < VV / 4; ++c) v[c] = outside;
    } else if (e + VV <= n) {
      const __global ushort* p = mid + (size_t)by * n + e;
#pragma unroll
      for (int c = 0; c < VV / 4; ++c) {
#if LOADW >= 4
        const uint4 u = convert_uint4(((const __global ushort4*)p)[c]);
#else
        const uint4 u = convert_uint4(vload4(c, p));
#endif
        v[c] = (float4)(bits_to_float(u.x), bits_to_float(u.y), bits_to_float(u.z),
                        bits_to_float(u.w));
      }
    } else {
      const __global ushort* p = mid + (size_t)by * n;
      float f[VV];
      for (int j = 0; j < VV; ++j) f[j] = e + j < n ? (float)p[e + j] : 0.0f;
#pragma unroll
      for (int c = 0; c < VV / 4; ++c)
        v[c] = (float4)(f[4 * c], f[4 * c + 1], f[4 * c + 2], f[4 * c + 3]);
    }
#pragma unroll
    for (int m = 0; m < PY; ++m) {
      const int d = i - m - RADIUS;
      if (d >= -RADIUS && d <= RADIUS) {
#pragma unroll
        for (int c = 0; c < VV / 4; ++c) acc[m][c] += taps[d < 0 ? -d : d] * v[c];
      }
    }
  }
#pragma unroll
  for (int m = 0; m < PY; ++m) {
    const int y = y0 + m;
    if (y < height) {
#pragma unroll
      for (int c = 0; c < VV / 4; ++c)
        if (e + 4 * c < n) store4(dst, y, e + 4 * c, n, finish4(acc[m][c]));
    }
  }
}
