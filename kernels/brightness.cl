// dst = saturate(gain * src + bias), as cv::Mat::convertTo(dst, -1, gain, bias): computed in
// float, rounded to nearest even, saturated to [0, 255]. Every channel alike, so the frame is
// one flat byte array. VEC bytes per work-item (one VEC-wide vector).
// -DVEC=16
//
// Loads and stores go through a vector pointer, not vloadn/vstoren: device buffers start
// aligned to at least 128 bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN) and every vector here starts at
// a multiple of its size, while PoCL turns vload16/vstore16 of uchar into 16 byte moves.
//
// Rounding: convert_uchar_sat_rte and rint both become long software sequences on PoCL (about
// 25 instructions per vector, which make the kernel compute-bound). Instead, after clamping to
// [0, 255], adding 1.5 * 2^23 puts the value in the range where floats are spaced 1 apart, so
// the addition itself rounds to nearest even (the default rounding mode), and the integer sits
// in the low mantissa bits: as_int(x + 1.5 * 2^23) - as_int(1.5 * 2^23). Same results as
// convert_uchar_sat_rte, a few instructions per vector.

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define UCHARV XCAT(uchar, VEC)
#define CONVERT_FLOATV XCAT(convert_float, VEC)
#define CONVERT_UCHARV XCAT(convert_uchar, VEC)
#define AS_INTV XCAT(as_int, VEC)

#define ROUND_MAGIC 12582912.0f      // 1.5 * 2^23
#define ROUND_MAGIC_BITS 0x4B400000  // as_int(ROUND_MAGIC)
// float (vector) -> uchar (vector), rounded half to even and saturated, as convert_uchar_sat_rte.
#define TO_UCHARV(x) \
  CONVERT_UCHARV(AS_INTV(clamp((x), 0.0f, 255.0f) + ROUND_MAGIC) - ROUND_MAGIC_BITS)
#define TO_UCHAR16(x) \
  convert_uchar16(as_int16(clamp((x), 0.0f, 255.0f) + ROUND_MAGIC) - ROUND_MAGIC_BITS)
#define TO_UCHAR(x) ((uchar)(as_int(clamp((x), 0.0f, 255.0f) + ROUND_MAGIC) - ROUND_MAGIC_BITS))

__kernel void brightness_linear(__global const uchar* src, __global uchar* dst, int n, float gain,
                                float bias) {
  const int item = get_global_id(0);
  const int i = item * VEC;
  if (i + VEC <= n) {
    const UCHARV v = ((__global const UCHARV*)src)[item];
    ((__global UCHARV*)dst)[item] = TO_UCHARV(CONVERT_FLOATV(v) * gain + bias);
  } else {
    for (int k = i; k < n; ++k) dst[k] = TO_UCHAR((float)src[k] * gain + bias);
  }
}

// ---- mode=auto: per-channel gain and bias computed on the device from the histogram ----------
// -DCHANNELS=1|3|4 -DSTRETCH=<channels stretched: 1, 3; alpha keeps gain 1, bias 0>

