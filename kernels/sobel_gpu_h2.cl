// sobel, "direct" schedule (kernels/sobel_gpu.cl), the H2 strip: ksize 3, modes x, y and mag at
// scale 1, two neighbouring bytes (channel samples) per instruction in pairs of 16-bit floats.
// Included by sobel_gpu.cl after its loads, stores and modes; defines USE_H2 when it applies.

#if defined(H2) && KSIZE == 3 && !defined(MODE_L2) && VX >= 8
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

#define H2_TWO 0x40004000u    // (2, 2)
#define H2_HALF 0x38003800u   // (0.5, 0.5)
#define H2_1024 0x64006400u   // (1024, 1024)
#define H2_M3072 0xEA00EA00u  // (-3072, -3072)
#define H2_255 0x5BF85BF8u    // (255, 255)
#define H2_BYTES 0x64646464u  // a byte under 0x64 is the half 1024 + byte
#define NP (VX / 2)           // pairs of output columns per work-item

// The horizontal taps of one loaded row (words as load_row leaves them) for the NP output pairs:
// pair k covers byte columns 2k, 2k+1, whose horizontal neighbours lie CH bytes to each side.
// With p the half 1024 + byte:
//   W[j]      = (p[2j-4], p[2j-3])   two bytes under the exponent of 1024: one permute (pair k
//                                    is W[k+2]; the halo word on each side gives two more)
//   L[k], R[k] = (p[x-CH], p[x+1-CH]) and (p[x+CH], p[x+1+CH]) for x = 2k: a pair W[j] where CH
//                is even, else the high lane of one pair and the low lane of the next (a permute)
//   d[k] = R[k] - L[k]                = p[x+CH] - p[x-CH], the bias cancels: exact, |d| <= 255
//   s[k] = (2 W[k+2] - 3072) + L[k] + R[k]
//        = 1024 + p[x-CH] + 2 p[x] + p[x+CH] (unbiased bytes), each step an integer below 2048:
//          exact (the bias cancels again in gy = s(y+1) - s(y-1))
#if CH % 2 == 0
#define H2_LEFT(W, k) W[(k) + 2 - CH / 2]
#define H2_RIGHT(W, k) W[(k) + 2 + CH / 2]
#else
#define H2_LEFT(W, k) perm(W[(k) + (3 - CH) / 2], W[(k) + (5 - CH) / 2], 0x5432u)
#define H2_RIGHT(W, k) perm(W[(k) + (CH + 3) / 2], W[(k) + (CH + 5) / 2], 0x5432u)
#endif
inline void h2_taps(const uint* w, uint* d, uint* s) {
  uint W[NP + 4];
  W[0] = perm(w[0], H2_BYTES, 0x4140u);  // bytes -4, -3
  W[1] = perm(w[0], H2_BYTES, 0x4342u);  // bytes -2, -1
#pragma unroll
  for (int i = 0; i < VX / 4; ++i) {
    W[2 + 2 * i] = perm(w[1 + i], H2_BYTES, 0x4140u);
    W[3 + 2 * i] = perm(w[1 + i], H2_BYTES, 0x4342u);
  }
  W[NP + 2] = perm(w[NW - 1], H2_BYTES, 0x4140u);  // bytes VX, VX + 1
  W[NP + 3] = perm(w[NW - 1], H2_BYTES, 0x4342u);  // bytes VX + 2, VX + 3
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const uint l = H2_LEFT(W, k), r = H2_RIGHT(W, k);
#if defined(NEED_GX)
    d[k] = h2_sub(r, l);
#endif
#if defined(NEED_GY)
    s[k] = h2_add(h2_add(h2_fma(W[k + 2], H2_TWO, H2_M3072), l), r);
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
                     int height, int pitch, int value, int x0, int y0, int skip PRO_DECL EPI_DECL) {
  const int rowBytes = width * CH;
  const bool vec = x0 + VX <= rowBytes;
  uint w[NW], d0[NP], d1[NP], d2[NP], s0[NP], s1[NP], s2[NP];
  load_row(src, w, x0, border_index(y0 - 1, height), width, height, rowBytes, pitch, value,
           vec PRO_PASS);
  h2_taps(w, d0, s0);
  load_row(src, w, x0, border_index(y0, height), width, height, rowBytes, pitch, value,
           vec PRO_PASS);
  h2_taps(w, d1, s1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    // No early exit past the frame's last row: rows past it are read folded (valid memory)
    // and not stored.
    const int y = y0 + r;
    load_row(src, w, x0, border_index(y + 1, height), width, height, rowBytes, pitch, value,
             vec PRO_PASS);
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
    if (y < height)
      store_words(dst, y * pitch + x0, out, skip, min(VX, rowBytes - x0), pitch - x0 EPI_PASS);
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
