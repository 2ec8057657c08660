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
// - EXACT (scale == 1) is a build option: the host builds both programs and launches the one
//   for the current scale, so the scale stays live and each kernel gets the registers of its
//   own path (one kernel with both paths ran at the larger path's register count).
//
// - H2 (ksize 3, one channel, modes mag/x/y, at scale 1): pairs of 16-bit floats (f16x2)
//   hold two neighbouring pixels, so each instruction computes two outputs, and the bytes go in
//   and out by byte permutes, with no conversion instruction. See strip_h2.
//
// Build options: -DKSIZE=1|3 -DCH=1|3|4 -DVX=4|8|16 -DPY -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP} [-DSLIDE_PIXELS]
//                -DEXACT=0|1 [-DH2 [-DH2_PTX]]
// Run time:      the smoothing taps times scale (centre first), the border value.

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
// must stay in registers), packed into words for store_words (one 4-, 8- or 16-byte store; some
// compilers split a uchar16 store into 4-byte pieces).
#define PACK4(o, i) as_uint((uchar4)(o[i], o[i + 1], o[i + 2], o[i + 3]))

#define BIAS 0x1.0p23f

// The byte at byte column bc (may lie outside the row) of source row sy (-1: a constant row).
inline uint fetch_byte(__global const uchar* src, int bc, int sy, int width, int value) {
  const int t = bc + HB;  // >= 0 for every column a work-item reads, so / and % floor
  const int sx = border_index(t / CH - R, width);
  if (sx < 0 || sy < 0) return (uint)value;
  return src[(sy * width + sx) * CH + t % CH];
}

// The halo bytes j0 .. j0 + HB - 1 (relative to x0) of source row sy through the border rule,
// at the byte positions they take in load_row's outer word (j0 = -HB: the left word, VX: the
// right one).
inline uint halo_word(__global const uchar* src, int x0, int j0, int sy, int width, int value) {
  uint v = 0;
#pragma unroll
  for (int j = j0; j < j0 + HB; ++j)
    v |= fetch_byte(src, x0 + j, sy, width, value) << (8 * ((j + 4) % 4));
  return v;
}

