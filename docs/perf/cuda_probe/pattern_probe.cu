// The memory access patterns of kernels/blur_slab.cl alone, on 3840x2160 gray (sixth session):
// is the tensor-core blur's time its loads, its stores or its work? Each kernel walks the frame
// as blur_slab does (a warp per strip of NS sets of 16 elements x 16 BANDS rows, 4 warps per
// block stacked vertically, two slabs of 8 rows per band plus two before the first), with the
// products replaced by XORs. Prints each kernel's median time and the 16-byte copy's.
//   nvcc -O3 -arch=sm_90 -o pattern_probe docs/perf/cuda_probe/pattern_probe.cu
#include <cstdio>

#include "probe_common.cuh"

constexpr int W = 3840, H = 2160, HA = 8;

enum Mode { kFull, kNoLoad, kNoStore, kRowStore, kShared, kSharedStore, kSharedBoth, kNoLoadSharedStore };

template <int NS, int BANDS, int MODE>
__global__ void __launch_bounds__(128) pattern(const uint8_t* __restrict__ src,
                                               uint8_t* __restrict__ dst) {
  constexpr int NW = NS + 1, TH = 16 * BANDS, OW = 16 * NS;
  __shared__ uint32_t stage[4][8][NW * 4 + 5];
  __shared__ uint32_t ostage[4][16][4 * NS + 1];  // a band's outputs, for whole-sector stores
  constexpr bool sharedLoad = MODE == kShared || MODE == kSharedBoth;
  constexpr bool sharedStore = MODE == kSharedStore || MODE == kSharedBoth || MODE == kNoLoadSharedStore;
  const int lane = threadIdx.x, warp = threadIdx.y, g = lane >> 2, q = lane & 3;
  const int syn = (H + TH - 1) / TH, sy = blockIdx.y * 4 + warp;
  const int x0 = blockIdx.x * OW, y0 = min(sy, syn - 1) * TH, xs = x0 - HA;
  const bool inside = xs >= 0 && xs + 16 * NW <= W && y0 >= 8 && y0 + TH + 8 <= H;
  uint32_t wa[NW], wb[NW], pr[NS];
  auto load = [&](uint32_t* w, int y) {
    if (MODE == kNoLoad || MODE == kNoLoadSharedStore) {
#pragma unroll
      for (int j = 0; j < NW; ++j) w[j] = (y + g) * 977 + j * 31 + q;
      return;
    }
    const int yy = min(max(y, 0), H - 8);
    if (sharedLoad) {  // coalesced 16-byte loads of the slab, then the fragment words
      uint32_t(*s)[NW * 4 + 5] = stage[warp];
      for (int i = lane; i < 8 * (NW + 1); i += 32) {  // 16-byte aligned, from x0 - 16
        const int r = i / (NW + 1), c = i % (NW + 1);
        const int e = inside ? x0 - 16 + 16 * c : max(0, min(x0 - 16 + 16 * c, W - 16));
        const uint4 v = *reinterpret_cast<const uint4*>(src + size_t(yy + r) * W + e);
        s[r][4 * c] = v.x, s[r][4 * c + 1] = v.y, s[r][4 * c + 2] = v.z, s[r][4 * c + 3] = v.w;
      }
      __syncwarp();
#pragma unroll
      for (int j = 0; j < NW; ++j) w[j] = s[g][4 * j + q + 2];
      __syncwarp();
      return;
    }
    const uint32_t* a = reinterpret_cast<const uint32_t*>(src + size_t(yy + g) * W);
#pragma unroll
    for (int j = 0; j < NW; ++j) {
      const int e = inside ? xs + 16 * j + 4 * q : max(0, min(xs + 16 * j + 4 * q, W - 4));
      w[j] = a[e / 4];
    }
  };
  load(wa, y0 - 8);
  load(wb, y0);
#pragma unroll
  for (int u = 0; u < NS; ++u) pr[u] = wa[u] ^ wa[u + 1] ^ (wb[u] + wb[u + 1]);
#pragma unroll 1
  for (int p = 0; p < BANDS; ++p) {
    const int yb = y0 + 16 * p;
    load(wa, yb + 8);
    load(wb, yb + 16);
#pragma unroll
    for (int u = 0; u < NS; ++u) {
      const uint32_t nx = wa[u] ^ wa[u + 1] ^ (wb[u] + wb[u + 1]);
      const uint32_t o0 = pr[u] + nx, o1 = pr[u] ^ nx;
      pr[u] = nx;
      if (sy >= syn) continue;
      if (MODE == kNoStore) {
        if (o0 == 0x12345678u && o1 == 0x9abcdef0u) dst[0] = 1;
        continue;
      }
      if (sharedStore) {
        ostage[warp][g][4 * u + q] = o0;
        ostage[warp][8 + g][4 * u + q] = o1;
        continue;
      }
      if (MODE == kRowStore) {  // the same 16 rows x 16 elements as two rows x 64 per instruction
        const int r = (u * 32 + lane) >> 4, x = x0 + 4 * (lane & 15);
        if (yb + 2 * (r & 7) < H) *reinterpret_cast<uint32_t*>(dst + size_t(yb + 2 * (r & 7)) * W + x) = o0;
        if (yb + 2 * (r & 7) + 1 < H) *reinterpret_cast<uint32_t*>(dst + size_t(yb + 2 * (r & 7) + 1) * W + x) = o1;
        continue;
      }
      const int x = x0 + 16 * u + 4 * q;
      if (yb + g < H) *reinterpret_cast<uint32_t*>(dst + size_t(yb + g) * W + x) = o0;
      if (yb + 8 + g < H) *reinterpret_cast<uint32_t*>(dst + size_t(yb + 8 + g) * W + x) = o1;
    }
    if (sharedStore && sy < syn) {  // 16 rows of NS words of 16 bytes, 16-byte stores
      __syncwarp();
      for (int i = lane; i < 16 * NS; i += 32) {
        const int r = i / NS, c = i % NS;
        const uint32_t* w = &ostage[warp][r][4 * c];
        if (yb + r < H)
          *reinterpret_cast<uint4*>(dst + size_t(yb + r) * W + x0 + 16 * c) = make_uint4(w[0], w[1], w[2], w[3]);
      }
      __syncwarp();
    }
  }
}