#ifdef CHANNELS

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// One work-group of 256 per channel: hist (CHANNELS x 256 uint, channel-major) -> gain_bias
// (CHANNELS gains, then CHANNELS biases). With cum[v] = pixels with value <= v and t = clip% of
// the pixels (the host passes floor(t), and for integer counts cum > t <=> cum > floor(t)):
//   low  = the smallest v with cum[v] > t
//   high = the largest v with (pixels with value >= v) = pixels - cum[v-1] > t
// gain = 255 / (high - low), bias = -low * gain (as OpenCV's double, to float); gain 1, bias 0
// when high <= low.
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void brightness_auto_levels(
    __global const uint* hist, uint pixels, uint clip_count, __global float* gain_bias) {
  __local uint cum[256];
  __local int low_high[2];
  const int c = get_group_id(0);
  const int v = get_local_id(0);
  cum[v] = hist[c * 256 + v];
  barrier(CLK_LOCAL_MEM_FENCE);
  // Inclusive prefix sum (Hillis-Steele): 8 steps, two barriers each.
  for (int off = 1; off < 256; off <<= 1) {
    const uint add = v >= off ? cum[v - off] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    cum[v] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint below = v > 0 ? cum[v - 1] : 0u;  // pixels with value < v
  const uint upto = cum[v];                    // pixels with value <= v
  // Both conditions hold for exactly one v each (cum only grows, cum[255] = pixels > t).
  if (upto > clip_count && below <= clip_count) low_high[0] = v;
  if (pixels - below > clip_count && (v == 255 || pixels - upto <= clip_count)) low_high[1] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (v == 0) {
    const int low = low_high[0], high = low_high[1];
    float gain = 1.0f, bias = 0.0f;
    if (c < STRETCH && high > low) {
      // As OpenCV's reference: gain and bias in double, each rounded to float by convertTo.
      // Without fp64, 255 low (exact in float) over high - low: one division, the same float
      // for every low and high where it rounds correctly (OpenCL C allows 2.5 ulp).
#ifdef cl_khr_fp64
      const double g = 255.0 / (double)(high - low);
      gain = (float)g;
      bias = (float)(-(double)low * g);
#else
      gain = 255.0f / (float)(high - low);
      bias = -(float)(255 * low) / (float)(high - low);
#endif
    }
    gain_bias[c] = gain;
    gain_bias[CHANNELS + c] = bias;
  }
}

// dst = saturate(gain[c] * src + bias[c]) with c = byte index % CHANNELS (rounded as above,
// aligned vector pointers as above). One work-item per
// chunk of APPLY_VECS 16-byte vectors (a whole number of pixels: 16 bytes, 48 for bgr); the
// per-byte gain pattern of each vector is fixed, so it is built once per work-item.
#if CHANNELS == 3
#define APPLY_VECS 3
#else
#define APPLY_VECS 1
#endif
#define APPLY_CHUNK (16 * APPLY_VECS)
#define PATTERN3(a, b, c) (float16)(a, b, c, a, b, c, a, b, c, a, b, c, a, b, c, a)
#define PATTERN4(a, b, c, d) (float16)(a, b, c, d, a, b, c, d, a, b, c, d, a, b, c, d)
#define APPLY16(k, g, b)        \
  ((__global uchar16*)dst)[k] = \
      TO_UCHAR16(convert_float16(((__global const uchar16*)src)[k]) * (g) + (b))

__kernel void brightness_auto_apply(__global const uchar* src, __global uchar* dst, int n,
                                    __global const float* gain_bias) {
  const int chunk = get_global_id(0);
  const int i = chunk * APPLY_CHUNK;
  __global const float* g = gain_bias;
  __global const float* b = gain_bias + CHANNELS;
  if (i + APPLY_CHUNK <= n) {
#if CHANNELS == 1
    APPLY16(chunk, (float16)(g[0]), (float16)(b[0]));
#elif CHANNELS == 3
    // 16 % 3 == 1: the second vector starts at channel 1, the third at channel 2.
    APPLY16(chunk * 3 + 0, PATTERN3(g[0], g[1], g[2]), PATTERN3(b[0], b[1], b[2]));
    APPLY16(chunk * 3 + 1, PATTERN3(g[1], g[2], g[0]), PATTERN3(b[1], b[2], b[0]));
    APPLY16(chunk * 3 + 2, PATTERN3(g[2], g[0], g[1]), PATTERN3(b[2], b[0], b[1]));
#else
    APPLY16(chunk, PATTERN4(g[0], g[1], g[2], g[3]), PATTERN4(b[0], b[1], b[2], b[3]));
#endif
  } else {
    for (int k = i; k < n; ++k) {
      const int ch = k % CHANNELS;
      dst[k] = TO_UCHAR((float)src[k] * g[ch] + b[ch]);
    }
  }
}

#endif  // CHANNELS
