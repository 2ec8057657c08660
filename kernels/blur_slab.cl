// blur_slab: the Gaussian blur on NVIDIA's tensor cores, the "slab" kernel of
// pipeline/stages/blur_schedule.hpp. The same integers as blur.cl (8-bit taps t summing to 256,
// bit-exact with cv::GaussianBlur), each pass a product of integer matrices: mma.sync m16n8k32
// multiplies 8-bit A (16x32) by 8-bit B (32x8) into exact 32-bit sums, 4096 products per warp
// instruction.
//
//   rows     S_r(y, x) = sum_k t[|k|] * src(y, x + k*CH) <= 255 * 256
//   columns  S(y, x) = sum_k t[|k|] * S_r(y + k, x). S_r does not fit 8 bits, so S_r = 256 h + l
//            and two products give H = sum t h and L = sum t l, each at most 65280.
//   result   (S + 2^15) >> 16 with S = 256 H + L, which is (H + (L >> 8) + 128) >> 8 exactly
//            (floor((H + y) / 256) = floor((H + floor(y)) / 256) for an integer H), computed for
//            two outputs at once in the 16-bit lanes of a 32-bit word (H + L/256 <= 65280).
//
// The rows come first so that no operand is ever transposed or moved between lanes: each
// product's result fragment is, byte for byte, an operand fragment of the next.
//
//   rows     A_c[m][k] = t((k + 32c - HA - e(m)) / CH) (0 off the taps' grid), B[k][n] = the
//            source bytes of row n of a slab of 8 rows, element k of a window of 32: exactly
//            what lane (g, q) loads as the words at 4q and 16 + 4q of row g. The result, 16
//            output elements x 8 rows, leaves lane (g, q) elements e(g) and e(g + 8) of rows 2q
//            and 2q + 1 (row sums, at most 255 * 256).
//   columns  A_c[m][k] = t(row(k) + 32c - HR - m), B[k][n] = the high (then the low) bytes of
//            the row sums of window rows 32c .. 32c + 31 (four slabs) at element e(n), taken in
//            the order each lane holds them: k = 4q + i is window row 2q + (i & 1) + 8 (i >> 1),
//            k + 16 the same 16 rows on. So lane (g, q)'s B words are four of its own row sums,
//            split into bytes (split_bytes): element e(g) for the first column product, e(g + 8)
//            for the second. The window is KR chunks of 32 rows from HR rows above the band.
//   outputs  e(m) = 4 (m >> 1) + (m & 1) for m < 8, that + 2 for m - 8: the column products'
//            results leave lane (g, q) elements 4q .. 4q + 3 (columns 2q, 2q + 1 of both) of
//            rows g and g + 8 as one word each. A band's words go through the warp's local
//            memory and out as 16-byte stores of whole rows: stored straight from the lanes,
//            eight rows x 16 bytes per instruction, each 32-byte sector would be written in two
//            halves.
//
// A warp owns a strip of NS sets of 16 output elements x TH rows (from x0, y0) and walks down it
// in bands of 16 rows. Set u's row windows, 16 + 2 HA elements (HA: the row halo R * CH rounded
// up to a multiple of 8), start at x0 + 16u - HA, chunk c 32 elements on, so the words a lane
// loads from a row are W[j] at x0 - HA + 16j + 4q, j < NW = NS + WPS - 1 (WPS = 1 + HA / 8: the
// window's 16-element words), set u chunk c taking W[u + 2c] and W[u + 2c + 1]. Where WPS is odd
// the last chunk's upper 16 elements lie past the window, where its taps are 0: it takes
// W[u + 2c] twice, and the window costs no word beyond it. A band's column window is NP pairs of
// slabs (16 rows each) from row yb - HR (HR: the radius rounded up to 8 + 16 i): all but its last
// pair are the previous band's, so each band computes the row products of 16 new rows. At radius <=
// 8 the window is rows yb - 8 .. yb + 23 (NP 2, KR 1); larger radii (the "wide" reach) hold more
// pairs in registers.
//
// SHARE 0: a work-group's warps own strips one above the other and each lane loads its words
// from the source: a row's words of the window 16 NW bytes wide, for 16 NS bytes of output, a
// quarter of a 32-byte sector a load at rows 8 apart. SHARE 1: the warps own strips side by
// side and each band's 16 new rows of the group's window (its outputs and both halos) are loaded
// once, by the whole group, in whole vectors into local memory (two buffers, one barrier a band);
// the lanes take their words from there, whose rows lie SS words apart (4 mod 8) so that a
// warp's 32 words (8 rows x 4) fall in 32 banks, one access.
//
// Build options: RADIUS, CHANNELS, BORDER_*, NS (sets per strip), BANDS (TH = 16 BANDS),
// WARPS per work-group, SHARE, ALIGNED (rows a multiple of 4 bytes; little-endian either way),
// ALIGNED16 (and of 16; other rows store through slab_io.cl's word path), MMA_PTX (1: mma.sync and
// the byte permutes in inline PTX, NVIDIA compute capability 8.0+; 0: both emulated in OpenCL C,
// the products through local memory: slow, for tests), FRAG_OFF, FRAG_LOCAL (1: the row operands
// are read from local memory at each use), PF (1: each band's words are loaded during the band
// before; with SHARE its vectors, where SHARE_PF says).
//
// Run time: src, dst, width, height, taps: the host's TapsBlock, whose words from FRAG_OFF on are
// the constant A operands, lane l's operand j (c < KR: columns, chunk c; KR + c: rows, chunk c)
// at uint4 j * 32 + l (pipeline/stages/blur_fragments.cpp), value; with PROLOGUE (prologue.cl:
// src read through point-wise functions) then the functions' parameters.

