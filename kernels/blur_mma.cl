// blur_mma: the GPU blur on NVIDIA's tensor cores. The same integers as blur.cl and blur_gpu.cl
// (8-bit taps t summing to 256, bit-exact with cv::GaussianBlur), each pass a product of
// integer matrices: mma.sync m16n8k32 multiplies 8-bit A (16x32) by 8-bit B (32x8) into exact
// 32-bit sums, 4096 products per warp instruction, where blur_gpu.cl spends about 38 issued
// instructions per output pixel on the FMA and integer units.
//
//   columns  v(y, x) = sum_k t[|k|] * src(y + k, x)      A = the taps as a band matrix (16 output
//            rows x 32 input rows), B = 32 rows x 8 columns of the frame. v <= 255 * 256.
//   rows     S(y, x) = sum_k t[|k|] * v(y, x + k*CH)      A = the taps (16 outputs x 32 inputs),
//            B = 32 inputs x 8 rows of v. v does not fit 8 bits, so v = 256 vh + vl and two
//            products give H = sum t vh and L = sum t vl, each at most 65280.
//   result   (S + 2^15) >> 16 with S = 256 H + L, which is (H + (L >> 8) + 128) >> 8 exactly
//            (floor((H + y) / 256) = floor((H + floor(y)) / 256) for an integer H), computed for
//            two outputs at once in the 16-bit lanes of a 32-bit word (H + L/256 <= 65280).
//
// Fragments (PTX ISA, mma.m16n8k32 with .u8): lane = 4 g + q. A: a.x row g, bytes k = 4q..4q+3;
// a.y row g+8; a.z, a.w the same rows at k + 16. B: b.x column g, k = 4q..4q+3; b.y k + 16.
// C/D: c.x (row g, column 2q), c.y (g, 2q+1), c.z (g+8, 2q), c.w (g+8, 2q+1).
//
// A work-group of WARPS warps owns TW elements x TH rows of output:
//   P0  the source rows y0-R .. y0+TH+R-1, elements x0-HA .. x0-HA+VW-1, into `raw` (bytes),
//       through the border rule only in tiles at the frame's edges.
//   P1  columns: a unit is 16 output rows x 32 elements, four products. Lane (g, q) loads
//       4-byte words of elements 4g..4g+3 from input rows 4q..4q+3 and 16+4q..16+4q+3 and
//       transposes them in registers, which makes product j's column n the element 4n + j; its
//       results are then elements 8q..8q+7 of rows g and g+8, stored as one 16-byte write each
//       into `vt` (16-bit).
//   P2  rows: a unit is 16 outputs x 8 rows, KC chunks of 32 inputs, two products (vh, vl) per
//       chunk. Output m of a product is element 2m (m < 8) or 2(m-8)+1, a permutation folded into
//       the constant A, so lane (g, q) ends with elements 2g, 2g+1 of rows 2q and 2q+1.
//   P3  the output tile (in `raw`'s memory) to the frame, 16 bytes per store.
//
// Build options: RADIUS (<= 8), CHANNELS, BORDER_*, TAPS_U as blur_gpu.cl (every tap <= 255);
// WARPS; TW, TH (multiples of 16); ALIGNED (rows a multiple of 8 bytes, little-endian), ALIGNED16;
// MMA_PTX 1: mma.sync and the byte permutes in inline PTX (NVIDIA, compute capability 8.0+); 0:
// both emulated in OpenCL C, the products through local memory (slow; the tests run it on PoCL).
// Run time: src, dst, width, height, taps (floats, then ushorts at TAPS_U), value.

#include "border.cl"

#define HALO (RADIUS * CHANNELS)                 // row halo, elements
#define HA (((HALO + 7) / 8) * 8)                // ... rounded up to 8 bytes
#define KC ((HA + 16 + HALO + 31) / 32)          // row-pass chunks of 32 inputs
#define VW ((TW - 16 + 32 * KC + 31) / 32 * 32)  // column sums per tile row, elements
#define RAWR (TH + 16)                           // raw rows (TH + 2R loaded; the rest x 0)
// raw pitch, bytes: its words = 2 (mod 8), so P1 reads rows 4 apart without bank conflicts
#define RP (VW + 8)
#define P0_ITEMS ((TH + 2 * RADIUS) * (VW / 8))     // P0's 8-byte words
#define P0_LOADS ((P0_ITEMS + WG - 1) / WG)         // ... per work-item
#define VPW (VW / 2 + (VW / 2 % 32 == 0 ? 4 : 20))  // vt pitch in words: 4 (mod 32)
#define OPW (TW / 4 + ((36 - TW / 4 % 32) % 32))    // out pitch in words: 4 (mod 32)
#define OP (4 * OPW)                                // ... in bytes
#define RAW_BYTES (RAWR * RP > TH * OP ? RAWR * RP : TH * OP)
#define WG (32 * WARPS)

