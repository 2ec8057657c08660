// blur_strip: the tensor-core blur of blur_mma.cl (the same integers and matrix products, read
// its header first) with every intermediate in registers. Each warp owns a strip of OW output
// elements x TH rows and walks down it in bands of 16 rows: no local memory, no barrier, every
// warp on its own.
//
//   columns  A = the taps as a band matrix (16 output rows x 32 input rows, A[m][k] = t(k-m-R)),
//            B = the band's 32 input rows (its first output row - R on) x 8 columns. A block is
//            32 elements of the strip: lane (g, q) loads the 4-byte word of elements 4g..4g+3
//            from rows 4q..4q+3 and 16+4q..16+4q+3 of the window and transposes it (byte j of
//            row i to byte i of product j), so product j's column n is element 4n + j and the
//            lane's sums are elements 8q..8q+7 of rows g and g+8. The window's second half is the
//            next band's first: each band loads 16 new rows.
//   rows     A_c[m][k] = t((e(k) + 32c - HA - out(m)) / CH) (0 off the taps' grid), B = 32 column
//            sums x 8 rows, as high and low bytes (two products). The inputs need not be in
//            order: k = 4q+i is element e = 8q+i of the window and k = 16+4q+i element 8q+4+i,
//            exactly what lane q holds after the column products. So a window that starts at a
//            block is the lane's own registers, and one that starts half a block later takes
//            lanes q+2 of the block and q-2 of the next: one shuffle (lane ^ 2) per register.
//   outputs  16 per row product, at 16u (u = 0..U-1) from the strip's first output element x0;
//            their windows start at x0 - HA + 16u + 32c (c < KC). out(m) = 2m (m < 8), 2(m-8)+1:
//            lane (g, q) ends with elements 2g, 2g+1 of rows 2q, 2q+1 (one 16-bit store each).
//   result   (H + (L >> 8) + 128) >> 8 in 16-bit lanes, as blur_mma.cl.
//
// The strip loads elements x0 - HA .. x0 - HA + 32 NB - 1 (HA: the row halo R * CH rounded to
// 8, 24 or 40, so windows fall on half blocks) and writes OW = 16 U of them, U = 2 NB - HA / 8;
// rows y0 - R .. y0 + TH + 15 - R (16 per band and 16 more). Loads go through the border rule
// only in strips at the frame's edges, byte by byte only for words past a row's ends.
//
// Build options: RADIUS (<= 8), CHANNELS, BORDER_* as blur_mma.cl; NB (blocks per strip), BANDS
// (TH = 16 BANDS), WARPS per work-group, ALIGNED (rows a multiple of 4 bytes, little-endian),
// MMA_PTX, FRAG_OFF. Run time: src, dst, width, height, taps: the host's TapsBlock, whose words
// from FRAG_OFF on are the constant A operands, lane l's operand j (0: columns, 1 + c: rows,
// chunk c) at uint4 j * 32 + l (pipeline/stages/blur.cpp, stripFragments), value.

#include "border.cl"

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"
#include "warp_ops.cl"

#define HALO (RADIUS * CHANNELS)
#define HA (HALO <= 8 ? 8 : 8 + (HALO - 8 + 15) / 16 * 16)  // 8, 24 or 40
#define KC ((HA + 8) / 16)                                  // 32-element chunks per row product
#define U (2 * NB - HA / 8)                                 // row products per band and row set
#define OW (16 * U)
#define TH (16 * BANDS)

#if 16 + 2 * RADIUS > 32 || HA > 40 || U < 1
#error "blur_strip: RADIUS <= 8, RADIUS * CHANNELS <= 40, NB > HA / 16"
#endif

// Words at element e of source rows y..y+3.
inline uint4 load_rows(__global const uchar* src, int y, int e, int n, int width, int height,
                       int value) {
  return (uint4)(load_word(src, y, e, n, width, height, value),
                 load_word(src, y + 1, e, n, width, height, value),
                 load_word(src, y + 2, e, n, width, height, value),
                 load_word(src, y + 3, e, n, width, height, value));
}

// dst[b] = the words at element xs + 32b + 4g of rows y..y+3, for every block b; interior
// strips (`inside`, the same for the whole warp) issue them all as plain loads.
#define LOAD_ROWS(dst, y)                                                           \
  do {                                                                              \
    if (inside) {                                                                   \
      UNROLL                                                                        \
      for (int b = 0; b < NB; ++b) {                                                \
        const __global uint* a =                                                    \
            (const __global uint*)(src + (size_t)(y)*n + xs + 32 * b + 4 * g);      \
        dst[b] = (uint4)(a[0], a[n / 4], a[n / 2], a[3 * (n / 4)]);                 \
      }                                                                             \
    } else {                                                                        \
      UNROLL                                                                        \
      for (int b = 0; b < NB; ++b)                                                  \
        dst[b] = load_rows(src, (y), xs + 32 * b + 4 * g, n, width, height, value); \
    }                                                                               \
  } while (0)