#include "border.cl"

#define PERM_PTX MMA_PTX
#include "byte_perm.cl"
#include "warp_ops.cl"

#define HALO (RADIUS * CHANNELS)
// HA, WPS, KC, NW, CHUNK_HI: the row window (slab_io.cl).
#define HR (RADIUS <= 8 ? 8 : 8 + (RADIUS - 8 + 15) / 16 * 16)  // column halo: 8, 24, 40, ...
#define NP (((HR + 16 + RADIUS + 15) / 16 + 1) / 2 * 2)         // pairs of slabs per window
#define KR (NP / 2)                                             // 32-row chunks per column product
#define OW (16 * NS)
// A strip column's bytes and the reach of its loads (the kernel's ginside and inside below).
#if SHARE
#define COL_W (WARPS * OW)
#define COL_LEFT (HA + SPAD)
#define COL_RIGHT (16 * SV - HA - SPAD)
#else
#define COL_W OW
#define COL_LEFT HA
#define COL_RIGHT (16 * NW - HA)
#endif
#define TH (16 * BANDS)
#define OS (4 * NS + 4)  // words per row of a warp's output staging (conflict-free)
#include "slab_io.cl"

#if SHARE
#define SW (4 * WARPS * NS + HA / 2)    // words of a staged row: the group's outputs and both halos
#define SPAD (HA % 16)                  // bytes before its first word to the 16-byte vector's start
#define SV ((SPAD + 4 * SW + 15) / 16)  // its 16-byte vectors from SPAD bytes before its first word
#define SS (4 * (SV | 1))               // words per staged row: 4 mod 8, rows apart in the banks

// Groups clear of every edge on rows of whole vectors (and no prologue) stage 16 rows as 16-byte
// vectors: STAGE_FETCH loads each work-item's SPV of them into v (v[t] the vector
// i = tid + 32 WARPS t, row i / SV, vector i % SV, from SPAD bytes before the row's first word),
// STAGE_PUT stores them. With PF (SHARE_PF) the next band's are fetched during this band and
// stored as it starts.
#define SHARE_PF (PF && ALIGNED16 && !PROLOGUE)
#define SPV ((16 * SV + 32 * WARPS - 1) / (32 * WARPS))
#define STAGE_FETCH(v, ya)                                                                  \
  do {                                                                                      \
    UNROLL                                                                                  \
    for (int t_ = 0; t_ < SPV; ++t_) {                                                      \
      const int i_ = tid + 32 * WARPS * t_, r_ = i_ / SV;                                   \
      if (i_ < 16 * SV)                                                                     \
        (v)[t_] = *(const __global uint4*)(src + (size_t)((ya) + r_) * pitch + gxs - SPAD + \
                                           16 * (i_ - r_ * SV));                            \
    }                                                                                       \
  } while (0)
