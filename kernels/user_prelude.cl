// What a user's kernel (the kernel stage, kernel=file.cl) sees before its own source.
//
// A pixel is a uchar4 whatever the frame: gray (v, v, v, 255), bgr (b, g, r, 255), bgra as is;
// the result's x is kept for gray, xyz for bgr, all four for bgra. The parameters p0..p7 arrive
// as one float8, p.s0 .. p.s7 (live: the preview and Params::set change them between frames).
//
// The user's file defines one of:
//   uchar4 point(uchar4 px, int2 pos, int2 size, float8 p)        each pixel from itself
//   uchar4 neighbourhood(vf_image img, int2 pos, float8 p)        each pixel from any others,
//       read with vf_read(img, x, y), which applies the stage's border mode outside the frame.
//
// -DCN=1|3|4; one -DBORDER_<MODE> (kernels/border.cl).
#include "border.cl"

typedef struct {
  __global const uchar* data;
  int width, height;
  uchar4 constant_;  // what BORDER_CONSTANT reads outside the frame
} vf_image;

inline uchar4 vf_load(__global const uchar* at) {
#if CN == 1
  return (uchar4)(at[0], at[0], at[0], 255);
#elif CN == 3
  return (uchar4)(vload3(0, at), 255);
#else
  return vload4(0, at);
#endif
}

inline void vf_store(uchar4 v, __global uchar* at) {
#if CN == 1
  at[0] = v.x;
#elif CN == 3
  vstore3(v.xyz, 0, at);
#else
  vstore4(v, 0, at);
#endif
}

// border_index for any int: a user's coordinate may lie any distance out, where the reflecting
// rules' fold (one bounce a step) would take that many steps; they repeat every 2n (reflect) or
// 2n - 2 (reflect101) elements, so a coordinate past one frame is first taken modulo that.
inline int vf_border(int i, int n) {
#if defined(BORDER_REFLECT) || defined(BORDER_REFLECT101)
  if (n > 1 && (i < -n || i >= 2 * n)) {
#if defined(BORDER_REFLECT)
    const long period = 2 * (long)n;
#else
    const long period = 2 * (long)n - 2;
#endif
    const long r = (long)i % period;
    i = (int)(r < 0 ? r + period : r);
  }
#endif
  return border_index(i, n);
}

// The pixel at (x, y), either may lie outside the frame: the border mode decides.
inline uchar4 vf_read(vf_image img, int x, int y) {
  const int bx = vf_border(x, img.width), by = vf_border(y, img.height);
  if (bx < 0 || by < 0) return img.constant_;
  return vf_load(img.data + ((size_t)by * img.width + bx) * CN);
}

// float and back, rounded to nearest and saturated, for arithmetic on pixels.
inline float4 vf_float(uchar4 v) { return convert_float4(v); }
inline uchar4 vf_uchar(float4 v) { return convert_uchar4_sat_rte(v); }