__kernel __attribute__((reqd_work_group_size(32, WARPS, 1))) void blur_strip(
    __global const uchar* src, __global uchar* dst, int width, int height,
    __global const uint* taps, int value) {
  WARP_OPS_LOCALS;
  // A work-group is WARPS strips one above the other (neighbours share their halo rows while
  // they run on the same compute unit); warps past the frame's last strip compute that strip
  // and store nothing.
  const int lane = get_local_id(0), warp = get_local_id(1);
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  const int syn = (height + TH - 1) / TH, sy0 = get_group_id(1) * WARPS + warp;
  const bool live = sy0 < syn;
  const int x0 = get_group_id(0) * OW, y0 = min(sy0, syn - 1) * TH, xs = x0 - HA;
  const bool inside =
      ALIGNED && xs >= 0 && xs + 32 * NB <= n && y0 >= RADIUS && y0 + TH + 16 - RADIUS <= height;
  const bool plain = inside && live;  // every output of the strip stored as a whole 16-bit word

  const __global uint4* frag = (const __global uint4*)(taps + FRAG_OFF);
  const uint4 av = frag[lane];
  uint4 ah[KC];
  UNROLL
  for (int c = 0; c < KC; ++c) ah[c] = frag[(1 + c) * 32 + lane];

  // cur[b]: the four products' b.x (window rows 4q..4q+3) of block b; w: the words of rows
  // 16+4q..16+4q+3 of the band's window. (cur is loaded as words and transposed only once the
  // first band's loads are issued too: a transpose before them would hold them back until these
  // arrive.)
  uint4 cur[NB], w[NB];
  LOAD_ROWS(cur, y0 - RADIUS + 4 * q);

#pragma unroll 1
  for (int p = 0; p < BANDS; ++p) {
    const int yb = y0 + 16 * p;  // the band's first output row
    LOAD_ROWS(w, yb + 16 - RADIUS + 4 * q);
    if (p == 0) {
      UNROLL
      for (int b = 0; b < NB; ++b) cur[b] = transpose4(cur[b]);
    }

    // Block by block (so few blocks' sums are live at once): the column products, then every
    // row product whose windows now lie in the blocks done. hi[b][s], lo[b][s]: rows g (s = 0)
    // and g + 8 (s = 1) of block b, inputs 8q..8q+3 in .x and 8q+4..8q+7 in .y; hih, loh: the
    // windows half a block on (block b's lanes q+2 for lanes q < 2, block b+1's lanes q-2 for
    // lanes q >= 2: each lane sends what its partner needs).
    uint2 hi[NB][2], lo[NB][2], hih[NB][2], loh[NB][2];
    UNROLL
    for (int b = 0; b < NB; ++b) {
      const uint4 nx = transpose4(w[b]);  // b.y: window rows 16+4q..
      uint4 d0, d1, d2, d3;
      MMA4(d0, d1, d2, d3, av, cur[b], nx);
      cur[b] = nx;
      const uint2 rx = split_bytes(d0.x, d1.x, d2.x, d3.x);  // row g, 8q..8q+3
      const uint2 ry = split_bytes(d0.y, d1.y, d2.y, d3.y);  // row g, 8q+4..8q+7
      const uint2 rz = split_bytes(d0.z, d1.z, d2.z, d3.z);  // row g+8
      const uint2 rw = split_bytes(d0.w, d1.w, d2.w, d3.w);
      hi[b][0] = (uint2)(rx.x, ry.x);
      lo[b][0] = (uint2)(rx.y, ry.y);
      hi[b][1] = (uint2)(rz.x, rw.x);
      lo[b][1] = (uint2)(rz.y, rw.y);
      if (b > 0) {
        UNROLL
        for (int s = 0; s < 2; ++s) {
          const uint2 h = q >= 2 ? hi[b - 1][s] : hi[b][s], l = q >= 2 ? lo[b - 1][s] : lo[b][s];
          hih[b - 1][s] = (uint2)(SHFL_XOR(h.x, 2), SHFL_XOR(h.y, 2));
          loh[b - 1][s] = (uint2)(SHFL_XOR(l.x, 2), SHFL_XOR(l.y, 2));
        }
      }

      // Rows: outputs 16u.. of rows 8s.. of the band, for the two u whose last block is b (a
      // loop of fixed count, so NVIDIA's compiler unrolls it before the block loop and every
      // array index becomes a constant; a u out of range computes u clamped and stores nothing:
      // on NVIDIA dead code, emulated no barrier under a condition).
      UNROLL
      for (int k = 0; k < 4; ++k) {
        const int uk = 2 * (b - KC) + 1 + (k >> 1), s = k & 1;
        const int u = clamp(uk, 0, U - 1);
        uint4 hs = (uint4)(0u), ls = (uint4)(0u);
        UNROLL
        for (int c = 0; c < KC; ++c) {
          const int bw = (u >> 1) + c;
          MMA(hs, ah[c], (u & 1) ? hih[bw][s] : hi[bw][s]);
          MMA(ls, ah[c], (u & 1) ? loh[bw][s] : lo[bw][s]);
        }
        const uint o = rows_result(hs, ls);
        const int x = x0 + 16 * u + 2 * g, y = yb + 8 * s + 2 * q;
        if (uk == u && live) {  // (a clamped u, or a spare warp, stores nothing)
          store_run(dst, y, x, n, height, o, plain, 2);
          store_run(dst, y + 1, x, n, height, o >> 16, plain, 2);
        }
      }
    }
  }
}
