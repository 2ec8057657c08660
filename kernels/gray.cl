// BGR(A) -> gray exactly as OpenCV's cvtColor(COLOR_BGR2GRAY) for 8-bit data: fixed point with
// 15 fractional bits (OpenCV's gray_shift), Y = (3735*B + 19235*G + 9798*R + 2^14) >> 15.
// The weights sum to 2^15, so white stays 255.
// -DCHANNELS=3|4. -DPX=1|4|16: pixels per work-item (row-major flat index). -DWORDS=0|1.
//   PX=1   one pixel per work-item: neighbouring work-items read neighbouring bytes (three byte
//          loads and a byte store per pixel).
//   PX=4   4 pixels from 3 (or 4) aligned 32-bit loads, one 32-bit store: a quarter of the memory
//          instructions of PX=1, bytes taken apart with shifts (for GPUs).
//   PX=16  16 pixels from 3 (or 4) aligned 16-byte loads, stored as one 16-byte vector. With
//          -DWORDS=1 (GPUs) each group of 3 (or 4) words is taken apart as PX=4 does; with
//          WORDS=0 (CPUs) the bytes are split into B, G and R lanes by shuffles and the 16
//          results computed in 32-bit lanes: on PoCL the one-pixel form's stride-3 loads become
//          gathers. The work-item holding the last partial group of 16 does it pixel by pixel.

#define B2Y 3735
#define G2Y 19235
#define R2Y 9798

inline uchar gray1(const __global uchar* p) {
  return (uchar)((p[0] * B2Y + p[1] * G2Y + p[2] * R2Y + (1 << 14)) >> 15);
}

// 4 pixels' gray bytes as one word, from their 3 words (BGR: B0 G0 R0 B1 | G1 R1 B2 G2 | R2 B3
// G3 R3; w3 unused) or 4 (BGRA: one pixel a word).
inline uint gray4(uint w0, uint w1, uint w2, uint w3) {
#if CHANNELS == 3
  (void)w3;
  const uint4 b = (uint4)(w0 & 0xFF, w0 >> 24, (w1 >> 16) & 0xFF, (w2 >> 8) & 0xFF);
  const uint4 g = (uint4)((w0 >> 8) & 0xFF, w1 & 0xFF, w1 >> 24, (w2 >> 16) & 0xFF);
  const uint4 r = (uint4)((w0 >> 16) & 0xFF, (w1 >> 8) & 0xFF, w2 & 0xFF, w2 >> 24);
#else
  const uint4 w = (uint4)(w0, w1, w2, w3);
  const uint4 b = w & 0xFF, g = (w >> 8) & 0xFF, r = (w >> 16) & 0xFF;
#endif
  const uint4 y = (b * B2Y + g * G2Y + r * R2Y + (1u << 14)) >> 15;
  return y.x | (y.y << 8) | (y.z << 16) | (y.w << 24);
}

__kernel void bgr_to_gray(__global const uchar* src, __global uchar* dst, int pixels) {
#if PX == 1
  const int i = get_global_id(0);
  if (i >= pixels) return;
  dst[i] = gray1(src + i * CHANNELS);
#else
  const int i0 = get_global_id(0) * PX;
  if (i0 >= pixels) return;
  if (i0 + PX > pixels) {  // the last partial group, pixel by pixel
    for (int i = i0; i < pixels; ++i) dst[i] = gray1(src + i * CHANNELS);
    return;
  }
#if PX == 4
  // 4 pixels start at byte 12*k (or 16*k): 4-byte aligned (buffers are).
  const __global uint* p = (const __global uint*)(src + i0 * CHANNELS);
#if CHANNELS == 3
  *(__global uint*)(dst + i0) = gray4(p[0], p[1], p[2], 0);
#else
  const uint4 w = *(const __global uint4*)p;
  *(__global uint*)(dst + i0) = gray4(w.x, w.y, w.z, w.w);
#endif
#elif WORDS
  // 16 pixels start at byte 48*k (or 64*k): 16-byte aligned (buffers are); 4 pixels at a time
  // from their 3 (or 4) words.
  const __global uint4* v = (const __global uint4*)(src + i0 * CHANNELS);
#if CHANNELS == 3
  const uint4 a = v[0], b = v[1], c = v[2];
  *(__global uint4*)(dst + i0) = (uint4)(gray4(a.x, a.y, a.z, 0), gray4(a.w, b.x, b.y, 0),
                                         gray4(b.z, b.w, c.x, 0), gray4(c.y, c.z, c.w, 0));
#else
  const uint4 a = v[0], b = v[1], c = v[2], d = v[3];
  *(__global uint4*)(dst + i0) = (uint4)(gray4(a.x, a.y, a.z, a.w), gray4(b.x, b.y, b.z, b.w),
                                         gray4(c.x, c.y, c.z, c.w), gray4(d.x, d.y, d.z, d.w));
#endif
#else
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
  const uint16 y = (convert_uint16(bl) * B2Y + convert_uint16(gl) * G2Y + convert_uint16(rl) * R2Y +
                    (1u << 14)) >>
                   15;
  *(__global uchar16*)(dst + i0) = convert_uchar16(y);
#endif
#endif
}
