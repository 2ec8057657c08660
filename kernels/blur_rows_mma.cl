// blur_rows_mma: the second pass of the blur's two-pass form (passes=2) on the tensor cores:
// the row sums of the 16-bit column sums that blur_gpu.cl's blur_cols wrote, as the row products
// of blur_strip.cl (read its header), whose B operands here come straight from the scratch.
//
// A warp owns 8 rows (B's columns: lane (g, q) reads row g) and RG groups of 16 outputs. For
// group u (outputs x0 + 16u ..) and chunk c, the window of 32 inputs starts HA before the
// outputs plus 32c (so windows start every 16 outputs, and group u + 2 reads chunk c's window as
// its chunk c - 1); lane q loads its 8 consecutive column sums, 8q..8q+7 of a window, as one
// 16-byte load, and their high and low bytes are already the B fragments in blur_strip.cl's
// input order (k = 4q+i: element 8q+i; k = 16+4q+i: element 8q+4+i), so the constant A operands
// are blur_strip.cl's (the host's stripFragments). Result and stores as blur_strip.cl.
//
// Build options: RADIUS (<= 8), CHANNELS, BORDER_*, WARPS, RG, ALIGNED (scratch rows a multiple
// of 16 bytes, little-endian), MMA_PTX, FRAG_OFF. Run time: mid (the scratch), dst, width,
// height, taps (the TapsBlock), value.

#include "border.cl"

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"
#include "warp_ops.cl"

#define HALO (RADIUS * CHANNELS)
#define HA (HALO <= 8 ? 8 : 8 + (HALO - 8 + 15) / 16 * 16)  // as blur_strip.cl
#define KC ((HA + 8) / 16)
#define OW (16 * RG)
#define NWIN (RG + 2 * (KC - 1))  // windows of 32 inputs a warp reads per row

#if RG % 2 != 0
#error "blur_rows_mma: RG even (odd windows are made from their even neighbours)"
#endif

#if 16 + 2 * RADIUS > 32 || HA > 40
#error "blur_rows_mma: RADIUS <= 8, RADIUS * CHANNELS <= 40"
#endif

// Column sums e..e+7 of a scratch row, two per word; past the row's ends through the border
// rule (`outside`: BORDER_CONSTANT's column sum, value * 256).
inline uint4 load8(__global const ushort* row, int e, int width, uint outside) {
  uint v[8];
  for (int j = 0; j < 8; ++j) {
    const int x = border_element(e + j, width, CHANNELS);
    v[j] = x < 0 ? outside : row[x];
  }
  return (uint4)(v[0] | v[1] << 16, v[2] | v[3] << 16, v[4] | v[5] << 16, v[6] | v[7] << 16);
}

__kernel __attribute__((reqd_work_group_size(32, WARPS, 1))) void blur_rows_mma(
    __global const ushort* mid, __global uchar* dst, int width, int height,
    __global const uint* taps, int value) {
  WARP_OPS_LOCALS;
  const int lane = get_local_id(0), warp = get_local_id(1);
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * OW, y0 = (get_group_id(1) * WARPS + warp) * 8;
  // Every window a group reads inside the row (windows 0 .. NWIN - 1), every row inside the
  // frame: plain loads and stores.
  const bool inside = ALIGNED && x0 >= HA && x0 + 16 * (RG - 1) - HA + 32 * KC <= n;
  const bool plain = inside && y0 + 8 <= height;
  __global const ushort* row = mid + (size_t)min(y0 + g, height - 1) * n;  // B's column g
  const uint outside = (uint)value * 256u;

  const __global uint4* frag = (const __global uint4*)(taps + FRAG_OFF);
  uint4 ah[KC];
  UNROLL
  for (int c = 0; c < KC; ++c) ah[c] = frag[(1 + c) * 32 + lane];

  // Group u's chunk c reads window u + 2c (windows start every 16 outputs). The even windows
  // are loaded, once each, as the high (wh) and low (wl) bytes of 8 column sums per lane; an odd
  // window is half of each even neighbour: lanes q < 2 take lane q+2 of window k-1, lanes q >= 2
  // lane q-2 of window k+1 (one shuffle per register, as blur_strip.cl).
  uint2 wh[NWIN + 1], wl[NWIN + 1];
  UNROLL
  for (int k = 0; k <= NWIN; k += 2) {
    const int e = x0 - HA + 16 * k + 8 * q;
    // (Of the last window, past every window a group reads, only lanes q < 2 are used: the
    // others would read past the checked span, so they load nothing.)
    const uint4 v = k == NWIN && q >= 2 ? (uint4)(0u)
                    : inside            ? *(__global const uint4*)(row + e)
                                        : load8(row, e, width, outside);
    wh[k] = (uint2)(perm(v.x, v.y, 0x7531u), perm(v.z, v.w, 0x7531u));
    wl[k] = (uint2)(perm(v.x, v.y, 0x6420u), perm(v.z, v.w, 0x6420u));
  }
  UNROLL
  for (int k = 1; k < NWIN; k += 2) {
    const uint2 h0 = wh[k - 1], h1 = wh[k + 1], l0 = wl[k - 1], l1 = wl[k + 1];
    const uint2 h = q >= 2 ? h0 : h1, l = q >= 2 ? l0 : l1;
    wh[k] = (uint2)(SHFL_XOR(h.x, 2), SHFL_XOR(h.y, 2));
    wl[k] = (uint2)(SHFL_XOR(l.x, 2), SHFL_XOR(l.y, 2));
  }

  UNROLL
  for (int u = 0; u < RG; ++u) {
    uint4 hs = (uint4)(0u), ls = (uint4)(0u);
    UNROLL
    for (int c = 0; c < KC; ++c) {
      MMA(hs, ah[c], wh[u + 2 * c]);
      MMA(ls, ah[c], wl[u + 2 * c]);
    }
    const uint o = rows_result(hs, ls);
    const int x = x0 + 16 * u + 2 * g;
    store_run(dst, y0 + 2 * q, x, n, height, o, plain, 2);
    store_run(dst, y0 + 2 * q + 1, x, n, height, o >> 16, plain, 2);
  }
}
