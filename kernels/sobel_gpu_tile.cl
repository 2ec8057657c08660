// Where the direct sobel kernel (sobel_gpu.cl) reads its source rows: straight from the frame
// (load_row, sobel_gpu_rows.cl), or, with LOCAL_ROWS, from a tile the work-group first loads
// into local memory: the WGY * PY output rows of its WGX work-items and R rows above and below,
// each tile row the group's WGX * VX bytes and HW words on either side. The group loads it word by
// word, neighbouring work-items neighbouring words (coalesced), every source word once per tile,
// then the work-items walk down their columns as without the tile. Words past a row's ends hold
// the border rule's bytes, so no work-item's vector needs special handling at the row's end
// (no TAIL_SHIFT). Needs border.cl, byte_perm.cl, prologue.cl and CH, R, HB, HW, NW, VX, PY;
// LOCAL_ROWS needs WGX and WGY, the work-group's shape.
//
// LOAD_ROW_T(w, t): the NW words of source row y0 - R + t around the work-item's vector (as
// load_row lays them out) into w. TILE_DECL / TILE_PASS carry the tile to the strips.

#ifndef VF_SOBEL_GPU_TILE_CL
#define VF_SOBEL_GPU_TILE_CL

#if LOCAL_ROWS
#define TW (WGX * VX / 4 + 2 * HW)  // words of a tile row
#define TR (WGY * PY + 2 * R)       // tile rows
#define TILE_DECL , __local const uint* tile
#define TILE_PASS , tile

// Source word at byte column bc (bytes bc .. bc + 3, which may lie past either end of the row)
// of row sy (-1: a constant row). Bytes no work-item reads (more than HB before the row, or more
// than VX + HB past its end) are left 0.
inline uint tile_word(__global const uchar* src, int bc, int sy, int width, int height, int pitch,
                      int value PRO_DECL) {
  const int rowBytes = width * CH;
  if (sy < 0) return (uint)value * 0x01010101u;
  if (bc >= 0 && bc + 4 <= rowBytes) {
    const int at = sy * pitch + bc;
    const uint o = (uint)at & 3u;
    if (o == 0) return SRC_WORD(at / 4);
    // The two aligned words around it, unless the second ends past the buffer.
    if (sy + 1 < height || bc + 8 <= pitch)
      return funnel_word(SRC_WORD(at / 4), SRC_WORD(at / 4 + 1), o);
  }
  uint w = 0;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const int j = bc + b;
    if (j < -HB || j >= rowBytes + VX + HB) continue;
    const int e = border_element(j, width, CH);
    w |= (e < 0 ? (uint)value : SRC_BYTE((size_t)sy * pitch + e)) << (8 * b);
  }
  return w;
}

// The group's tile: every work-item of the group calls this (it holds a barrier). A work-item's
// words are all loaded before any is stored, so its loads are in flight together.
#define TN (WGX * WGY)                  // work-items of the group
#define TPER ((TW * TR + TN - 1) / TN)  // words a work-item loads
inline void tile_fill(__global const uchar* src, __local uint* tile, int width, int height,
                      int pitch, int value PRO_DECL) {
  const int lid = get_local_id(1) * WGX + get_local_id(0);
  const int gx0 = get_group_id(0) * (WGX * VX) - 4 * HW;  // byte column of tile word 0
  const int gy0 = get_group_id(1) * (WGY * PY) - R;       // source row of tile row 0
  uint w[TPER];
  UNROLL
  for (int j = 0; j < TPER; ++j) {
    const int i = lid + j * TN, r = i / TW, k = i - r * TW;
    if (i < TW * TR)
      w[j] = tile_word(src, gx0 + 4 * k, border_index(gy0 + r, height), width, height, pitch,
                       value PRO_PASS);
  }
  UNROLL
  for (int j = 0; j < TPER; ++j)
    if (lid + j * TN < TW * TR) tile[lid + j * TN] = w[j];
  barrier(CLK_LOCAL_MEM_FENCE);
}

inline void tile_row(__local const uint* tile, uint* w, int t) {
  const __local uint* row = tile + (get_local_id(1) * PY + t) * TW + get_local_id(0) * (VX / 4);
#pragma unroll
  for (int i = 0; i < NW; ++i) w[i] = row[i];
}
#define LOAD_ROW_T(w, t) tile_row(tile, w, t)

#else
#define TILE_DECL
#define TILE_PASS
#define LOAD_ROW_T(w, t)                                                                          \
  load_row(src, w, x0, border_index(y0 - R + (t), height), width, height, rowBytes, pitch, value, \
           vec PRO_PASS)
#endif

#endif
