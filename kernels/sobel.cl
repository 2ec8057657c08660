// sobel: 8-bit in, 8-bit out, per channel, as OpenCV computes
//
//   gx = cv::Sobel(src, CV_16S, 1, 0, KSIZE, scale, 0, border)     (gy: dx=0, dy=1)
//   MODE_X    convertScaleAbs(gx)                     = min(|gx|, 255)
//   MODE_Y    convertScaleAbs(gy)
//   MODE_MAG  addWeighted(|gx|8u, 0.5, |gy|8u, 0.5, 0) = (a + b) / 2 rounded half to even
//   MODE_L2   round(sqrt(gx^2 + gy^2)), saturated     from the int16 gradients
//
// Arithmetic. OpenCV builds gx from a row pass with the integer derivative taps and a column pass
// with the smoothing taps times `scale` (float), gy from a row pass with the smoothing taps times
// `scale` and a column pass with the derivative taps; each pass is a float FMA chain in a fixed
// order, rounded to nearest even and saturated to int16 at the end. This kernel runs the same
// chains in the same order (the scaled taps come from the host, rounded to float as OpenCV
// rounds them), so even scales whose products round (0.3) give OpenCV's int16 values. At
// scale 1, or any scale whose products are exact (powers of two, integers), every value is an
// integer below 2^24, so the float work is exact integer arithmetic.
// The int16 saturation itself never shows: every mode takes |g| and saturates to 8 bits (l2
// clamps each |g| at 256 first, past which the result is 255 anyway).
//
// Schedule. A work-item owns VX consecutive bytes (channel samples) of PY consecutive rows; a
// work-group (WGX x WGY items) owns a tile of WGX*VX bytes by WGY*PY rows. The tile and its halo
// (R pixels = R*CH bytes left and right, R rows above and below) is loaded once into local
// memory, cooperatively, through the border rules (whole rows or single vectors per work-item:
// see the load). After one barrier each work-item computes the horizontal taps of its PY + 2R
// rows (vectors of VX lanes) and the vertical taps of its PY output rows. Nothing returns
// before the barrier; stores are guarded (the global size is rounded up to whole work-groups).
//
// An epilogue (epilogue.cl) where the host gives one: the stage's own kernel behind the blur it
// computes in its pass, when a live sigma moves the blur past that pass.
//
// Build options: -DKSIZE=1|3|5|7 -DCH=1|3|4 -DVX=4|8|16 -DPY -DWGX -DWGY -DMODE_{X,Y,MAG,L2}
//                -DBORDER_{CONSTANT,REPLICATE,REFLECT,REFLECT101,WRAP} [-DLOAD_BY_ROWS]
// Run time:      the smoothing taps times scale as floats (centre first), the border value.

#include "border.cl"

#define UNROLL _Pragma("unroll")
#include "epilogue.cl"
#include "sobel_tile.cl"

// The byte at byte column bc (may lie outside the row) of source row sy (-1: a constant row).
inline uchar fetch(__global const uchar* src, int bc, int sy, int width, int pitch, int value) {
  const int t = bc + HB;  // >= 0 for every column a tile reads, so / and % floor
  const int sx = border_index(t / CH - R, width);
  if (sx < 0 || sy < 0) return (uchar)value;
  return src[sy * pitch + sx * CH + t % CH];
}

// Copies VX bytes from byte column bx of source row sy (-1: a constant row) to the tile.
inline void load_vector(__global const uchar* src, __local uchar* t, int bx, int sy, int width,
                        int pitch, int value) {
  const int rowBytes = width * CH;
  // Past the right edge only the HB bytes the last pixels read matter; the rounded-up
  // work-items beyond them compute results nobody stores, from whatever the tile holds.
  if (bx >= rowBytes + HB) return;
  if (sy >= 0 && bx + VX <= rowBytes) {
    // An aligned vector access where the address allows (buffers start aligned): some compilers
    // split vloadn/vstoren of uchar into bytes.
    const int at = sy * pitch + bx;
    *(__local UCHARV*)t = at % VX == 0 ? *(__global const UCHARV*)(src + at) : VLOAD(0, src + at);
  } else {
    for (int i = 0; i < VX; ++i) t[i] = fetch(src, bx + i, sy, width, pitch, value);
  }
}

__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1))) void sobel(
    __global const uchar* restrict src, __global uchar* restrict dst, int width, int height,
    int pitch, ScaledTaps taps, int value EPI_KDECL) {
  EPI_BEGIN
  __local UCHARV tile_v[LH * LP / VX];  // a vector array, so every VX-byte slot is aligned
  __local uchar* tile = (__local uchar*)tile_v;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x0 = get_group_id(0) * TW;  // first byte column the group writes
  const int y0 = get_group_id(1) * TH;  // first row the group writes

  // Cooperative load of the tile and its halo. Two orders of the same copy (a schedule choice):
#if defined(LOAD_BY_ROWS)
  // CPUs: a work-item copies whole tile rows, so the row's border arithmetic is done once per
  // row and the copy is a tight loop of vectors (work-items run one after another there).
  for (int r = ly * WGX + lx; r < LH && y0 + r < height + 2 * R; r += WGX * WGY) {
    const int sy = border_index(y0 + r - R, height);
    __local uchar* trow = tile + r * LP + PAD;
    for (int i = 0; i < WGX; ++i)
      load_vector(src, trow + i * VX, x0 + i * VX, sy, width, pitch, value);
    for (int h = 0; h < 2 * HB; ++h) {
      const int t = h < HB ? h - HB : TW + h - HB;  // left halo, then right halo
      trow[t] = fetch(src, x0 + t, sy, width, pitch, value);
    }
  }
#else
  // GPUs: neighbouring work-items copy neighbouring vectors of a row (coalesced); the halo
  // bytes go to the first 2*HB work-items.
  // (Rows past height - 1 + R are read only by outputs nobody stores.)
  for (int r = ly; r < LH && y0 + r < height + 2 * R; r += WGY) {
    const int sy = border_index(y0 + r - R, height);
    __local uchar* trow = tile + r * LP + PAD;
    load_vector(src, trow + lx * VX, x0 + lx * VX, sy, width, pitch, value);
    for (int h = lx; h < 2 * HB; h += WGX) {
      const int t = h < HB ? h - HB : TW + h - HB;
      trow[t] = fetch(src, x0 + t, sy, width, pitch, value);
    }
  }
#endif
  barrier(CLK_LOCAL_MEM_FENCE);

  sobel_tile_outputs(tile, dst, width, height, pitch, taps, lx, ly, x0, y0 EPI_PASS);
  EPI_END
}
