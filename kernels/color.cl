// color: 8-bit colour conversions exactly as cv::cvtColor computes them (its scalar integer
// paths, which its vector paths equal), one work-item per pixel, the pixel's channels loaded
// together (vload3/vload4) and the result stored as one vector.
//
//   TO_YUV  COLOR_BGR2YUV: Y = (1868 B + 9617 G + 4899 R + 2^13) >> 14;
//           U = ((B - Y) 8061 + (128 << 14) + 2^13) >> 14; V likewise from R with 14369.
//   TO_HSV  COLOR_BGR2HSV (H in [0, 180)): v = max, diff = v - min,
//           s = (diff * sdiv[v] + 2^11) >> 12, h from the sector of the max,
//           h = (h * hdiv[diff] + 2^11) >> 12 (+180 when negative); sdiv, hdiv: OpenCV's tables
//           (255 << 12) / v and (180 << 12) / (6 diff), rounded, from the host.
//   TO_LAB  COLOR_BGR2Lab (within one level, 1 value in 10^5: the tables, see the stage): each
//   channel through the sRGB gamma table (x 8), XYZ / white point
//           in 12-bit fixed point, each through the cube-root table (x 2^15), then
//           L = (296 fY - 1336934 + 2^14) >> 15 and a, b around 128 (the host's tables and
//           coefficients are OpenCV's).
//   TO_BGR  from bgra (alpha dropped) or gray (replicated).
//
// -DCN_IN=1|3|4 channels in; -DCN_OUT=1|3 out (gray output is the gray stage's).

#define DESCALE(x, n) (((x) + (1 << ((n)-1))) >> (n))

#if CN_IN == 3
#define LOAD_PX(p) convert_int3(vload3(0, p))
#elif CN_IN == 4
#define LOAD_PX(p) convert_int3(vload4(0, p).xyz)
#else
#define LOAD_PX(p) ((int3)((int)(p)[0]))
#endif

__kernel void color(__global const uchar* src, __global uchar* dst, int pixels,
                    __constant int* tabA, __constant int* tabB, __constant int* coeffs) {
  const int i = get_global_id(0);
  if (i >= pixels) return;
  const int3 px = LOAD_PX(src + (size_t)i * CN_IN);
  const int b = px.x, g = px.y, r = px.z;
  int3 out;
#if defined(TO_YUV)
  const int y = DESCALE(b * 1868 + g * 9617 + r * 4899, 14);
  const int u = DESCALE((b - y) * 8061 + (128 << 14), 14);
  const int v = DESCALE((r - y) * 14369 + (128 << 14), 14);
  out = (int3)(y, u, v);
#elif defined(TO_HSV)
  // tabA: sdiv, tabB: hdiv (OpenCV's RGB2HSV_b tables)
  const int v = max(b, max(g, r));
  const int vmin = min(b, min(g, r));
  const int diff = v - vmin;
  const int vr = v == r ? -1 : 0, vg = v == g ? -1 : 0;
  const int s = (diff * tabA[v] + (1 << 11)) >> 12;
  int h = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
  h = (h * tabB[diff] + (1 << 11)) >> 12;
  h += h < 0 ? 180 : 0;
  out = (int3)(h, s, v);
#elif defined(TO_LAB)
  // tabA: sRGB gamma (256), tabB: cube root (3072), coeffs: 9 fixed-point XYZ coefficients
  // coeffs are ordered as the input: B, G, R
  const int B = tabA[b], G = tabA[g], R = tabA[r];
  const int fX = tabB[DESCALE(B * coeffs[0] + G * coeffs[1] + R * coeffs[2], 12)];
  const int fY = tabB[DESCALE(B * coeffs[3] + G * coeffs[4] + R * coeffs[5], 12)];
  const int fZ = tabB[DESCALE(B * coeffs[6] + G * coeffs[7] + R * coeffs[8], 12)];
  const int L = DESCALE(296 * fY - 1336934, 15);  // (116*255+50)/100, -(16*255*2^15+50)/100
  const int A = DESCALE(500 * (fX - fY) + (128 << 15), 15);
  const int Bb = DESCALE(200 * (fY - fZ) + (128 << 15), 15);
  out = (int3)(L, A, Bb);
#else
  out = px;
#endif
  vstore3(convert_uchar3_sat(out), 0, dst + (size_t)i * 3);
}
