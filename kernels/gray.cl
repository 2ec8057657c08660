// BGR(A) -> gray exactly as OpenCV's cvtColor(COLOR_BGR2GRAY) for 8-bit data: fixed point with
// 15 fractional bits (OpenCV's gray_shift), Y = (3735*B + 19235*G + 9798*R + 2^14) >> 15.
// The weights sum to 2^15, so white stays 255.
// -DCHANNELS=3|4. -DPX=1|16: pixels per work-item (row-major flat index).
//   PX=1   (GPUs) one pixel per work-item: neighbouring work-items read neighbouring bytes.
//   PX=16  (CPUs) 16 pixels from 3 (or 4) aligned 16-byte loads, split into B, G and R lanes by
//          shuffles, 16 results computed in 32-bit lanes and stored as one 16-byte vector: on
//          PoCL the one-pixel form's stride-3 loads become gathers (3.2x cv::cvtColor on 2
//          cores, docs/PERFORMANCE.md). The work-item holding the last partial group of 16 does
//          it pixel by pixel.

#define B2Y 3735
#define G2Y 19235
#define R2Y 9798

inline uchar gray1(const __global uchar* p) {
  return (uchar)((p[0] * B2Y + p[1] * G2Y + p[2] * R2Y + (1 << 14)) >> 15);
}

__kernel void bgr_to_gray(__global const uchar* src, __global uchar* dst, int pixels) {
#if PX == 1
  const int i = get_global_id(0);
  if (i >= pixels) return;
  dst[i] = gray1(src + i * CHANNELS);
#else
  const int i0 = get_global_id(0) * 16;
  if (i0 >= pixels) return;
  if (i0 + 16 > pixels) {
    for (int i = i0; i < pixels; ++i) dst[i] = gray1(src + i * CHANNELS);
    return;
  }
  // 16 pixels start at byte 48*k (or 64*k): 16-byte aligned (buffers are).
  const __global uchar16* v = (const __global uchar16*)(src + i0 * CHANNELS);
#if CHANNELS == 3
  const uchar16 a = v[0], b = v[1], c = v[2];
  const uchar16 bl = (uchar16)(a.s0369, a.scf, b.s258b, b.se, c.s147a, c.sd);
  const uchar16 gl = (uchar16)(a.s147a, a.sd, b.s0369, b.scf, c.s258b, c.se);
  const uchar16 rl = (uchar16)(a.s258b, a.se, b.s147a, b.sd, c.s0369, c.scf);
#else
  const uchar16 a = v[0], b = v[1], c = v[2], d = v[3];
  const uchar16 bl = (uchar16)(a.s048c, b.s048c, c.s048c, d.s048c);
  const uchar16 gl = (uchar16)(a.s159d, b.s159d, c.s159d, d.s159d);
  const uchar16 rl = (uchar16)(a.s26ae, b.s26ae, c.s26ae, d.s26ae);
#endif
  const uint16 y = (convert_uint16(bl) * B2Y + convert_uint16(gl) * G2Y +
                    convert_uint16(rl) * R2Y + (1u << 14)) >> 15;
  *(__global uchar16*)(dst + i0) = convert_uchar16(y);
#endif
}
