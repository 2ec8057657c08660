// Border handling shared by every stage. The host defines exactly one of BORDER_CONSTANT,
// BORDER_REPLICATE, BORDER_REFLECT, BORDER_REFLECT101, BORDER_WRAP (see pipeline/border.hpp).
// With the row "abcdefgh" (n = 8):
//
//   BORDER_REPLICATE    aaaaaa|abcdefgh|hhhhhhh
//   BORDER_REFLECT      fedcba|abcdefgh|hgfedcb
//   BORDER_REFLECT101   gfedcb|abcdefgh|gfedcba
//   BORDER_WRAP         cdefgh|abcdefgh|abcdefg
//   BORDER_CONSTANT     iiiiii|abcdefgh|iiiiiii   border_index() returns -1: use the constant
//
// The loops fold indices more than one frame away (a 1-pixel-wide frame under a 7-tap filter).

#ifndef VF_BORDER_CL
#define VF_BORDER_CL

// The modes as numbers (pipeline/border.hpp's BorderMode): border_fold takes one as a constant,
// so a kernel can fold indices under two modes (a stage and the one it computes in its pass).
#define VF_BORDER_CONSTANT 0
#define VF_BORDER_REPLICATE 1
#define VF_BORDER_REFLECT 2
#define VF_BORDER_WRAP 3
#define VF_BORDER_REFLECT101 4

inline int border_fold(int i, int n, int mode) {
  if (mode == VF_BORDER_REPLICATE) return clamp(i, 0, n - 1);
  if (mode == VF_BORDER_CONSTANT) return (i < 0 || i >= n) ? -1 : i;
  if (mode == VF_BORDER_WRAP) {
    i %= n;
    return i < 0 ? i + n : i;
  }
  if (n == 1) return 0;
  if (mode == VF_BORDER_REFLECT)
    while (i < 0 || i >= n) i = (i < 0) ? -i - 1 : 2 * n - i - 1;
  else
    while (i < 0 || i >= n) i = (i < 0) ? -i : 2 * n - i - 2;
  return i;
}

#if defined(BORDER_REPLICATE)
#define BORDER_MODE VF_BORDER_REPLICATE
#elif defined(BORDER_REFLECT)
#define BORDER_MODE VF_BORDER_REFLECT
#elif defined(BORDER_REFLECT101)
#define BORDER_MODE VF_BORDER_REFLECT101
#elif defined(BORDER_WRAP)
#define BORDER_MODE VF_BORDER_WRAP
#elif defined(BORDER_CONSTANT)
#define BORDER_MODE VF_BORDER_CONSTANT
#else
#error "define one BORDER_* mode"
#endif

inline int border_index(int i, int n) { return border_fold(i, n, BORDER_MODE); }

// Element x of an interleaved row of `width` pixels of `channels` elements each (x may lie past
// either end): the element the border rule reads instead, in the same channel, or -1 for the
// constant.
inline int border_element(int x, int width, int channels) {
  const int px = x >= 0 ? x / channels : -((-x + channels - 1) / channels);  // floor(x / channels)
  const int bx = border_index(px, width);
  return bx < 0 ? -1 : bx * channels + (x - px * channels);
}

#endif
