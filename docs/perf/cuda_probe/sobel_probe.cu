// A CUDA port of vidfilter's direct sobel kernel (kernels/sobel_gpu.cl, scale 1, ksize 3, mode
// mag, one channel, reflect101), to profile with Nsight Compute, which does not profile OpenCL
// kernels. Default: the float path (slide=pixels; bytes as 2^23 + 256*b, exact); -DH2: the
// f16x2 path (strip_h2: the same byte permutes and f16x2 instructions through the same inline
// PTX). Same work-item shape (VX bytes x PY rows, BXxBY blocks; defaults 8x2, 8x4), same loads
// (a VX-byte vector and the words left and right of it per row; at the row's ends only the halo
// byte through the border rule), same stores. Checks its output against a CPU reference, then
// times it and a 16-byte copy kernel on the same frame (CUDA events, median).
//   nvcc -O3 -arch=sm_90 [-DH2 -DVX=16 -DPY=4] -o sobel_probe sobel_probe.cu
//   ./sobel_probe [width height]       ncu --set full -k regex:sobel ./sobel_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

#ifndef VX
#define VX 8
#endif
#ifndef PY
#define PY 2
#endif
#ifndef BX
#define BX 8
#endif
#ifndef BY
#define BY 4
#endif
#define NW (VX / 4 + 2)
#define NB (VX + 2)
#define BIAS 8388608.0f
#if defined(H2)
#define H2_NAME "f16x2"
#else
#define H2_NAME "float"
#endif

__device__ __forceinline__ int reflect101(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - i - 2;
  return i;
}

// vec: the VX bytes lie in the row (rows are VX-aligned); the neighbour words are word loads
// except at the row's ends, where their one halo byte goes through the border rule.
__device__ __forceinline__ void load_row(const uint8_t* __restrict__ src, uint32_t* w, int x0,
                                         int sy, int width, bool vec) {
  if (vec) {
    const uint8_t* p = src + sy * width + x0;
    w[0] = x0 >= 4 ? *reinterpret_cast<const uint32_t*>(p - 4)
                   : uint32_t(src[sy * width + reflect101(x0 - 1, width)]) << 24;
#if VX == 8
    const uint2 q = *reinterpret_cast<const uint2*>(p);
    w[1] = q.x;
    w[2] = q.y;
#else
    const uint4 q = *reinterpret_cast<const uint4*>(p);
    w[1] = q.x;
    w[2] = q.y;
    w[3] = q.z;
    w[4] = q.w;
#endif
    w[NW - 1] = x0 + VX + 4 <= width ? *reinterpret_cast<const uint32_t*>(p + VX)
                                     : uint32_t(src[sy * width + reflect101(x0 + VX, width)]);
  } else {
#pragma unroll
    for (int i = 0; i < NW; ++i) w[i] = 0;
#pragma unroll
    for (int j = -1; j < VX + 1; ++j)
      w[(j + 4) / 4] |= uint32_t(src[sy * width + reflect101(x0 + j, width)])
                        << (8 * ((j + 4) % 4));
  }
}

__device__ __forceinline__ float biased(const uint32_t* w, int j) {
  const uint32_t word = w[(j + 4) / 4];
  const int k = (j + 4) % 4;
  const uint32_t m = k == 0 ? word << 8 : k == 1 ? word : k == 2 ? word >> 8 : word >> 16;
  return __uint_as_float(0x4B000000u | (m & 0xFF00u));
}

// The VX output bytes of a row (words, lowest byte first): one vector store, or byte by byte
// up to the row's end.
__device__ __forceinline__ void store_row(uint8_t* p, const uint32_t* q, int x0, int width,
                                          bool vec) {
  if (vec) {
#if VX == 8
    *reinterpret_cast<uint2*>(p) = make_uint2(q[0], q[1]);
#else
    *reinterpret_cast<uint4*>(p) = make_uint4(q[0], q[1], q[2], q[3]);
#endif
  } else {
#pragma unroll
    for (int i = 0; i < VX; ++i)
      if (x0 + i < width) p[i] = uint8_t(q[i / 4] >> (8 * (i % 4)));
  }
}