template <int NS, int BANDS, int MODE>
float timeIt(const uint8_t* src, uint8_t* dst) {
  const int syn = (H + 16 * BANDS - 1) / (16 * BANDS);
  const dim3 grid(W / (16 * NS), (syn + 3) / 4), block(32, 4);
  const float us = medianUs([&] { pattern<NS, BANDS, MODE><<<grid, block>>>(src, dst); });
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    std::printf("NS %d BANDS %d mode %d: %s\n", NS, BANDS, MODE, cudaGetErrorString(e));
  return us;
}

template <int NS, int BANDS>
void row(const char* name, const uint8_t* src, uint8_t* dst) {
  std::printf("%-12s full %5.1f  no-load %5.1f  no-store %5.1f  row-store %5.1f  shared-load %5.1f"
              "  shared-store %5.1f  shared-both %5.1f  no-load-shared-store %5.1f us\n",
              name, timeIt<NS, BANDS, kFull>(src, dst), timeIt<NS, BANDS, kNoLoad>(src, dst),
              timeIt<NS, BANDS, kNoStore>(src, dst), timeIt<NS, BANDS, kRowStore>(src, dst),
              timeIt<NS, BANDS, kShared>(src, dst), timeIt<NS, BANDS, kSharedStore>(src, dst),
              timeIt<NS, BANDS, kSharedBoth>(src, dst), timeIt<NS, BANDS, kNoLoadSharedStore>(src, dst));
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const size_t bytes = size_t(W) * H;
  uint8_t *src, *dst;
  cudaMalloc(&src, bytes);
  cudaMalloc(&dst, bytes);
  const auto h = randomBytes(bytes, 7);
  cudaMemcpy(src, h.data(), bytes, cudaMemcpyHostToDevice);
  std::printf("set up: %s\n", cudaGetErrorString(cudaGetLastError()));
  row<4, 2>("NS 4, TH 32", src, dst);
  row<2, 1>("NS 2, TH 16", src, dst);
  row<4, 1>("NS 4, TH 16", src, dst);
  row<8, 2>("NS 8, TH 32", src, dst);
  row<4, 4>("NS 4, TH 64", src, dst);
  std::printf("copy16 %.1f us\n", copyUs(src, dst, bytes));
  return 0;
}
