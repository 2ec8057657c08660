// resize: every output pixel gathers its source taps through per-axis tables computed on the
// host as cv::resize computes them (pipeline/stages/resize_tables.hpp): for output column x,
// tap k reads source column xi[x*KX+k] with weight xw[x*KX+k]; rows likewise with yi, yw.
//
// -DCN=1|3|4 channels. -DKX, -DKY taps per axis (compile-time, so the loops unroll).
// -DMODE_NEAREST: one tap each, a copy. -DMODE_FIXED: 11-bit integer weights, summed as
// OpenCV's scalar path: rows of sum(wx*src) (int), then (sum(wy*row) + 2^21) >> 22.
// -DMODE_AREA: float weights (the covered fractions), rounded to nearest even at the end.
//
// One work-item per output pixel on a 2D range; neighbouring work-items along x read
// neighbouring table entries and, shrinking or enlarging, nearby source bytes of the same rows,
// which the caches serve. Channels are loaded together (vload3/vload4: any byte alignment).

#if CN == 1
#define PIX uchar
#define ACC_I int
#define ACC_F float
#define LOAD(p) (*(p))
#define STORE(v, p) (*(p) = (v))
#define CONV_I(v) convert_int(v)
#define CONV_F(v) convert_float(v)
#define SAT_U8(v) convert_uchar_sat(v)
#define SAT_U8_RTE(v) convert_uchar_sat_rte(v)
#elif CN == 3
#define PIX uchar3
#define ACC_I int3
#define ACC_F float3
#define LOAD(p) vload3(0, p)
#define STORE(v, p) vstore3(v, 0, p)
#define CONV_I(v) convert_int3(v)
#define CONV_F(v) convert_float3(v)
#define SAT_U8(v) convert_uchar3_sat(v)
#define SAT_U8_RTE(v) convert_uchar3_sat_rte(v)
#else
#define PIX uchar4
#define ACC_I int4
#define ACC_F float4
#define LOAD(p) vload4(0, p)
#define STORE(v, p) vstore4(v, 0, p)
#define CONV_I(v) convert_int4(v)
#define CONV_F(v) convert_float4(v)
#define SAT_U8(v) convert_uchar4_sat(v)
#define SAT_U8_RTE(v) convert_uchar4_sat_rte(v)
#endif

__kernel void resize(__global const uchar* src, __global uchar* dst, int srcW, int dstW, int dstH,
                     __global const int* xi, __global const float* xw, __global const int* yi,
                     __global const float* yw) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= dstW || y >= dstH) return;
  const size_t srcRow = (size_t)srcW * CN;
  __global uchar* out = dst + ((size_t)y * dstW + x) * CN;
#if defined(MODE_NEAREST)
  STORE(LOAD(src + (size_t)yi[y] * srcRow + (size_t)xi[x] * CN), out);
#elif defined(MODE_FIXED)
  int cx[KX], wx[KX];
  for (int k = 0; k < KX; ++k) {
    cx[k] = xi[x * KX + k] * CN;
    wx[k] = (int)xw[x * KX + k];
  }
  ACC_I acc = (ACC_I)0;
  for (int ky = 0; ky < KY; ++ky) {
    const __global uchar* row = src + (size_t)yi[y * KY + ky] * srcRow;
    ACC_I h = (ACC_I)0;
    for (int k = 0; k < KX; ++k) h += CONV_I(LOAD(row + cx[k])) * wx[k];
    acc += h * (int)yw[y * KY + ky];
  }
  STORE(SAT_U8((acc + (1 << 21)) >> 22), out);
#else
  int cx[KX];
  float wx[KX];
  for (int k = 0; k < KX; ++k) {
    cx[k] = xi[x * KX + k] * CN;
    wx[k] = xw[x * KX + k];
  }
  ACC_F acc = (ACC_F)0;
  for (int ky = 0; ky < KY; ++ky) {
    const __global uchar* row = src + (size_t)yi[y * KY + ky] * srcRow;
    ACC_F h = (ACC_F)0;
    for (int k = 0; k < KX; ++k) h += CONV_F(LOAD(row + cx[k])) * wx[k];
    acc += h * yw[y * KY + ky];
  }
  STORE(SAT_U8_RTE(acc), out);
#endif
}
