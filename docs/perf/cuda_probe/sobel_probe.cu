// A CUDA port of vidfilter's direct sobel kernel (kernels/sobel_gpu.cl, slide=pixels, scale 1,
// ksize 3, mode mag, one channel, reflect101), to profile with Nsight Compute, which does not
// profile OpenCL kernels. Same work-item shape (VX bytes x PY rows, VXxPY defaults 8x2, 8x4
// blocks), same loads (a VX-byte vector and the words left and right of it per row), same
// float arithmetic (bytes as 2^23 + 256*b, exact), same stores. Checks its output against a CPU
// reference, then times it and a 16-byte copy kernel on the same frame (CUDA events, median).
//   nvcc -O3 -arch=sm_90 -o sobel_probe sobel_probe.cu
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
#define NW (VX / 4 + 2)
#define NB (VX + 2)
#define BIAS 8388608.0f

__device__ __forceinline__ int reflect101(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - i - 2;
  return i;
}

__device__ __forceinline__ void load_row(const uint8_t* __restrict__ src, uint32_t* w, int x0,
                                         int sy, int width, bool fast) {
  if (fast) {
    const uint8_t* p = src + sy * width + x0;
    w[0] = *reinterpret_cast<const uint32_t*>(p - 4);
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
    w[NW - 1] = *reinterpret_cast<const uint32_t*>(p + VX);
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

__global__ void sobel(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, int width,
                      int height) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * VX;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * PY;
  if (x0 >= width || y0 >= height) return;
  const bool fast = x0 >= 4 && x0 + VX + 4 <= width && width % VX == 0;
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
    uint8_t* o = dst + y * width + x0;
    if (fast) {
      uint32_t q[VX / 4];
#pragma unroll
      for (int k = 0; k < VX / 4; ++k)
        q[k] = out[4 * k] | (out[4 * k + 1] << 8) | (out[4 * k + 2] << 16) |
               (uint32_t(out[4 * k + 3]) << 24);
#if VX == 8
      *reinterpret_cast<uint2*>(o) = make_uint2(q[0], q[1]);
#else
      *reinterpret_cast<uint4*>(o) = make_uint4(q[0], q[1], q[2], q[3]);
#endif
    } else {
#pragma unroll
      for (int i = 0; i < VX; ++i)
        if (x0 + i < width) o[i] = out[i];
    }
#pragma unroll
    for (int j = 0; j < NB; ++j) {
      p0[j] = p1[j];
      p1[j] = p2[j];
    }
  }
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
  const dim3 block(8, 4);
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
      "%dx%d gray, VX=%d PY=%d, 8x4 blocks: sobel %.1f us, copy %.1f us (median of 100 "
      "after 20 warm-up, CUDA events)\n",
      w, h, VX, PY, tSobel, tCopy);
  return bad != 0;
}
