// Shared by the CUDA probes: a 16-byte copy kernel (the bandwidth reference) and the timing.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

__global__ void copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Median over 100 launches after 20 warm-up ones, in us, by CUDA events around each launch.
template <typename Launch>
float medianUs(Launch launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int i = 0; i < 120; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    if (i >= 20) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1000.0f;
}

// The copy kernel over the n bytes of src into dst (n a multiple of 16), timed as above.
inline float copyUs(const uint8_t* src, uint8_t* dst, size_t n) {
  const int n16 = int(n / 16);
  return medianUs([&] {
    copy16<<<(n16 + 255) / 256, 256>>>(reinterpret_cast<const uint4*>(src),
                                       reinterpret_cast<uint4*>(dst), n16);
  });
}

inline std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t((seed = seed * 1664525u + 1013904223u) >> 24);
  return v;
}
