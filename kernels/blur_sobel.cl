// blur_sobel: the blur and the sobel after it as one pass (pipeline/stages/blur_sobel.hpp): the
// blurred frame never reaches global memory. A work-group owns the sobel's tile (sobel_tile.cl:
// TW bytes x TH rows, R rows and PAD bytes of halo on each side) and fills it with the blurred
// frame instead of loading it:
//
//   0. the source words the blur reads for the tile, each loaded once into local memory (through
//      the prologue where there is one: each BGR pixel converted once per tile): rows y0 - R -
//      RADIUS ..., elements x0 - PAD - HA .. x0 + TW + PAD + HA - 1 (HA: the blur's row halo in
//      whole words), folded by the blur's border rule as the blur reads them;
//   1. column sums of those words for the tile's rows y0 - R .. y0 + TH + R - 1, 16-bit lanes
//      as blur_columns.cl's, CPY rows per work-item sliding down a word column, into a float
//      tile;
//   2. row sums of that tile: the blurred byte of every tile position, 4 per work-item;
//   3. in groups at the frame's edges only: the positions outside the frame that a stored output
//      reads (R rows above and below it, R pixels before and after each row), as the sobel's
//      border rule reads the blurred frame (the constant, or the blurred byte at the folded
//      position, which lies in the tile: folding moves a position at most R pixels back inside,
//      and the tile holds R pixels and PAD >= R * CH + CH - 1 bytes beyond its own); the rest
//      of a tile that reaches past the frame feeds no output stored and is not visited;
//   4. the sobel over the tile (sobel_tile.cl), stored through the epilogue where there is one.
//
// Every number is the blur's and the sobel's own: the same integer sums as the blur's kernels
// (blur_tiled.cl argues them against cv::GaussianBlur) and the sobel's tile arithmetic, so the
// pass gives the bytes of the two stages run one after the other. A prologue (prologue.cl) makes
// the source as it is read (gray from BGR in the loads of phase 0).
//
// Build options: the sobel's (KSIZE, CH, VX, PY, WGX, WGY, MODE_*), SOBEL_BORDER (a
// VF_BORDER_* number; not wrap, whose folded positions lie outside the tile); the blur's RADIUS,
// CHANNELS (= CH), BORDER_*, TAPS_U; CPY (rows per work-item in phase 1), ALIGNED (rows a
// multiple of 4 bytes), NV_PTX.
// Run time: src, dst, width, height, the sobel's scaled taps and border value, the blur's taps
// buffer and border value, then the prologue's and the epilogue's arguments.

#define UNROLL _Pragma("unroll")
#include "border.cl"
#include "prologue.cl"
// The blur's column arithmetic, after border.cl whose rules it folds by.
#include "blur_columns.cl"
#include "epilogue.cl"
#include "sobel_tile.cl"

#if SOBEL_BORDER == VF_BORDER_WRAP
#error "blur_sobel: the sobel's border cannot be wrap"
#endif
#if CHANNELS != CH || PAD < HB + CH - 1
#error "blur_sobel: CHANNELS must be CH, and the tile's padding hold the folded positions"
#endif

#define WG (WGX * WGY)
#define HA (((RADIUS * CH + 3) / 4) * 4)      // the blur's row halo, whole words
#define CW4 ((LP + 2 * HA) / 4)               // a column-sum row, float4s
#define CROWS (((LH + CPY - 1) / CPY) * CPY)  // column-sum rows, whole units of CPY
#define SROWS (CROWS + 2 * RADIUS)            // source rows they sum

// Phase 0: the source words the column sums read, each once: rows ys - RADIUS .. ys + CROWS +
// RADIUS - 1 and the elements xs .. xs + 4 * CW4 - 1, folded by the blur's border rule (or
// its value), through the prologue where there is one. inRow: every word lies inside the row.
inline void source_words(__global const uchar* src, __local uint* sw, int xs, int ys, int n,
                         int pitch, int width, int height, int bvalue, int lid,
                         bool inRow PRO_DECL) {
  const uint outside = (uint)bvalue * 0x01010101u;
  for (int u = lid; u < SROWS * CW4; u += WG) {
    const int r = u / CW4, c = u - r * CW4, e = xs + 4 * c;
    const int by = border_index(ys - RADIUS + r, height);
    uint w = outside;
#if ALIGNED
    if (by >= 0 && (inRow || (e >= 0 && e + 4 <= n))) {
      sw[u] = SRC_WORD((size_t)by * (size_t)(pitch / 4) + (size_t)(e / 4));
      continue;
    }
#endif
    if (by >= 0) {
      w = 0u;
      UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = border_element(e + j, width, CH);
        w |= (uint)(q < 0 ? (uchar)bvalue : SRC_BYTE((size_t)by * (size_t)pitch + (size_t)q))
             << (8 * j);
      }
    }
    sw[u] = w;
  }
}

// Phase 1: the column sums of the tile's rows from the source words, CPY rows per unit.
inline void blurred_columns(__local const uint* sw, __local float4* ct, __constant ushort* tu,
                            int lid) {
  for (int u = lid; u < CW4 * (CROWS / CPY); u += WG) {
    const int strip = u / CW4, c = u - strip * CW4;
    uint lo[CPY], hi[CPY];
    UNROLL
    for (int m = 0; m < CPY; ++m) lo[m] = hi[m] = 0u;
    UNROLL
    for (int i = 0; i < CPY + 2 * RADIUS; ++i)
      add_row(sw[(strip * CPY + i) * CW4 + c], i, tu, lo, hi);
    UNROLL
    for (int m = 0; m < CPY; ++m) ct[(strip * CPY + m) * CW4 + c] = lanes_to_float4(lo[m], hi[m]);
  }
}