#if 16 + 2 * RADIUS > 32 || TW % 16 != 0 || TH % 16 != 0
#error "blur_mma: RADIUS <= 8, TW and TH multiples of 16"
#endif

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"

#include "warp_ops.cl"

// Four taps as bytes: the tap at distance d, d+1, d+2, d+3 from the centre, in steps of
// `step` elements (0 off the taps' grid or beyond the radius).
inline uint tap_bytes(__constant ushort* tu, int d, int step) {
  uint w = 0;
  for (int i = 0; i < 4; ++i) {
    const int e = abs(d + i);
    if (e % step == 0 && e / step <= RADIUS) w |= (uint)tu[e / step] << (8 * i);
  }
  return w;
}

// Output element m (0..15) of a row product, after the permutation described above.
inline int row_out(int m) { return m < 8 ? 2 * m : 2 * (m - 8) + 1; }

#define KERNEL_ATTRS __attribute__((reqd_work_group_size(WG, 1, 1)))

__kernel KERNEL_ATTRS void blur_mma(__global const uchar* src, __global uchar* dst, int width,
                                    int height, __constant float* taps, int value) {
  // uint4 arrays: the 16-byte local accesses below need 16-byte alignment (NVIDIA aligns a
  // local array to its element type).
  __local uint4 rawQ[(RAW_BYTES + 15) / 16];  // P0/P1: source; P2/P3: output tile
  __local uint4 vtQ[(TH * VPW + 3) / 4];      // column sums, 16-bit
  __local uint* rawWords = (__local uint*)rawQ;
  __local uint* vtWords = (__local uint*)vtQ;
  __local uchar* raw = (__local uchar*)rawQ;
#if !MMA_PTX
  __local uint scratch[WARPS * 192];
#endif
  __local uint frag[32 * 4 * (1 + KC)];  // the A operands of every lane, built once per group
  __constant ushort* tu = (__constant ushort*)(taps + TAPS_U);
  const int lid = get_local_id(0), warp = lid / 32, lane = lid % 32;
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  const int x0 = get_group_id(0) * TW, y0 = get_group_id(1) * TH;
  const int xs = x0 - HA;  // element of raw column 0
  // The constant A operands, word f of lane l's operand at frag[(j * 32 + l) * 4 + f]: j = 0
  // columns, A[m][k] = t(k - m - R) with k an input row from the unit's first output row - R;
  // j = 1 + c rows (chunk c), A[m][k] = t(k + 32c - HA - row_out(m)) in elements.
  for (int i = lid; i < 32 * 4 * (1 + KC); i += WG) {
    const int f = i & 3, l = (i >> 2) & 31, j = i >> 7;
    const int gl = l >> 2, ql = l & 3, m = (f & 1) ? gl + 8 : gl, k = 4 * ql + ((f & 2) ? 16 : 0);
    frag[i] = j == 0 ? tap_bytes(tu, k - m - RADIUS, 1)
                     : tap_bytes(tu, k + 32 * (j - 1) - HA - row_out(m), CHANNELS);
  }

  // P0: source rows y0 - R .. y0 + TH + R - 1, elements xs .. xs + VW - 1, as 8-byte words.
  // Every work-item issues all its word loads before storing any (P0_LOADS in flight); rows
  // outside the frame are folded by the border rule (tiles at the top and bottom), and only
  // words that reach past a row's ends (or rows not a multiple of 8 bytes, or BORDER_CONSTANT's
  // outside rows) are assembled byte by byte afterwards.
  const bool inside = xs >= 0 && xs + VW <= n && y0 >= RADIUS && y0 + TH + RADIUS <= height;
  {
    uint2 w[P0_LOADS];
    uint slow = 0;  // bit k: item k takes the byte path
#pragma unroll
    for (int k = 0; k < P0_LOADS; ++k) {
      const int i = min(lid + k * WG, P0_ITEMS - 1);
      const int r = i / (VW / 8), c = i - r * (VW / 8);
      const int by = inside ? y0 - RADIUS + r : border_index(y0 - RADIUS + r, height);
      const int x = xs + 8 * c;
      w[k] = (uint2)(0u);
#if ALIGNED
      if (inside || (by >= 0 && x >= 0 && x + 8 <= n))
        w[k] = *(const __global uint2*)(src + (size_t)by * n + x);
      else
#endif
        slow |= 1u << k;
    }
#pragma unroll
    for (int k = 0; k < P0_LOADS; ++k) {
      const int i = lid + k * WG;
      const int r = i / (VW / 8), c = i - r * (VW / 8);
      if (i < P0_ITEMS) *(__local uint2*)(rawWords + r * (RP / 4) + 2 * c) = w[k];
    }
#pragma unroll 1
    for (int k = 0; k < P0_LOADS; ++k) {
      const int i = lid + k * WG;
      if (!((slow >> k) & 1u) || i >= P0_ITEMS) continue;
      const int r = i / (VW / 8), c = i - r * (VW / 8);
      const int by = border_index(y0 - RADIUS + r, height);
      for (int j = 0; j < 8; ++j) {
        const int x = border_element(xs + 8 * c + j, width, CHANNELS);
        raw[r * RP + 8 * c + j] = (by < 0 || x < 0) ? (uchar)value : src[(size_t)by * n + x];
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  const uint4 av = vload4(lane, frag);
  uint4 ah[KC];
#pragma unroll
  for (int c = 0; c < KC; ++c) ah[c] = vload4((1 + c) * 32 + lane, frag);

    // P1: column sums, units of 16 rows x 32 elements (uniform trip count over the group).
#define NV ((TH / 16) * (VW / 32))
  for (int it = 0; it < (NV + WARPS - 1) / WARPS; ++it) {
    const int u0 = warp + it * WARPS, u = min(u0, NV - 1);
    const int rb = u / (VW / 32), cg = u - rb * (VW / 32);
    const __local uint* p = rawWords + (rb * 16 + 4 * q) * (RP / 4) + cg * 8 + g;
    // Word g of rows 4q.. (w0) and 16 + 4q.. (w1).
    const uint4 w0 = (uint4)(p[0], p[RP / 4], p[2 * (RP / 4)], p[3 * (RP / 4)]);
    const uint4 w1 =
        (uint4)(p[16 * (RP / 4)], p[17 * (RP / 4)], p[18 * (RP / 4)], p[19 * (RP / 4)]);
    const uint4 bx = transpose4(w0), by = transpose4(w1);  // b.x and b.y of products 0..3
    const uint2 d[4] = {(uint2)(bx.x, by.x), (uint2)(bx.y, by.y), (uint2)(bx.z, by.z),
                        (uint2)(bx.w, by.w)};
    uint4 acc[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      acc[j] = (uint4)(0u);
      MMA(acc[j], av, d[j]);
    }
    if (u0 < NV) {
      __local uint* o = vtWords + (rb * 16 + g) * VPW + cg * 16 + 4 * q;
      *(__local uint4*)o =
          (uint4)(perm(acc[0].x, acc[1].x, 0x5410u), perm(acc[2].x, acc[3].x, 0x5410u),
                  perm(acc[0].y, acc[1].y, 0x5410u), perm(acc[2].y, acc[3].y, 0x5410u));
      *(__local uint4*)(o + 8 * VPW) =
          (uint4)(perm(acc[0].z, acc[1].z, 0x5410u), perm(acc[2].z, acc[3].z, 0x5410u),
                  perm(acc[0].w, acc[1].w, 0x5410u), perm(acc[2].w, acc[3].w, 0x5410u));
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // P2: row sums, units of 16 outputs x 8 rows, into the output tile.
#define NH ((TH / 8) * (TW / 16))
  for (int it = 0; it < (NH + WARPS - 1) / WARPS; ++it) {
    const int u0 = warp + it * WARPS, u = min(u0, NH - 1);
    const int rg = u / (TW / 16), ob = u - rg * (TW / 16);
    uint4 hsum = (uint4)(0u), lsum = (uint4)(0u);
    const __local uint* p = vtWords + (rg * 8 + g) * VPW + ob * 8 + 2 * q;
#pragma unroll
    for (int c = 0; c < KC; ++c) {
      const uint2 v0 = *(const __local uint2*)(p + 16 * c);      // inputs 32c + 4q ..
      const uint2 v1 = *(const __local uint2*)(p + 16 * c + 8);  // inputs 32c + 16 + 4q ..
      MMA(hsum, ah[c], (uint2)(perm(v0.x, v0.y, 0x7531u), perm(v1.x, v1.y, 0x7531u)));
      MMA(lsum, ah[c], (uint2)(perm(v0.x, v0.y, 0x6420u), perm(v1.x, v1.y, 0x6420u)));
    }
    const uint o = rows_result(hsum, lsum);  // rows 2q (low half), 2q+1; elements 2g, 2g+1
    if (u0 < NH) {
      __local ushort* out = (__local ushort*)(raw + (rg * 8 + 2 * q) * OP + ob * 16 + 2 * g);
      out[0] = (ushort)o;
      out[OP / 2] = (ushort)(o >> 16);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // P3: the output tile to the frame.
  for (int i = lid; i < TH * (TW / 16); i += WG) {
    const int r = i / (TW / 16), c = i - r * (TW / 16);
    const int y = y0 + r, e = x0 + 16 * c;
    if (y >= height || e >= n) continue;
    const __local uint* t = rawWords + r * OPW + 4 * c;
    __global uchar* d = dst + (size_t)y * n + e;
#if ALIGNED16
    if (e + 16 <= n) {
      *(__global uint4*)d = (uint4)(t[0], t[1], t[2], t[3]);
      continue;
    }
#endif
    for (int j = 0; j < 16 && e + j < n; ++j) d[j] = raw[r * OP + 16 * c + j];
  }
}
