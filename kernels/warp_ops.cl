// Warp-level operations of the tensor-core blur (blur_slab.cl): the 8-bit matrix product, a
// warp's barrier, the rounding and the byte split of row sums (both need perm, byte_perm.cl).
// The memory side is slab_io.cl.
//
// mma_u8(c, a, b): c += A * B for one warp, A 16x32 and B 32x8 8-bit unsigned, c 16x8 32-bit,
// in the fragments of PTX's mma.m16n8k32 (lane = 4 g + q; A: a.x row g, bytes k = 4q..4q+3, a.y
// row g+8, a.z and a.w the same rows at k + 16; B: b.x column g, k = 4q..4q+3, b.y k + 16; c.x
// (row g, column 2q), c.y (g, 2q+1), c.z (g+8, 2q), c.w (g+8, 2q+1)); mma_s8(c, a, b) the same
// with A's bytes signed (MMA_S). MMA_PTX 1: mma.sync in
// inline PTX (NVIDIA, compute capability 8.0+). 0: emulated in OpenCL C through local memory;
// then MMA() needs `scratch` (192 words per warp), `warp` and `lane` in scope, and every
// work-item of the group must reach each call (it holds two barriers).

#ifndef VF_WARP_OPS_CL
#define VF_WARP_OPS_CL

// UNROLL: full unrolling on NVIDIA (the warp-level kernels' arrays stay in registers); emulated,
// loops (PoCL would build every emulated product, with its barriers, once per unrolled call).
#if MMA_PTX
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("unroll 1")
#endif

// The emulation's local memory (MMA_PTX 0), declared at the top of a kernel whose warps call
// MMA.
#if MMA_PTX
#define WARP_OPS_LOCALS
#else
#define WARP_OPS_LOCALS __local uint scratch[WARPS * 192]
#endif

#if MMA_PTX
// One mma.sync with A's bytes of type `atype` ("u8" or "s8").
#define VF_MMA_FN(name, atype)                                                              \
  inline void name(uint4* c, uint4 a, uint2 b) {                                            \
    uint d0, d1, d2, d3;                                                                    \
    asm("mma.sync.aligned.m16n8k32.row.col.s32." atype                                      \
        ".u8.s32 {%0, %1, %2, %3}, "                                                        \
        "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                                 \
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)                                            \
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y), "r"(c->x), "r"(c->y), \
          "r"(c->z), "r"(c->w));                                                            \
    *c = (uint4)(d0, d1, d2, d3);                                                           \
  }
VF_MMA_FN(mma_u8, "u8")
VF_MMA_FN(mma_s8, "s8")
#define MMA(c, a, b) mma_u8(&(c), (a), (b))
#define MMA_S(c, a, b) mma_s8(&(c), (a), (b))
#else
// The warp's A and B through local memory `s` (192 words per warp), then each lane's four sums;
// A's bytes signed where `sa`. Every work-item of the group calls it equally often (the unit
// loops below are uniform).
inline void mma_emulated(uint4* c, uint4 a, uint2 b, __local uint* s, int lane, bool sa) {
  const int g = lane >> 2, q = lane & 3;
  __local uint* A = s;        // 16 rows x 8 words
  __local uint* B = s + 128;  // 8 columns x 8 words
  A[g * 8 + q] = a.x;
  A[(g + 8) * 8 + q] = a.y;
  A[g * 8 + 4 + q] = a.z;
  A[(g + 8) * 8 + 4 + q] = a.w;
  B[g * 8 + q] = b.x;
  B[g * 8 + 4 + q] = b.y;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r[4] = {c->x, c->y, c->z, c->w};
  for (int i = 0; i < 4; ++i) {
    const int m = i < 2 ? g : g + 8, n = 2 * q + (i & 1);
    for (int w = 0; w < 8; ++w) {
      const uint x = A[m * 8 + w], y = B[n * 8 + w];
      for (int j = 0; j < 32; j += 8) {
        const uint ab = (x >> j) & 0xFFu;
        r[i] += (sa ? (uint)(int)(char)ab : ab) * ((y >> j) & 0xFFu);
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  *c = (uint4)(r[0], r[1], r[2], r[3]);
}
#define MMA(c, a, b) mma_emulated(&(c), (a), (b), scratch + warp * 192, lane, false)
#define MMA_S(c, a, b) mma_emulated(&(c), (a), (b), scratch + warp * 192, lane, true)
#endif

// d0..d3 += A * (lo.k, hi.k) for k = x, y, z, w: four products (op: MMA or MMA_S) with one A,
// the two halves of each B operand taken from two uint4s (the column products).
#define MMA4_OP(op, d0, d1, d2, d3, a, lo, hi) \
  do {                                         \
    op(d0, a, (uint2)((lo).x, (hi).x));        \
    op(d1, a, (uint2)((lo).y, (hi).y));        \
    op(d2, a, (uint2)((lo).z, (hi).z));        \
    op(d3, a, (uint2)((lo).w, (hi).w));        \
  } while (0)
#define MMA4(d0, d1, d2, d3, a, lo, hi) MMA4_OP(MMA, d0, d1, d2, d3, a, lo, hi)

// WARP_SYNC(): the warp's local-memory writes before it are seen by its lanes' reads after it
// (every lane of the warp calls it together). MMA_PTX 1: bar.warp.sync; 0: a barrier of the
// whole group (every work-item of the group must reach it).
#if MMA_PTX
#define WARP_SYNC() asm volatile("bar.warp.sync 0xffffffff;" ::: "memory")
#else
#define WARP_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif

// Two outputs' H + (L >> 8) + 128 in 16-bit lanes (the first output's sums h0, l0 in the low
// lane): each output is then the lane's high byte (byte 1 and byte 3).
inline uint round_pair(uint h0, uint h1, uint l0, uint l1) {
  return perm(h0, h1, 0x5410u) + perm(l0, l1, 0x6521u) + 0x00800080u;
}

// Sums d0..d3 (their low 16 bits) as the high (.x) and low (.y) bytes of four consecutive
// inputs.
inline uint2 split_bytes(uint d0, uint d1, uint d2, uint d3) {
  const uint p0 = perm(d0, d1, 0x5410u), p1 = perm(d2, d3, 0x5410u);
  return (uint2)(perm(p0, p1, 0x7531u), perm(p0, p1, 0x6420u));
}

#endif