// The bytes x0 - 4 ... x0 + VX + 3 of source row sy as NW little-endian words (only the HB
// bytes next to the vector are used from the outer words). vec: the VX bytes lie in the row and
// rows start VX-aligned, so they are one aligned vector load; the neighbour words are aligned
// word loads too, except at the row's two ends, where only their HB bytes are fetched through
// the border rule (one work-item per row: its warp waits for a few byte loads, not for the
// whole row byte by byte).
inline void load_row(__global const uchar* src, uint* w, int x0, int sy, int width, int rowBytes,
                     int value, bool vec) {
  if (sy < 0) {
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = (uint)value * 0x01010101u;
  } else if (vec) {
    __global const uchar* p = src + sy * rowBytes + x0;
    w[0] = x0 >= 4 ? *(__global const uint*)(p - 4) : halo_word(src, x0, -HB, sy, width, value);
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
    w[NW - 1] = x0 + VX + 4 <= rowBytes ? *(__global const uint*)(p + VX)
                                        : halo_word(src, x0, VX, sy, width, value);
  } else {
    // Rows that do not start on a VX-byte boundary, and the row's last, partial vector: byte
    // by byte through the border rules. Only the bytes the taps read.
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

// The VX output bytes of a row as VX/4 words (lowest byte first): aligned, one vector store;
// else byte by byte up to the row's end (constant indices: `w` stays in registers on GPUs).
inline void store_words(__global uchar* o, const uint* w, bool aligned, int x0, int rowBytes) {
  if (aligned) {
#if VX == 4
    *(__global uint*)o = w[0];
#elif VX == 8
    *(__global uint2*)o = (uint2)(w[0], w[1]);
#else
    *(__global uint4*)o = (uint4)(w[0], w[1], w[2], w[3]);
#endif
  } else {
#pragma unroll
    for (int i = 0; i < VX; ++i)
      if (x0 + i < rowBytes) o[i] = (uchar)(w[i / 4] >> (8 * (i % 4)));
  }
}

inline void store_row(__global uchar* o, const uchar* out, bool aligned, int x0, int rowBytes) {
  uint w[VX / 4];
#pragma unroll
  for (int k = 0; k < VX / 4; ++k) w[k] = PACK4(out, 4 * k);
  store_words(o, w, aligned, x0, rowBytes);
}

#if !defined(SLIDE_PIXELS)
// slide=taps. The whole strip of a work-item; `exact` is a constant in each of the two inlined
// copies. The horizontal taps of rows y-1 and y slide through registers (4 x VX floats).
inline void strip(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                  int height, float4 taps, int value, bool exact, int x0, int y0) {
  const int rowBytes = width * CH;
  // The vector and both neighbour words lie inside the row, and every row starts VX-aligned
  // (buffers start aligned).
  // The vector lies in the row and rows start VX-aligned: vector loads and stores.
  const bool vec = x0 + VX <= rowBytes && rowBytes % VX == 0;
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
    load_row(src, w, x0, border_index(y0 + step - R, height), width, rowBytes, value, vec);
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
      store_row(dst + y * rowBytes + x0, out, vec, x0, rowBytes);
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
  // The vector lies in the row and rows start VX-aligned: vector loads and stores.
  const bool vec = x0 + VX <= rowBytes && rowBytes % VX == 0;
  uint w[NW];
  float p0[NB], p1[NB], p2[NB];
  load_row(src, w, x0, border_index(y0 - 1, height), width, rowBytes, value, vec);
  to_floats(w, p0);
  load_row(src, w, x0, border_index(y0, height), width, rowBytes, value, vec);
  to_floats(w, p1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;
    if (y >= height) break;
    load_row(src, w, x0, border_index(y + 1, height), width, rowBytes, value, vec);
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
    store_row(dst + y * rowBytes + x0, out, vec, x0, rowBytes);
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      p0[j] = p1[j];
      p1[j] = p2[j];
    }
  }
}
#endif

#if defined(H2) && KSIZE == 3 && CH == 1 && !defined(MODE_L2) && VX >= 8
#define USE_H2 1
// Pairs of IEEE halves in a uint (low half first). Every value strip_h2 computes is an integer
// of magnitude < 2048 or 1024 + n/2 for an integer n < 512, so each operation below is exact or
// rounds once, half to even, as the f16 instruction does. H2_PTX: NVIDIA's f16x2 instructions
// through inline PTX (its OpenCL has no cl_khr_fp16; min.f16x2 needs compute capability 8.0).
// Otherwise the same operations in float, converted by vload_half2/vstore_half2_rte (core
// OpenCL), so the lane layout and the arithmetic are tested on any device.
#if defined(H2_PTX)
inline uint h2_add(uint a, uint b) {
  uint d;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
inline uint h2_sub(uint a, uint b) {
  uint d;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
inline uint h2_fma(uint a, uint b, uint c) {
  uint d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
// min(|a|, cap): the abs folds into the min's operand on sm_80+.
inline uint h2_absmin(uint a, uint cap) {
  uint d;
  asm("{.reg .b32 t;\n\tabs.f16x2 t, %1;\n\tmin.f16x2 %0, t, %2;}" : "=r"(d) : "r"(a), "r"(cap));
  return d;
}
#else
inline float2 h2_f(uint a) { return vload_half2(0, (const __private half*)&a); }
inline uint h2_u(float2 v) {
  uint d;
  vstore_half2_rte(v, 0, (__private half*)&d);
  return d;
}
inline uint h2_add(uint a, uint b) { return h2_u(h2_f(a) + h2_f(b)); }
inline uint h2_sub(uint a, uint b) { return h2_u(h2_f(a) - h2_f(b)); }
inline uint h2_fma(uint a, uint b, uint c) { return h2_u(fma(h2_f(a), h2_f(b), h2_f(c))); }
inline uint h2_absmin(uint a, uint cap) { return h2_u(fmin(fabs(h2_f(a)), h2_f(cap))); }
#endif
#if defined(H2_PTX)
#define PERM_PTX 1
#endif
#include "byte_perm.cl"

#define H2_TWO 0x40004000u    // (2, 2)
#define H2_HALF 0x38003800u   // (0.5, 0.5)
#define H2_1024 0x64006400u   // (1024, 1024)
#define H2_M3072 0xEA00EA00u  // (-3072, -3072)
#define H2_255 0x5BF85BF8u    // (255, 255)
#define H2_BYTES 0x64646464u  // a byte under 0x64 is the half 1024 + byte
#define NP (VX / 2)           // pairs of output columns per work-item

// The horizontal taps of one loaded row (words as load_row leaves them) for the NP output pairs:
// pair k covers columns 2k, 2k+1. With p the half 1024 + byte:
//   W[k + 1] = (p[2k], p[2k+1])       two bytes under the exponent of 1024: one permute
//   S[k]     = (p[2k-1], p[2k])       the high lane of W[k], the low lane of W[k+1]: one permute
//   d[k] = S[k+1] - S[k]              = p[x+1] - p[x-1], the bias cancels: exact, |d| <= 255
//   s[k] = (2 W[k+1] - 3072) + S[k] + S[k+1]
//        = 1024 + p[x-1] + 2 p[x] + p[x+1] (unbiased bytes), each step an integer below 2048:
//          exact (the bias cancels again in gy = s(y+1) - s(y-1))
inline void h2_taps(const uint* w, uint* d, uint* s) {
  uint W[NP + 2], S[NP + 1];
  W[0] = perm(w[0], H2_BYTES, 0x4342u);  // bytes -2, -1
#pragma unroll
  for (int i = 0; i < VX / 4; ++i) {
    W[1 + 2 * i] = perm(w[1 + i], H2_BYTES, 0x4140u);
    W[2 + 2 * i] = perm(w[1 + i], H2_BYTES, 0x4342u);
  }
  W[NP + 1] = perm(w[NW - 1], H2_BYTES, 0x4140u);  // bytes VX, VX + 1
#pragma unroll
  for (int k = 0; k <= NP; ++k) S[k] = perm(W[k], W[k + 1], 0x5432u);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
#if defined(NEED_GX)
    d[k] = h2_sub(S[k + 1], S[k]);
#endif
#if defined(NEED_GY)
    s[k] = h2_add(h2_add(h2_fma(W[k + 1], H2_TWO, H2_M3072), S[k]), S[k + 1]);
#endif
  }
}

// A work-item's strip at scale 1: each row's taps once, three rows' taps sliding down; per
// output pair gx = d(y-1) + 2 d(y) + d(y+1) and gy = s(y+1) - s(y-1), |g| <= 1020, exact; the
// output is the half 1024 + n whose low byte is n: mag (a + b) / 2 rounded half to even by one
// FMA, as addWeighted; x, y: a or b. Two pairs' low bytes make two bytes of the stored word.
// The rows load one after another: issuing every row's loads first takes more registers, and
// the warps lost to them cost more than the overlap gains.
inline void strip_h2(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                     int height, int value, int x0, int y0) {
  const bool vec = x0 + VX <= width && width % VX == 0;
  uint w[NW], d0[NP], d1[NP], d2[NP], s0[NP], s1[NP], s2[NP];
  load_row(src, w, x0, border_index(y0 - 1, height), width, width, value, vec);
  h2_taps(w, d0, s0);
  load_row(src, w, x0, border_index(y0, height), width, width, value, vec);
  h2_taps(w, d1, s1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    // No early exit past the frame's last row: rows past it are read folded (valid memory)
    // and not stored.
    const int y = y0 + r;
    load_row(src, w, x0, border_index(y + 1, height), width, width, value, vec);
    h2_taps(w, d2, s2);
    uint o[NP], out[VX / 4];
#pragma unroll
    for (int k = 0; k < NP; ++k) {
#if defined(NEED_GX)
      const uint a = h2_absmin(h2_add(h2_fma(d1[k], H2_TWO, d0[k]), d2[k]), H2_255);
#endif
#if defined(NEED_GY)
      const uint b = h2_absmin(h2_sub(s2[k], s0[k]), H2_255);
#endif
#if defined(MODE_X)
      o[k] = h2_add(a, H2_1024);
#elif defined(MODE_Y)
      o[k] = h2_add(b, H2_1024);
#else
      o[k] = h2_fma(h2_add(a, b), H2_HALF, H2_1024);
#endif
    }
#pragma unroll
    for (int i = 0; i < VX / 4; ++i) out[i] = perm(o[2 * i], o[2 * i + 1], 0x6420u);
    if (y < height) store_words(dst + y * width + x0, out, vec, x0, width);
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      d0[k] = d1[k];
      d1[k] = d2[k];
      s0[k] = s1[k];
      s1[k] = s2[k];
    }
  }
}
#endif

#if !defined(EXACT)
#error "define EXACT=1 (scale 1) or EXACT=0"
#endif

__kernel void sobel(__global const uchar* restrict src, __global uchar* restrict dst, int width,
                    int height, float4 taps, int value) {
  const int x0 = get_global_id(0) * VX;          // first byte column of the work-item
  const int y0 = get_global_id(1) * PY;          // first output row
  if (x0 >= width * CH || y0 >= height) return;  // the rounded-up global size (no barriers)
#if EXACT && USE_H2
  (void)taps;
  strip_h2(src, dst, width, height, value, x0, y0);
#else
  strip(src, dst, width, height, taps, value, EXACT, x0, y0);
#endif
}
