// A CUDA port of vidfilter's fused GPU blur (kernels/blur_gpu.cl, blur_fused) for one channel,
// reflect101, its default schedule (TW=128 x TH=32 tile, PY=8 rows per column-phase unit,
// VX=16 outputs per row-phase unit, 160 work-items), to profile with Nsight Compute, which does
// not profile OpenCL kernels. Column sums in 16-bit lanes of 32-bit integers from whole-word
// loads, into a padded float tile; row sums from the tile; the same integers as OpenCV's 8-bit
// fixed-point path. Checks against a CPU reference of the same integer formula, then times it
// and a 16-byte copy kernel (CUDA events, median).
//   nvcc -O3 -arch=sm_90 -DRADIUS=5 -o blur_probe blur_probe.cu
//   ./blur_probe [width height]        ncu --set full -k regex:blur ./blur_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

#ifndef RADIUS
#define RADIUS 5
#endif
#define R RADIUS
#define TW 128
#define TH 32
#define PY 8
#define VX 16
#define WG 160
#define HA (((R + 3) / 4) * 4)
#define TWH (TW + 2 * HA)
#define TWH4 (TWH / 4)
#define G (VX / 4)
#define PHYS(L) ((L) + (L) / G)
#define PITCH (TWH4 + TWH4 / G + 1)
#define NR (PY + 2 * R)
#define WINX (VX + 2 * HA)

__constant__ float tapsF[R + 1];
__constant__ uint32_t tapsU[R + 1];

__host__ __device__ inline int reflect101(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * n - i - 2;
  return i;
}

__device__ __forceinline__ float bits_to_float(uint32_t v) {
  return __uint_as_float(0x4B000000u | v) - 8388608.0f;
}

__global__ void __launch_bounds__(WG)
    blur_fused(const uint8_t* __restrict__ src, uint8_t* __restrict__ dst, int width, int height) {
  __shared__ float4 tile[TH * PITCH];
  const int lid = threadIdx.x, n = width;
  const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
  for (int u = lid; u < TWH4 * (TH / PY); u += WG) {
    const int strip = u / TWH4, c = u - strip * TWH4;
    const int e = x0 - HA + 4 * c, y = y0 + strip * PY;
    uint32_t w[NR];
    if (e >= 0 && e + 4 <= n && n % 4 == 0) {
      const uint32_t* col = reinterpret_cast<const uint32_t*>(src + e);
      const int stride = n / 4;
      if (y - R >= 0 && y + PY + R <= height) {
        const uint32_t* p = col + size_t(y - R) * stride;
#pragma unroll
        for (int i = 0; i < NR; ++i) w[i] = p[size_t(i) * stride];
      } else {
#pragma unroll
        for (int i = 0; i < NR; ++i) w[i] = col[size_t(reflect101(y - R + i, height)) * stride];
      }
    } else {
#pragma unroll
      for (int i = 0; i < NR; ++i) {
        const uint8_t* row = src + size_t(reflect101(y - R + i, height)) * n;
        uint32_t v = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) v |= uint32_t(row[reflect101(e + j, n)]) << (8 * j);
        w[i] = v;
      }
    }
    uint32_t lo[PY], hi[PY];
#pragma unroll
    for (int m = 0; m < PY; ++m) lo[m] = hi[m] = 0;
#pragma unroll
    for (int i = 0; i < NR; ++i) {
      const uint32_t l = w[i] & 0x00FF00FFu, h = (w[i] >> 8) & 0x00FF00FFu;
#pragma unroll
      for (int m = 0; m < PY; ++m) {
        const int k = i - m - R;
        if (k >= -R && k <= R) {
          lo[m] += tapsU[k < 0 ? -k : k] * l;
          hi[m] += tapsU[k < 0 ? -k : k] * h;
        }
      }
    }
#pragma unroll
    for (int m = 0; m < PY; ++m)
      tile[(strip * PY + m) * PITCH + PHYS(c)] =
          make_float4(bits_to_float(lo[m] & 0xFFFFu), bits_to_float(hi[m] & 0xFFFFu),
                      bits_to_float(lo[m] >> 16), bits_to_float(hi[m] >> 16));
  }
  __syncthreads();
  for (int u = lid; u < TH * (TW / VX); u += WG) {
    const int r = u / (TW / VX), seg = u - r * (TW / VX);
    const int y = y0 + r, e = x0 + seg * VX;
    if (y >= height || e >= n) continue;
    const float4* t = tile + r * PITCH;
    float win[WINX];
#pragma unroll
    for (int i = 0; i < WINX / 4; ++i) {
      const float4 v = t[seg * (G + 1) + i + i / G];
      win[4 * i] = v.x;
      win[4 * i + 1] = v.y;
      win[4 * i + 2] = v.z;
      win[4 * i + 3] = v.w;
    }
    uint8_t out[VX];
#pragma unroll
    for (int j = 0; j < VX; ++j) {
      float a = tapsF[0] * win[HA + j];
#pragma unroll
      for (int k = 1; k <= R; ++k) a += tapsF[k] * (win[HA + j - k] + win[HA + j + k]);
      out[j] = uint8_t(__float2uint_rz(a * (1.0f / 65536.0f) + 0.5f));
    }
    uint8_t* o = dst + size_t(y) * n + e;
    if (e + VX <= n && n % 16 == 0) {
      uint32_t q[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        q[k] = out[4 * k] | (out[4 * k + 1] << 8) | (out[4 * k + 2] << 16) |
               (uint32_t(out[4 * k + 3]) << 24);
      *reinterpret_cast<uint4*>(o) = make_uint4(q[0], q[1], q[2], q[3]);
    } else {
      for (int j = 0; j < VX; ++j)
        if (e + j < n) o[j] = out[j];
    }
  }
}