#define STAGE_PUT(st, v)                                                                  \
  do {                                                                                    \
    UNROLL                                                                                \
    for (int t_ = 0; t_ < SPV; ++t_) {                                                    \
      const int i_ = tid + 32 * WARPS * t_, r_ = i_ / SV;                                 \
      if (i_ < 16 * SV) *(__local uint4*)((st) + r_ * SS + 4 * (i_ - r_ * SV)) = (v)[t_]; \
    }                                                                                     \
  } while (0)

// Rows ya .. ya + 15 of the group's window (from byte gxs of each row) into st: word k of row r
// at st[r * SS + SPAD / 4 + k]. Groups clear of every edge (ginside) load whole 16-byte vectors of
// rows of whole vectors, else words; the others go through the border rule.
inline void stage_rows(__local uint* st, __global const uchar* src, int ya, int gxs, int n,
                       int pitch, int width, int height, bool ginside, int tid,
                       int value PRO_DECL) {
  if (ginside) {
#if ALIGNED16 && !PROLOGUE
    uint4 v[SPV];
    STAGE_FETCH(v, ya);
    STAGE_PUT(st, v);
#else
    for (int i = tid; i < 16 * SW; i += 32 * WARPS) {
      const int r = i / SW, k = i - r * SW;
      uint w[1];
      LOAD_WORDS16(w, 1, src, (size_t)(ya + r) * pitch + gxs + 4 * k);
      st[r * SS + SPAD / 4 + k] = w[0];
    }
#endif
  } else {
    for (int i = tid; i < 16 * SW; i += 32 * WARPS) {
      const int r = i / SW, k = i - r * SW;
      st[r * SS + SPAD / 4 + k] = load_word_row(src, border_index(ya + r, height), gxs + 4 * k, n,
                                                pitch, width, height, value PRO_PASS);
    }
  }
}

#else
#define SHARE_PF 0
#endif

#if NS < 1 || RADIUS < 1
#error "blur_slab: RADIUS >= 1, NS >= 1"
#endif