#if defined(H2)
// The f16x2 path of kernels/sobel_gpu.cl (strip_h2, H2_PTX): the same permutes and f16x2
// instructions through the same inline PTX.
// One PTX instruction (or block) on 32-bit registers: d = op(a, b) and d = op(a, b, c).
#define PTX2(name, text)                                             \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) { \
    uint32_t d;                                                      \
    asm(text : "=r"(d) : "r"(a), "r"(b));                            \
    return d;                                                        \
  }
#define PTX3(name, text)                                                         \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
    uint32_t d;                                                                  \
    asm(text : "=r"(d) : "r"(a), "r"(b), "r"(c));                                \
    return d;                                                                    \
  }
PTX2(h2_add, "add.rn.f16x2 %0, %1, %2;")
PTX2(h2_sub, "sub.rn.f16x2 %0, %1, %2;")
PTX3(h2_fma, "fma.rn.f16x2 %0, %1, %2, %3;")
PTX2(h2_absmin, "{.reg .b32 t;\n\tabs.f16x2 t, %1;\n\tmin.f16x2 %0, t, %2;}")  // min(|a|, b)
PTX3(perm, "prmt.b32 %0, %1, %2, %3;")
#define NP (VX / 2)
__device__ __forceinline__ void h2_taps(const uint32_t* w, uint32_t* d, uint32_t* s) {
  uint32_t W[NP + 2], S[NP + 1];
  W[0] = perm(w[0], 0x64646464u, 0x4342u);
#pragma unroll
  for (int i = 0; i < VX / 4; ++i) {
    W[1 + 2 * i] = perm(w[1 + i], 0x64646464u, 0x4140u);
    W[2 + 2 * i] = perm(w[1 + i], 0x64646464u, 0x4342u);
  }
  W[NP + 1] = perm(w[NW - 1], 0x64646464u, 0x4140u);
#pragma unroll
  for (int k = 0; k <= NP; ++k) S[k] = perm(W[k], W[k + 1], 0x5432u);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    d[k] = h2_sub(S[k + 1], S[k]);
    s[k] = h2_add(h2_add(h2_fma(W[k + 1], 0x40004000u, 0xEA00EA00u), S[k]), S[k + 1]);
  }
}
// A work-item's strip: VX bytes x PY rows from (x0, y0); fast: the vector lies in the row.
__device__ __forceinline__ void strip(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst,
                                      int width, int height, int x0, int y0, bool fast) {
  uint32_t w[NW], d0[NP], d1[NP], d2[NP], s0[NP], s1[NP], s2[NP];
  load_row(src, w, x0, reflect101(y0 - 1, height), width, fast);
  h2_taps(w, d0, s0);
  load_row(src, w, x0, reflect101(y0, height), width, fast);
  h2_taps(w, d1, s1);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;  // rows past the frame: read folded, not stored
    load_row(src, w, x0, reflect101(y + 1, height), width, fast);
    h2_taps(w, d2, s2);
    uint32_t o[NP], q[VX / 4];
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const uint32_t a = h2_absmin(h2_add(h2_fma(d1[k], 0x40004000u, d0[k]), d2[k]), 0x5BF85BF8u);
      const uint32_t b = h2_absmin(h2_sub(s2[k], s0[k]), 0x5BF85BF8u);
      o[k] = h2_fma(h2_add(a, b), 0x38003800u, 0x64006400u);
    }
