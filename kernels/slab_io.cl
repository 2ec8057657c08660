// Memory side of the tensor-core kernels (blur_slab.cl, sobel_slab.cl): which strips a
// work-group takes, a lane's words of a source row and a band's outputs, for rows of any length.
// Needs perm (byte_perm.cl) and ALIGNED, ALIGNED16 (rows a multiple of 4, 16 bytes), HALO, NS, OS
// (words per staged row), PF, UNROLL from the includer.
//
// A frame whose rows are not a multiple of 4 bytes starts each row at another byte of a word,
// and OpenCL loads and stores words only at multiples of 4. Neither path goes byte by byte:
// a load takes the two aligned words around the wanted one and one byte permute (funnel_word,
// byte_perm.cl); a store writes each row's segment as the whole aligned words of the
// destination it covers, each cut from two staged words by one permute, then the at most two
// partial words at its ends byte by byte, one lane each.
// Every word read holds at least one byte of the frame; the frame's last row is never read this
// way unless ALIGNED (its last aligned word could end past the buffer). ALIGNED and ALIGNED16
// describe the row pitch (the bytes from one row's start to the next), which may exceed the row.
// load_word_row also needs border.cl, CHANNELS and RADIUS. Both read the source through
// prologue.cl (SRC_WORD, SRC_BYTE: plain loads, or a prologue's functions applied as the words
// are read).

#ifndef VF_SLAB_IO_CL
#define VF_SLAB_IO_CL

// The row window (from HALO, the row halo in elements, and NS): a set's 16 outputs take 16 + 2 HA
// elements, HA the halo rounded up to a multiple of 8, as WPS 16-byte words; a row product takes
// KC chunks of 32 elements, and a lane loads NW words a row. Where WPS is odd the last chunk's
// upper 16 elements lie past the window, where its taps are 0: its B operand takes word 2c again
// (CHUNK_HI), and the window costs no word beyond it.
#define HA (HALO <= 8 ? 8 : (HALO + 7) / 8 * 8)
#define WPS (1 + HA / 8)
#define KC ((WPS + 1) / 2)
#define NW (NS + WPS - 1)
#define CHUNK_HI(c) (2 * (c) + 1 < WPS ? 2 * (c) + 1 : 2 * (c))

#include "prologue.cl"

// w[j] = the little-endian word of bytes at + 16 j .. at + 16 j + 3 of src, j < count: each one
// aligned load where `at` is a multiple of 4 (ALIGNED: the row and the offset are), else the
// aligned words either side and a permute. A macro, so w stays in registers.
#if ALIGNED
#define LOAD_WORDS16(w, count, src, at)                                   \
  do {                                                                    \
    const size_t b_ = (at) >> 2;                                          \
    UNROLL                                                                \
    for (int j_ = 0; j_ < (count); ++j_) (w)[j_] = SRC_WORD(b_ + 4 * j_); \
  } while (0)
#else
#define LOAD_WORDS16(w, count, src, at)                                            \
  do {                                                                             \
    const size_t at_ = (at);                                                       \
    const uint o_ = (uint)at_ & 3u;                                                \
    const size_t b_ = (at_ - o_) >> 2;                                             \
    UNROLL                                                                         \
    for (int j_ = 0; j_ < (count); ++j_)                                           \
      (w)[j_] = funnel_word(SRC_WORD(b_ + 4 * j_), SRC_WORD(b_ + 4 * j_ + 1), o_); \
  } while (0)
#endif