// d = the row products of set u on the slab whose words are w.
#define ROW_SUMS(d, w, u)                                                                      \
  do {                                                                                         \
    d = (uint4)(0u);                                                                           \
    UNROLL                                                                                     \
    for (int c = 0; c < KC; ++c) MMA(d, AH(c), (uint2)(w[(u) + 2 * c], w[(u) + CHUNK_HI(c)])); \
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

__kernel __attribute__((reqd_work_group_size(32, WARPS, 1))) void blur_slab(
    __global const uchar* src, __global uchar* dst, int width, int height, int pitch,
    __global const uint* taps, int value PRO_DECL) {
  WARP_OPS_LOCALS;
  __local uint out_stage[WARPS * 16 * OS];
  // A work-group is WARPS strips one above the other (SHARE 0; warps past the frame's last strip
  // compute that strip and store nothing) or side by side (SHARE 1).
  const int lane = get_local_id(0), warp = get_local_id(1);
  const int g = lane >> 2, q = lane & 3;
  const int n = width * CHANNELS;
  const int2 strip = slab_group_strip(COL_LEFT, COL_RIGHT, COL_W, n);
  const int strip_x = strip.x, strip_g = strip.y;
  // Every row read (y0 - HR .. y0 + TH - 16 - HR + 16 NP - 1) inside the frame and above its
  // last row.
#define ROWS_INSIDE (y0 >= HR && y0 + TH - 16 - HR + 16 * NP < height)
#if SHARE
  // The group's strips side by side from x0 of its first; warps past the row's end compute and
  // store nothing.
  const bool live = true;
  const int gxs = strip_x * WARPS * OW - HA, x0 = gxs + HA + warp * OW, y0 = strip_g * TH;
  // Every staged vector inside its row (SPAD bytes before the first word, the last ends less than
  // 16 bytes after the last word).
  const bool ginside = gxs >= SPAD && gxs - SPAD + 16 * SV <= n && ROWS_INSIDE;
  __local uint4 stage4[2 * 16 * SS / 4];
#else
  const int syn = (height + TH - 1) / TH, sy0 = strip_g * WARPS + warp;
  const bool live = sy0 < syn;
  const int x0 = strip_x * OW, y0 = min(sy0, syn - 1) * TH, xs = x0 - HA;
  // Every word inside its row (the last ends at xs + 16 NW = x0 + OW + HA, so every output is
  // too).
  const bool inside = xs >= 0 && xs + 16 * NW <= n && ROWS_INSIDE;
#endif

  const __global uint4* frag = (const __global uint4*)(taps + FRAG_OFF);
  uint4 av[KR];
  UNROLL
  for (int c = 0; c < KR; ++c) av[c] = frag[c * 32 + lane];
#if FRAG_LOCAL
  // The row operands in local memory, read at each use (registers go to the window instead).
  __local uint4 ah_local[KC * 32];
  for (int i = warp * 32 + lane; i < KC * 32; i += WARPS * 32) ah_local[i] = frag[KR * 32 + i];
  barrier(CLK_LOCAL_MEM_FENCE);
#define AH(c) ah_local[(c)*32 + lane]
#else
  uint4 ah[KC];
  UNROLL
  for (int c = 0; c < KC; ++c) ah[c] = frag[(KR + c) * 32 + lane];
#define AH(c) ah[c]
#endif

  __local uint* os = out_stage + warp * 16 * OS;

  // pr[u][i]: set u's B words of window pair i of the band (ROW_PAIR), i < NP - 1. The first
  // NP - 1 steps (p < 0) only fill them: each step computes the pair 16 rows further down.
  uint4 pr[NS][NP - 1];
  uint wa[NW], wb[NW];
#if SHARE_PF
  const int tid = warp * 32 + lane;
  uint4 nv[SPV];
  if (ginside) STAGE_FETCH(nv, y0 - HR);
#elif PF && !SHARE
  // nxa, nxb: the next step's words, loaded while this step computes.
  uint nxa[NW], nxb[NW];
  LOAD_SLABS(nxa, nxb, y0 - HR);
#endif

#pragma unroll 1
  for (int p = 1 - NP; p < BANDS; ++p) {
    const int yb = y0 + 16 * p;              // the band's first output row
    const int yn = yb - HR + 16 * (NP - 1);  // the first row of its new pair
#if SHARE
    {
      __local uint* st = (__local uint*)stage4 + ((p + NP) & 1) * 16 * SS;
#if SHARE_PF
      if (ginside) {
        STAGE_PUT(st, nv);
        if (p + 1 < BANDS) STAGE_FETCH(nv, yn + 16);
      } else
#endif
        stage_rows(st, src, yn, gxs, n, pitch, width, height, ginside, warp * 32 + lane,
                   value PRO_PASS);
      barrier(CLK_LOCAL_MEM_FENCE);
      __local const uint* sa = st + g * SS + SPAD / 4 + 4 * NS * warp + q;
      UNROLL
      for (int j = 0; j < NW; ++j) {
        wa[j] = sa[4 * j];
        wb[j] = sa[8 * SS + 4 * j];
      }
    }
#else
    BAND_SLABS(wa, wb, nxa, nxb, yn, p + 1 < BANDS);
#endif
    UNROLL
    for (int u = 0; u < NS; ++u) {
      uint4 nx;
      ROW_PAIR(nx, u);
      if (p >= 0) {
        uint4 h0 = (uint4)(0u), l0 = (uint4)(0u), h1 = (uint4)(0u), l1 = (uint4)(0u);
        UNROLL
        for (int c = 0; c < KR; ++c)
          MMA4(h0, l0, h1, l1, av[c], WINDOW_PAIR(u, 2 * c, nx), WINDOW_PAIR(u, 2 * c + 1, nx));
        // Rows g (.x, .y) and g + 8 (.z, .w): elements 4q, 4q+1 from the first pair of
        // products, 4q+2, 4q+3 from the second.
        const uint o0 =
            perm(round_pair(h0.x, h0.y, l0.x, l0.y), round_pair(h1.x, h1.y, l1.x, l1.y), 0x7531u);
        const uint o1 =
            perm(round_pair(h0.z, h0.w, l0.z, l0.w), round_pair(h1.z, h1.w, l1.z, l1.w), 0x7531u);
        os[g * OS + 4 * u + q] = o0;
        os[(8 + g) * OS + 4 * u + q] = o1;
      }
      UNROLL
      for (int i = 0; i + 1 < NP - 1; ++i) pr[u][i] = pr[u][i + 1];
      pr[u][NP - 2] = nx;
    }
    if (p < 0) continue;
    // The band's 16 rows x NS words of 16 bytes, lane by lane (rows a multiple of 16 bytes), or
    // as the aligned words of the destination each row covers (any other rows).
    WARP_SYNC();
    store_band(dst, os, yb, x0, n, pitch, height, lane, live);
    WARP_SYNC();
  }
}