#pragma unroll
    for (int i = 0; i < VX / 4; ++i) q[i] = perm(o[2 * i], o[2 * i + 1], 0x6420u);
    if (y < height) store_row(dst + y * width + x0, q, x0, width, fast);
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      d0[k] = d1[k];
      d1[k] = d2[k];
      s0[k] = s1[k];
      s1[k] = s2[k];
    }
  }
}
#else
__device__ __forceinline__ void strip(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst,
                                      int width, int height, int x0, int y0, bool fast) {
  uint32_t w[NW];
  float p0[NB], p1[NB], p2[NB];
  load_row(src, w, x0, reflect101(y0 - 1, height), width, fast);
#pragma unroll
  for (int j = -1; j < VX + 1; ++j) p0[j + 1] = biased(w, j);
  load_row(src, w, x0, reflect101(y0, height), width, fast);
#pragma unroll
  for (int j = -1; j < VX + 1; ++j) p1[j + 1] = biased(w, j);
#pragma unroll
  for (int r = 0; r < PY; ++r) {
    const int y = y0 + r;
    if (y >= height) break;
    load_row(src, w, x0, reflect101(y + 1, height), width, fast);
#pragma unroll
    for (int j = -1; j < VX + 1; ++j) p2[j + 1] = biased(w, j);
    float sv[NB], dv[NB];
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      sv[j] = fmaf(2.0f, p1[j], p0[j]) + p2[j];
      dv[j] = p2[j] - p0[j];
    }
    uint8_t out[VX];
#pragma unroll
    for (int i = 0; i < VX; ++i) {
      const float gx = sv[i + 2] - sv[i];
      const float gy = fmaf(2.0f, dv[i + 1], dv[i]) + dv[i + 2];
      const float m = fminf(fabsf(gx), 255.0f * 256) + fminf(fabsf(gy), 255.0f * 256);
      out[i] = uint8_t(__float_as_uint(fmaf(m, 0x1.0p-9f, BIAS)));
    }
    uint32_t q[VX / 4];
#pragma unroll
    for (int k = 0; k < VX / 4; ++k)
      q[k] = out[4 * k] | (out[4 * k + 1] << 8) | (out[4 * k + 2] << 16) |
             (uint32_t(out[4 * k + 3]) << 24);
    store_row(dst + y * width + x0, q, x0, width, fast);
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      p0[j] = p1[j];
      p1[j] = p2[j];
    }
  }
}

#endif

__global__ void sobel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, int width,
                      int height) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * VX;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * PY;
  if (x0 >= width || y0 >= height) return;
  strip(src, dst, width, height, x0, y0, x0 + VX <= width && width % VX == 0);
}

static int ref_at(const std::vector<uint8_t>& f, int w, int h, int x, int y) {
  auto r = [](int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - i - 2;
    return i;
  };
  auto px = [&](int yy, int xx) { return int(f[size_t(r(yy, h)) * w + r(xx, w)]); };
  const int gx = px(y - 1, x + 1) - px(y - 1, x - 1) + 2 * (px(y, x + 1) - px(y, x - 1)) +
                 px(y + 1, x + 1) - px(y + 1, x - 1);
  const int gy = px(y + 1, x - 1) - px(y - 1, x - 1) + 2 * (px(y + 1, x) - px(y - 1, x)) +
                 px(y + 1, x + 1) - px(y - 1, x + 1);
  const int s = std::min(std::abs(gx), 255) + std::min(std::abs(gy), 255);
  return (s >> 1) + ((s & 1) & ((s >> 1) & 1));  // (a + b) / 2, ties to even
}

int main(int argc, char** argv) {
  const int w = argc > 2 ? std::atoi(argv[1]) : 3840, h = argc > 2 ? std::atoi(argv[2]) : 2160;
  const size_t n = size_t(w) * h;
  const std::vector<uint8_t> in = randomBytes(n, 12345);
  std::vector<uint8_t> out(n);
  uint8_t *dIn, *dOut;
  cudaMalloc(&dIn, n);
  cudaMalloc(&dOut, n);
  cudaMemcpy(dIn, in.data(), n, cudaMemcpyHostToDevice);
  const dim3 block(BX, BY);
  const dim3 grid((w / VX + block.x - 1) / block.x, ((h + PY - 1) / PY + block.y - 1) / block.y);
  sobel<<<grid, block>>>(dIn, dOut, w, h);
  cudaMemcpy(out.data(), dOut, n, cudaMemcpyDeviceToHost);
  long bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) bad += out[size_t(y) * w + x] != ref_at(in, w, h, x, y);
  std::printf("check: %ld of %zu bytes differ from the CPU reference\n", bad, n);
  const float tSobel = medianUs([&] { sobel<<<grid, block>>>(dIn, dOut, w, h); });
  const float tCopy = copyUs(dIn, dOut, n);
  std::printf(
      "%dx%d gray, %s, VX=%d PY=%d, %dx%d blocks: sobel %.1f us, copy %.1f us (median of 100 "
      "after 20 warm-up, CUDA events)\n",
      w, h, H2_NAME, VX, PY, BX, BY, tSobel, tCopy);
  return bad != 0;
}
