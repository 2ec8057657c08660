// BGR(A) -> gray exactly as OpenCV's cvtColor(COLOR_BGR2GRAY) for 8-bit data: fixed point with
// 15 fractional bits (OpenCV's gray_shift), Y = (3735*B + 19235*G + 9798*R + 2^14) >> 15.
// The weights sum to 2^15, so white stays 255.
// -DCHANNELS=3|4. One work-item per pixel (row-major flat index).

#define B2Y 3735
#define G2Y 19235
#define R2Y 9798

__kernel void bgr_to_gray(__global const uchar* src, __global uchar* dst, int pixels) {
  const int i = get_global_id(0);
  if (i >= pixels) return;
  const __global uchar* p = src + i * CHANNELS;
  dst[i] = (uchar)((p[0] * B2Y + p[1] * G2Y + p[2] * R2Y + (1 << 14)) >> 15);
}
