// Point operations through a 256-entry table per channel, built on the device from this frame's
// histogram or from live arguments, never read back to the host:
//
//   equalize_lut    cv::equalizeHist's table from the histogram of channel c (one work-group
//                   of 256 per channel): i0 the lowest value present; lut[v] = 0 for v <= i0,
//                   else rint(float(cum[v] - cum[i0]) * (255.f / (N - h[i0]))); a frame of one
//                   value keeps it. float and round-half-even as OpenCV.
//   otsu_value      Otsu's threshold of channel 0's histogram into `value[0]`: OpenCV's
//                   getThreshVal_Otsu_8u, the same recurrence in the same order and precision
//                   (double where the device has it), so ties break alike. One work-item: 256
//                   steps, each needing the last.
//   threshold_lut   cv::threshold's table for 8-bit data: t = floor(value), m = rint(maxval);
//                   binary v > t ? m : 0, binary_inv v > t ? 0 : m, trunc min(v, t),
//                   tozero v > t ? v : 0, tozero_inv v > t ? 0 : v. The value comes from a
//                   buffer (Otsu's, computed just before) or a live argument.
//   lut_apply       dst[k] = lut[(k % CN) * 256 + src[k]] (channels past LUT_CN are copied):
//                   the tables sit in local memory, each work-item maps CHUNK bytes (whole
//                   pixels: 16, or 48 for CN == 3), loaded and stored as 16-byte vectors.
//
// -DCN=1|3|4 channels of the frame; -DLUT_CN channels that have a table (3 for bgra: alpha
// passes). threshold_lut's mode (0..4: binary, binary_inv, trunc, tozero, tozero_inv) is an
// argument, so changing it live rebuilds nothing.

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#define REAL_EPS 1.1920928955078125e-07  // FLT_EPSILON, as OpenCV compares
#else
typedef float real;
#define REAL_EPS 1.1920928955078125e-07f
#endif

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void equalize_lut(
    __global const uint* hist, __global uchar* lut, uint total) {
  __local uint cum[256];
  __local uint first;
  const int v = get_local_id(0), c = get_group_id(0);
  const uint h = hist[c * 256 + v];
  if (v == 0) first = 256;
  cum[v] = h;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (h) atomic_min(&first, (uint)v);
  for (int step = 1; step < 256; step <<= 1) {  // inclusive prefix sum (Hillis-Steele)
    const uint add = v >= step ? cum[v - step] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    cum[v] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint i0 = first;
  const uint h0 = cum[i0] - (i0 ? cum[i0 - 1] : 0);
  uchar out;
  if (h0 == total)
    out = (uchar)i0;  // one value: OpenCV leaves the frame as it is
  else if ((uint)v <= i0)
    out = 0;
  else
    out = convert_uchar_sat_rte((float)(int)(cum[v] - cum[i0]) * (255.f / (float)(total - h0)));
  lut[c * 256 + v] = out;
}

__kernel void otsu_value(__global const uint* hist, __global float* value, uint total) {
  if (get_global_id(0) != 0) return;
  const real scale = (real)1 / (real)total;
  real mu = 0;
  for (int i = 0; i < 256; ++i) mu += i * (real)hist[i];
  mu *= scale;
  real mu1 = 0, q1 = 0, maxSigma = 0;
  int best = 0;
  for (int i = 0; i < 256; ++i) {
    const real p = hist[i] * scale;
    mu1 *= q1;
    q1 += p;
    const real q2 = (real)1 - q1;
    if (min(q1, q2) < REAL_EPS || max(q1, q2) > (real)1 - REAL_EPS) continue;
    mu1 = (mu1 + i * p) / q1;
    const real mu2 = (mu - q1 * mu1) / q2;
    const real sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
    if (sigma > maxSigma) {
      maxSigma = sigma;
      best = i;
    }
  }
  value[0] = (float)best;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void threshold_lut(
    __global const float* fromBuffer, float fromArg, int useBuffer, float maxval, int mode,
    __global uchar* lut) {
  const int v = get_local_id(0), c = get_group_id(0);
  const int t = (int)floor(useBuffer ? fromBuffer[0] : fromArg);
  const int m = (int)rint(maxval);
  const int out = mode == 0   ? (v > t ? m : 0)
                  : mode == 1 ? (v > t ? 0 : m)
                  : mode == 2 ? min(v, t)
                  : mode == 3 ? (v > t ? v : 0)
                              : (v > t ? 0 : v);
  lut[c * 256 + v] = (uchar)clamp(out, 0, 255);
}

#define CHUNK (CN == 3 ? 48 : 16)

__kernel void lut_apply(__global const uchar* src, __global uchar* dst, int n,
                        __global const uchar* lut) {
  __local uchar table[LUT_CN * 256];
  for (int i = get_local_id(0); i < LUT_CN * 256; i += get_local_size(0)) table[i] = lut[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  const int k0 = get_global_id(0) * CHUNK;
  if (k0 >= n) return;
  if (k0 + CHUNK <= n) {
    // Whole 16-byte vectors: k0 is a multiple of 16 (CHUNK is), so these are aligned.
    for (int part = 0; part < CHUNK / 16; ++part) {
      uchar b[16];
      vstore16(vload16(0, src + k0 + part * 16), 0, b);
      for (int j = 0; j < 16; ++j) {
        const int ch = (part * 16 + j) % CN;
        if (ch < LUT_CN) b[j] = table[ch * 256 + b[j]];
      }
      vstore16(vload16(0, b), 0, dst + k0 + part * 16);
    }
    return;
  }
  for (int k = k0; k < n; ++k) {  // the last partial chunk, byte by byte
    const int ch = (k - k0) % CN;
    dst[k] = ch < LUT_CN ? table[ch * 256 + src[k]] : src[k];
  }
}