// Phase 2: the blurred bytes of the tile, 4 per unit, from the column sums.
inline void blurred_rows(__local const float4* ct, __local uchar* tile, __constant float* bt,
                         int lid) {
  for (int u = lid; u < LH * (LP / 4); u += WG) {
    const int r = u / (LP / 4), q = u - r * (LP / 4);
    __local const float4* t = ct + r * CW4 + q;
    float win[4 + 2 * HA];
    UNROLL
    for (int i = 0; i < 1 + HA / 2; ++i) {
      const float4 v = t[i];
      win[4 * i] = v.x;
      win[4 * i + 1] = v.y;
      win[4 * i + 2] = v.z;
      win[4 * i + 3] = v.w;
    }
    uint packed = 0u;
    UNROLL
    for (int j = 0; j < 4; ++j) {
      // a = S + 2^15: every partial sum is an integer below 2^24, so exact.
      float a = fma(bt[0], win[HA + j], 32768.0f);
      UNROLL
      for (int k = 1; k <= RADIUS; ++k) a += bt[k] * (win[HA + j - k * CH] + win[HA + j + k * CH]);
      packed |= (uint)shift16(a) << (8 * j);
    }
    ((__local uint*)tile)[(r * LP) / 4 + q] = packed;
  }
}

// Phase 3: the tile positions the sobel reads outside the frame, as its border rule reads the
// blurred frame: those a stored output reads only (rows y0 - R ... below height + R, bytes
// x0 - HB ... below n + HB): whole rows above and below the frame, and in the rows between,
// the bytes before and after the row.
inline void sobel_border(__local uchar* tile, int x0, int y0, int width, int height, int value,
                         int lid) {
  const int n = width * CH;
  const int rows = min(LH, height + 2 * R - y0);       // tile rows read: y < height + R
  const int cols = min(TW + 2 * HB, n + 2 * HB - x0);  // tile bytes read: x < n + HB
  const int in0 = max(0, R - y0), in1 = min(rows, height - y0 + R);  // rows inside the frame
  const int c0 = max(0, HB - x0), c1 = min(cols, n - x0 + HB);       // bytes inside the row
  const int outRows = in0 + (rows - in1), sides = c0 + (cols - c1);
  for (int u = lid; u < outRows * cols + (in1 - in0) * sides; u += WG) {
    int r, c;
    if (u < outRows * cols) {
      const int k = u / cols;
      r = k < in0 ? k : in1 + (k - in0);
      c = u - k * cols;
    } else {
      const int v = u - outRows * cols, k = v / sides, j = v - k * sides;
      r = in0 + k;
      c = j < c0 ? j : c1 + (j - c0);
    }
    const int y = y0 - R + r, x = x0 - HB + c;
    const int px = x >= 0 ? x / CH : -((-x + CH - 1) / CH);  // floor(x / CH)
    const int sy = border_fold(y, height, SOBEL_BORDER), spx = border_fold(px, width, SOBEL_BORDER);
    uchar v = (uchar)value;
    if (sy >= 0 && spx >= 0) {
      // A position folded from outside the tile (a frame smaller than the sobel's reach) is
      // left as it is: no output stored reads it.
      const int tr = sy - y0 + R, tc = PAD + spx * CH + (x - px * CH) - x0;
      if (tr < 0 || tr >= LH || tc < 0 || tc >= LP) continue;
      v = tile[tr * LP + tc];
    }
    tile[r * LP + PAD - HB + c] = v;
  }
}

__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1))) void blur_sobel(
    __global const uchar* restrict src, __global uchar* restrict dst, int width, int height,
    int pitch, ScaledTaps taps, int value, __constant float* btaps, int bvalue PRO_DECL EPI_KDECL) {
  EPI_BEGIN
  __local uint sw[SROWS * CW4];
  __local float4 ct[CROWS * CW4];
  __local UCHARV tile_v[LH * LP / VX];  // a vector array, so every VX-byte slot is aligned
  __local uchar* tile = (__local uchar*)tile_v;
  const int lx = get_local_id(0), ly = get_local_id(1), lid = ly * WGX + lx;
  const int n = width * CH;
  const int x0 = get_group_id(0) * TW;  // first byte column the group writes
  const int y0 = get_group_id(1) * TH;  // first row the group writes
  const int xs = x0 - PAD - HA;         // the first element of the column sums

  // The choice is uniform over the work-group: tiles whose words all lie inside the row run a
  // copy of phase 0 without the row-end path.
  __constant ushort* tu = (__constant ushort*)(btaps + TAPS_U);
  if (xs >= 0 && xs + 4 * CW4 <= n)
    source_words(src, sw, xs, y0 - R, n, pitch, width, height, bvalue, lid, true PRO_PASS);
  else
    source_words(src, sw, xs, y0 - R, n, pitch, width, height, bvalue, lid, false PRO_PASS);
  barrier(CLK_LOCAL_MEM_FENCE);
  blurred_columns(sw, ct, tu, lid);
  barrier(CLK_LOCAL_MEM_FENCE);
  blurred_rows(ct, tile, btaps, lid);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x0 < HB || x0 + TW + HB > n || y0 < R || y0 + TH + R > height) {
    sobel_border(tile, x0, y0, width, height, value, lid);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sobel_tile_outputs(tile, dst, width, height, pitch, taps, lx, ly, x0, y0 EPI_PASS);
  EPI_END
}