int main(int argc, char** argv) {
  const int w = argc > 2 ? std::atoi(argv[1]) : 3840, h = argc > 2 ? std::atoi(argv[2]) : 2160;
  const size_t n = size_t(w) * h;
  // Taps: a Gaussian of sigma 0.3*((2R+1-1)*0.5-1)+0.8 in 8 fractional bits summing to 256
  // (OpenCV's rounding of its 8-bit taps may differ by one here and there; this probe checks
  // itself against the same taps).
  const double sigma = 0.3 * (R - 1) + 0.8;
  std::vector<double> g(R + 1);
  double sum = 0;
  for (int k = 0; k <= R; ++k) sum += (k ? 2 : 1) * (g[k] = std::exp(-k * k / (2 * sigma * sigma)));
  std::vector<uint32_t> tu(R + 1);
  int total = 0;
  for (int k = 0; k <= R; ++k)
    total += (k ? 2 : 1) * int(tu[k] = uint32_t(std::lround(256 * g[k] / sum)));
  tu[0] += 256 - total;
  std::vector<float> tf(tu.begin(), tu.end());
  cudaMemcpyToSymbol(tapsU, tu.data(), sizeof(uint32_t) * (R + 1));
  cudaMemcpyToSymbol(tapsF, tf.data(), sizeof(float) * (R + 1));

  const std::vector<uint8_t> in = randomBytes(n, 777);
  std::vector<uint8_t> out(n), ref(n);
  std::vector<uint32_t> col(n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint32_t s = 0;
      for (int k = -R; k <= R; ++k) s += tu[std::abs(k)] * in[size_t(reflect101(y + k, h)) * w + x];
      col[size_t(y) * w + x] = s;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint64_t s = 0;
      for (int k = -R; k <= R; ++k)
        s += uint64_t(tu[std::abs(k)]) * col[size_t(y) * w + reflect101(x + k, w)];
      ref[size_t(y) * w + x] = uint8_t((s + 32768) >> 16);
    }
  uint8_t *dIn, *dOut;
  cudaMalloc(&dIn, n);
  cudaMalloc(&dOut, n);
  cudaMemcpy(dIn, in.data(), n, cudaMemcpyHostToDevice);
  const dim3 grid((w + TW - 1) / TW, (h + TH - 1) / TH);
  blur_fused<<<grid, WG>>>(dIn, dOut, w, h);
  cudaMemcpy(out.data(), dOut, n, cudaMemcpyDeviceToHost);
  long bad = 0;
  for (size_t i = 0; i < n; ++i) bad += out[i] != ref[i];
  std::printf("check: %ld of %zu bytes differ from the CPU reference (%s)\n", bad, n,
              cudaGetErrorString(cudaGetLastError()));
  const float tBlur = medianUs([&] { blur_fused<<<grid, WG>>>(dIn, dOut, w, h); });
  const float tCopy = copyUs(dIn, dOut, n);
  std::printf(
      "%dx%d gray, R=%d (%dx%d Gaussian): blur_fused %.1f us, copy %.1f us (median of 100 "
      "after 20 warm-up, CUDA events)\n",
      w, h, R, 2 * R + 1, 2 * R + 1, tBlur, tCopy);
  return bad != 0;
}
