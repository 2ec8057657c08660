// The rows the direct sobel kernel (sobel_gpu.cl) stores: a work-item's VX output bytes of a
// row, as one vector where it can, else as the aligned words they cover, through the epilogue
// (epilogue.cl) where there is one. Needs byte_perm.cl, epilogue.cl and VX from the includer.

#ifndef VF_SOBEL_GPU_STORE_CL
#define VF_SOBEL_GPU_STORE_CL

// The bytes of a private array, element by element (no vloadn from private memory: the array
// must stay in registers), packed into words for store_words (one 4-, 8- or 16-byte store; some
// compilers split a uchar16 store into 4-byte pieces).
#define PACK4(o, i) as_uint((uchar4)(o[i], o[i + 1], o[i + 2], o[i + 3]))

// The VX output bytes of a row as VX/4 words (lowest byte first) to dst at byte offset `at`,
// of which only bytes skip .. count - 1 are stored (count: the rest of the row; skip: bytes the
// work-item before stores), through the epilogue where there is one (epilogue.cl, which counts
// those bytes): a whole vector where it starts VX-aligned and stores all VX, else the aligned words
// of dst it covers, each cut from two of w by a byte permute, and the partial ones at either end
// byte by byte (constant indices: `w` stays in registers on GPUs).
inline void store_words(__global uchar* dst, int at, uint* w, int skip, int count,
                        int room EPI_DECL) {
  epi_words(w, skip, count EPI_PASS);
  if (skip == 0 && room >= VX && at % VX == 0) {
    __global uchar* o = dst + at;
#if VX == 4
    *(__global uint*)o = w[0];
#elif VX == 8
    *(__global uint2*)o = (uint2)(w[0], w[1]);
#else
    *(__global uint4*)o = (uint4)(w[0], w[1], w[2], w[3]);
#endif
    return;
  }
  const uint o = (uint)at & 3u;
  __global uchar* base = dst + (at - o);
#pragma unroll
  for (int k = 0; k <= VX / 4; ++k) {
    // Bytes 4k - o .. 4k - o + 3 of ours, which is dst's word at base + 4k.
    const uint v = perm(k > 0 ? w[k - 1] : 0u, k < VX / 4 ? w[k] : 0u, 0x7654u - 0x1111u * o);
    const int t0 = 4 * k - (int)o;
    if (t0 >= skip && t0 + 4 <= count) {
      *(__global uint*)(base + 4 * k) = v;
    } else {
#pragma unroll
      for (int b = 0; b < 4; ++b)
        if (t0 + b >= skip && t0 + b < count) base[4 * k + b] = (uchar)(v >> (8 * b));
    }
  }
}

inline void store_row(__global uchar* dst, int at, const uchar* out, int skip, int count,
                      int room EPI_DECL) {
  uint w[VX / 4];
#pragma unroll
  for (int k = 0; k < VX / 4; ++k) w[k] = PACK4(out, 4 * k);
  store_words(dst, at, w, skip, count, room EPI_PASS);
}

#endif