// Elements e .. e + 3 (possibly outside the row) of source row `by`, a row index border_index
// gave (-1: BORDER_CONSTANT's outside row), as a little-endian word, through the border rule
// (border.cl, CHANNELS). Rows are n bytes long and `pitch` bytes apart. A word inside a row other
// than the frame's last loads as above.
inline uint load_word_row(__global const uchar* src, int by, int e, int n, int pitch, int width,
                          int height, int value PRO_DECL) {
  // Past what the taps of the row's last output reach: read by no output stored.
  if (e >= n + RADIUS * CHANNELS) return 0u;
  // The build-time flag first: a constant right of && or || draws compilers' warnings.
  if ((ALIGNED || by + 1 < height) && by >= 0 && e >= 0 && e + 4 <= n) {
    const size_t at = (size_t)by * pitch + e;
    const uint o = (uint)at & 3u;
    const size_t b = (at - o) >> 2;
    return ALIGNED ? SRC_WORD(b) : funnel_word(SRC_WORD(b), SRC_WORD(b + 1), o);
  }
  uint w = 0;
#pragma unroll 1
  for (int j = 0; j < 4; ++j) {
    const int x = border_element(e + j, width, CHANNELS);
    w |= (uint)((by < 0 || x < 0) ? (uchar)value : SRC_BYTE((size_t)by * pitch + x)) << (8 * j);
  }
  return w;
}

// The strip column (.x) and row of strips (.y) work-group gl of the launch takes: the groups of
// the strip columns at the rows' ends first (their loads go through the border rule and take
// longest: run last, they would be the launch's tail), then the rest row by row. Edge columns:
// those whose loads (col_left bytes before the column's first, col_right past it) do not lie
// inside the row of n bytes; at the right end, where n is not a multiple of the column's col_w
// bytes, two columns can be.
inline int2 slab_group_strip(int col_left, int col_right, int col_w, int n) {
  const int nbx = get_num_groups(0), nby = get_num_groups(1);
  const int gl = get_group_id(1) * nbx + get_group_id(0);
  const int el = min((col_left + col_w - 1) / col_w, nbx);                   // left edge columns
  const int er = max(el, n >= col_right ? (n - col_right) / col_w + 1 : 0);  // first right one
  const int ne = el + max(nbx - er, 0), nm = nbx - ne;                       // edge, middle columns
  const int ge = nm > 0 ? ne * nby : 0;
  const int gi = gl < ge ? gl % ne : 0;
  const int x = gl < ge ? (gi < el ? gi : er + gi - el) : nm > 0 ? el + (gl - ge) % nm : gl % nbx;
  const int y = gl < ge ? gl / ne : nm > 0 ? (gl - ge) / nm : gl / nbx;
  return (int2)(x, y);
}

// wa[j], wb[j] = the words at xs + 16 j + 4 q, j < NW, of source rows y + g and y + 8 + g (the
// lane's rows of the two slabs from row y). Strips clear of every edge (`inside`, the same for
// the whole warp) issue them as plain loads, the others through the border rule. Needs NW and,
// in scope, inside, xs, g, q, src, pitch, n, width, height, value.
#define LOAD_SLABS(wa, wb, y)                                                                     \
  do {                                                                                            \
    if (inside) {                                                                                 \
      const size_t at = (size_t)((y) + g) * pitch + xs + 4 * q;                                   \
      LOAD_WORDS16(wa, NW, src, at);                                                              \
      LOAD_WORDS16(wb, NW, src, at + 8 * (size_t)pitch);                                          \
    } else {                                                                                      \
      const int ba = border_index((y) + g, height), bb = border_index((y) + 8 + g, height);       \
      UNROLL                                                                                      \
      for (int j = 0; j < NW; ++j) {                                                              \
        wa[j] =                                                                                   \
            load_word_row(src, ba, xs + 16 * j + 4 * q, n, pitch, width, height, value PRO_PASS); \
        wb[j] =                                                                                   \
            load_word_row(src, bb, xs + 16 * j + 4 * q, n, pitch, width, height, value PRO_PASS); \
      }                                                                                           \
    }                                                                                             \
  } while (0)

