// Runs a kernel that NVIDIA's OpenCL compiler built (its PTX, taken from vidfilter's program
// cache: docs/perf/ptxas_report.py shows where it starts in a .clbin) through the CUDA driver,
// so Nsight Compute can profile exactly the code the OpenCL program runs (ncu does not see
// OpenCL launches). The kernel must take vidfilter's blur arguments: (src, dst, width, height,
// taps, value); the taps block is filled with arbitrary bytes (the time does not depend on it,
// the result is not checked). First the PTX's %envreg0-2, the global work offset in groups, must
// be replaced by 0 and %envreg6-8, get_num_groups(), by %nctaid.x-z (run_ptx_probe.sh). Prints
// the kernel's and the 16-byte copy's median time.
//   nvcc -O3 -arch=sm_90 -o ptx_probe docs/perf/cuda_probe/ptx_probe.cu -lcuda
//   ptx_probe file.ptx kernel width height channels gridx gridy blockx blocky
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "probe_common.cuh"

#define CHECK(x)                                                     \
  do {                                                               \
    CUresult r_ = (x);                                               \
    if (r_ != CUDA_SUCCESS) {                                        \
      const char* s_ = nullptr;                                      \
      cuGetErrorString(r_, &s_);                                     \
      std::fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");           \
      std::exit(1);                                                  \
    }                                                                \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 10) {
    std::fprintf(stderr, "usage: %s file.ptx kernel width height channels gx gy bx by\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string ptx = ss.str();
  int width = std::atoi(argv[3]), height = std::atoi(argv[4]), cn = std::atoi(argv[5]);
  const unsigned gx = std::atoi(argv[6]), gy = std::atoi(argv[7]), bx = std::atoi(argv[8]),
                 by = std::atoi(argv[9]);
  cudaFree(nullptr);  // the runtime's primary context, which the driver calls below use
  CUmodule mod;
  CUfunction fn;
  CHECK(cuModuleLoadData(&mod, ptx.c_str()));
  CHECK(cuModuleGetFunction(&fn, mod, argv[2]));
  const size_t bytes = size_t(width) * height * cn;
  uint8_t *src, *dst, *taps;
  cudaMalloc(&src, bytes + 64);
  cudaMalloc(&dst, bytes + 64);
  cudaMalloc(&taps, 4096);
  std::vector<uint8_t> h(bytes);
  for (size_t i = 0; i < bytes; ++i) h[i] = uint8_t(i * 2654435761u >> 13);
  cudaMemcpy(src, h.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(taps, h.data(), 4096, cudaMemcpyHostToDevice);
  int value = 0;
  void* args[] = {&src, &dst, &width, &height, &taps, &value};
  const float us = medianUs([&] { cuLaunchKernel(fn, gx, gy, 1, bx, by, 1, 0, 0, args, nullptr); });
  CHECK(cuCtxSynchronize());
  std::printf("%s %dx%dx%d grid %ux%u block %ux%u: %.1f us; copy %.1f us\n", argv[2], width,
              height, cn, gx, gy, bx, by, us, copyUs(src, dst, bytes / 16 * 16));
  return 0;
}
