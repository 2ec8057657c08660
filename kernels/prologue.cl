// A kernel's source read through point-wise functions (a prologue: Stage::setPrologue), by
// index: SRC_WORD(k) is word k of the source (bytes 4k .. 4k + 3), SRC_BYTE(e) byte e; both
// name `src`. With PROLOGUE the source is the frame that the host's generated pro_pixel
// (PRO_CH bytes a pixel in, PRO_OUT out; its parameters declared by PRO_DECL, passed on as
// PRO_PASS: a function that reads words appends PRO_DECL to its parameters) makes of `src`,
// computed as it is read: each byte its pixel's function applied to the pixel of `src` at the
// same place. Without, plain loads. Needs UNROLL.

#ifndef VF_PROLOGUE_CL
#define VF_PROLOGUE_CL

#if PROLOGUE
#if PRO_OUT != 1
#error "prologue.cl: functions that make one channel (PRO_OUT 1)"
#endif
inline uint pro_word(__global const uchar* src, size_t k PRO_DECL) {
  uchar in[4], out[4];
  uint w = 0;
  // Four pixels: their 4 PRO_CH bytes of src as PRO_CH aligned words.
  const __global uint* p = (const __global uint*)src + k * PRO_CH;
  uint iw[PRO_CH];
  UNROLL
  for (int j = 0; j < PRO_CH; ++j) iw[j] = p[j];
  UNROLL
  for (int i = 0; i < 4; ++i) {
    UNROLL
    for (int c = 0; c < PRO_CH; ++c) {
      const int b = i * PRO_CH + c;
      in[c] = (uchar)(iw[b >> 2] >> (8 * (b & 3)));
    }
    pro_pixel(in, out PRO_PASS);
    w |= (uint)out[0] << (8 * i);
  }
  return w;
}

inline uchar pro_byte(__global const uchar* src, size_t e PRO_DECL) {
  uchar in[4], out[4];
  const size_t px = e / PRO_OUT;
  for (int c = 0; c < PRO_CH; ++c) in[c] = src[px * PRO_CH + c];
  pro_pixel(in, out PRO_PASS);
  return out[e % PRO_OUT];
}
#define SRC_WORD(i) pro_word(src, (i)PRO_PASS)
#define SRC_BYTE(i) pro_byte(src, (i)PRO_PASS)
#else
#define PRO_DECL
#define PRO_PASS
#define SRC_WORD(i) (((const __global uint*)src)[i])
#define SRC_BYTE(i) (src[i])
#endif

#endif