// wa, wb = a band's words, rows from yn (as LOAD_SLABS). With PF they were loaded during the band
// before into nxa, nxb, which now take the next band's (rows from yn + 16) where `more` (there
// is a next band); without, they are loaded now.
#if PF
#define BAND_SLABS(wa, wb, nxa, nxb, yn, more) \
  do {                                         \
    UNROLL                                     \
    for (int j_ = 0; j_ < NW; ++j_) {          \
      wa[j_] = nxa[j_];                        \
      wb[j_] = nxb[j_];                        \
    }                                          \
    if (more) LOAD_SLABS(nxa, nxb, (yn) + 16); \
  } while (0)
#else
#define BAND_SLABS(wa, wb, nxa, nxb, yn, more) LOAD_SLABS(wa, wb, yn)
#endif

// The byte at offset t of a staged row (s: its first word).
inline uchar staged_byte(__local const uint* s, int t) {
  return (uchar)(s[t >> 2] >> (8 * (t & 3)));
}

// Stores a band: rows yb .. yb + 15 (those below `height`) of dst, elements x0 .. x0 + 16 NS - 1
// of each (those below n), from the warp's staging (row r at os + r * OS, element x0 + t at byte
// t). Every lane of the warp calls it; rows (`pitch` bytes apart) may start at any byte.
inline void store_band_words(__global uchar* dst, __local const uint* os, int yb, int x0, int n,
                             int pitch, int height, int lane) {
  const int nk = 4 * NS + 1;  // aligned words a row's segment touches, at most
  const int x1 = min(x0 + 16 * NS, n);
  // The whole words: consecutive lanes, consecutive words of a row (coalesced).
  UNROLL
  for (int i0 = 0; i0 < 16 * nk; i0 += 32) {
    const int i = i0 + lane, r = i / nk, k = i - r * nk, y = yb + r;
    const size_t g0 = (size_t)y * pitch + x0, g1 = (size_t)y * pitch + x1;
    const uint o = (uint)g0 & 3u;
    const size_t at = g0 - o + 4 * (size_t)k;
    if (i < 16 * nk && y < height && at >= g0 && at + 4 <= g1) {
      __local const uint* s = os + r * OS + k;
      *(__global uint*)(dst + at) = perm(k > 0 ? s[-1] : 0u, s[0], 0x7654u - 0x1111u * o);
    }
  }
  // The partial words: lane 2r + e takes row r's first (e = 0) or last (e = 1) word.
  const int r = lane >> 1, y = yb + r;
  const size_t g0 = (size_t)y * pitch + x0, g1 = (size_t)y * pitch + x1;
  const size_t a0 = g0 - ((uint)g0 & 3u);                                // the first word
  const size_t at = (lane & 1) ? (g1 - 1) - ((uint)(g1 - 1) & 3u) : a0;  // the last word
  const bool partial = at < g0 || at + 4 > g1;
  if (y < height && x0 < n && partial && !((lane & 1) && at == a0)) {
    __local const uint* s = os + r * OS;
#pragma unroll 1
    for (int b = 0; b < 4; ++b)
      if (at + b >= g0 && at + b < g1) dst[at + b] = staged_byte(s, (int)(at + b - g0));
  }
}

// A band from the warp's staging (as store_band_words): rows of whole 16-byte vectors lane by
// lane, 16-byte stores; any other rows as the aligned words of the destination each row covers.
// `live`: the warp's strip lies in the frame (else it stores nothing; it still takes part).
inline void store_band(__global uchar* dst, __local const uint* os, int yb, int x0, int n,
                       int pitch, int height, int lane, bool live) {
#if ALIGNED16
  UNROLL
  for (int k = 0; k < (16 * NS + 31) / 32; ++k) {
    const int i = lane + 32 * k, r = i / NS, c = i % NS;
    const int y = yb + r, x = x0 + 16 * c;
    if (live && i < 16 * NS && y < height && x < n)
      *(__global uint4*)(dst + (size_t)y * pitch + x) = vload4(0, os + r * OS + 4 * c);
  }
#else
  if (live) store_band_words(dst, os, yb, x0, n, pitch, height, lane);
#endif
}

#endif
