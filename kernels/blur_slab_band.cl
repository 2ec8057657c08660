// The tensor-core blur's arithmetic, band by band (kernels/blur_slab.cl's header describes the
// fragments, the slabs and the column window): its geometry, its constant operands and the
// products that make one band's 16 rows x NS sets of 16 blurred bytes. Shared by blur_slab.cl
// (the bands stored to the frame) and blur_sobel_slab.cl (the bands blurred into the sobel's
// tile). Needs RADIUS, CHANNELS, NS, FRAG_LOCAL, WARPS, UNROLL, MMA and MMA4 (warp_ops.cl), perm
// (byte_perm.cl).

#ifndef VF_BLUR_SLAB_BAND_CL
#define VF_BLUR_SLAB_BAND_CL

#define HALO (RADIUS * CHANNELS)
#define HA (HALO <= 8 ? 8 : 8 + (HALO - 8 + 15) / 16 * 16)      // row halo: 8, 24, 40, ...
#define KC ((HA + 8) / 16)                                      // 32-element chunks per row product
#define NW (NS + 2 * KC - 1)                                    // words a lane loads per row
#define HR (RADIUS <= 8 ? 8 : 8 + (RADIUS - 8 + 15) / 16 * 16)  // column halo: 8, 24, 40, ...
#define NP (((HR + 16 + RADIUS + 15) / 16 + 1) / 2 * 2)         // pairs of slabs per window
#define KR (NP / 2)                                             // 32-row chunks per column product
#define OW (16 * NS)

#if NS < 1 || RADIUS < 1
#error "blur_slab_band: RADIUS >= 1, NS >= 1"
#endif

// The constant A operands from frag (the host's TapsBlock::frag): av[c] the column products'
// chunk c, AH(c) the row products'. With FRAG_LOCAL the row operands are read from local memory
// at each use (registers go to the window instead); every work-item of the group runs it (a
// barrier). Needs warp and lane in scope.
#if FRAG_LOCAL
#define SLAB_OPERANDS(frag)                                                                 \
  uint4 av[KR];                                                                             \
  UNROLL                                                                                    \
  for (int c = 0; c < KR; ++c) av[c] = (frag)[c * 32 + lane];                               \
  __local uint4 ah_local[KC * 32];                                                          \
  for (int i = warp * 32 + lane; i < KC * 32; i += WARPS * 32) ah_local[i] = (frag)[KR * 32 + i]; \
  barrier(CLK_LOCAL_MEM_FENCE)
#define AH(c) ah_local[(c)*32 + lane]
#else
#define SLAB_OPERANDS(frag)                                   \
  uint4 av[KR];                                               \
  UNROLL                                                      \
  for (int c = 0; c < KR; ++c) av[c] = (frag)[c * 32 + lane]; \
  uint4 ah[KC];                                               \
  UNROLL                                                      \
  for (int c = 0; c < KC; ++c) ah[c] = (frag)[(KR + c) * 32 + lane]
#define AH(c) ah[c]
#endif

// d = the row products of set u on the slab whose words are w.
#define ROW_SUMS(d, w, u)                                                                    \
  do {                                                                                       \
    d = (uint4)(0u);                                                                         \
    UNROLL                                                                                   \
    for (int c = 0; c < KC; ++c) MMA(d, AH(c), (uint2)(w[(u) + 2 * c], w[(u) + 2 * c + 1])); \
  } while (0)

// pair = set u's B words for 16 window rows (the slabs whose words are wa and wb): the high and
// low bytes of the row sums at elements e(g) (.x, .y) and e(g + 8) (.z, .w).
#define ROW_PAIR(pair, u)                                                                     \
  do {                                                                                        \
    uint4 da, db;                                                                             \
    ROW_SUMS(da, wa, u);                                                                      \
    ROW_SUMS(db, wb, u);                                                                      \
    pair = (uint4)(split_bytes(da.x, da.y, db.x, db.y), split_bytes(da.z, da.w, db.z, db.w)); \
  } while (0)

// Window pair i of set u: the NP - 1 pairs held from earlier bands, then this band's new one.
#define WINDOW_PAIR(u, i, nx) ((i) < NP - 1 ? pr[u][(i) < NP - 1 ? (i) : 0] : (nx))

// Step p of a strip's walk (p < 0: filling the window; p >= 0: band p) on this band's words wa,
// wb: each set's row products, and from p = 0 the band's blurred bytes, set u's 16 bytes of row r
// as words out[r * stride + 4 u .. + 3]; the window pr (uint4 pr[NS][NP - 1]) moves on a pair.
#define BLUR_BAND(p, out, stride)                                                              \
  do {                                                                                         \
    UNROLL                                                                                     \
    for (int u = 0; u < NS; ++u) {                                                             \
      uint4 nx;                                                                                \
      ROW_PAIR(nx, u);                                                                         \
      if ((p) >= 0) {                                                                          \
        uint4 h0 = (uint4)(0u), l0 = (uint4)(0u), h1 = (uint4)(0u), l1 = (uint4)(0u);          \
        UNROLL                                                                                 \
        for (int c = 0; c < KR; ++c)                                                           \
          MMA4(h0, l0, h1, l1, av[c], WINDOW_PAIR(u, 2 * c, nx), WINDOW_PAIR(u, 2 * c + 1, nx)); \
        /* Rows g (.x, .y) and g + 8 (.z, .w): elements 4q, 4q+1 from the first pair of        \
           products, 4q+2, 4q+3 from the second. */                                            \
        const uint o0 =                                                                        \
            perm(round_pair(h0.x, h0.y, l0.x, l0.y), round_pair(h1.x, h1.y, l1.x, l1.y), 0x7531u); \
        const uint o1 =                                                                        \
            perm(round_pair(h0.z, h0.w, l0.z, l0.w), round_pair(h1.z, h1.w, l1.z, l1.w), 0x7531u); \
        (out)[g * (stride) + 4 * u + q] = o0;                                                  \
        (out)[(8 + g) * (stride) + 4 * u + q] = o1;                                            \
      }                                                                                        \
      UNROLL                                                                                   \
      for (int i = 0; i + 1 < NP - 1; ++i) pr[u][i] = pr[u][i + 1];                            \
      pr[u][NP - 2] = nx;                                                                      \
    }                                                                                          \
  } while (0)

#endif
