// hist: 256-bin histogram of every channel of an 8-bit frame, as cv::calcHist per channel
// (range [0, 256)). The frame is `rows` rows of rowBytes bytes, `pitch` bytes apart (a packed
// frame may come as one row); byte k of a row belongs to channel k % CHANNELS, and the histogram
// is CHANNELS x 256 uint, channel-major: hist[c * 256 + value]. Rows of more than one start at
// multiples of 16 bytes (the pitch is one).
//
// Algorithm: count every byte into bin (k % CHANNELS) * 256 + value.
// Schedule (the host picks it, see pipeline/stages/histogram_kernel.hpp):
//   - each work-group counts into COPIES sub-histograms in local memory,
//   - each work-item covers many pixels: a grid-stride loop over CHUNK-byte chunks, so the
//     number of work-groups is free (a few per compute unit) and not tied to the frame size,
//   - at the end every work-group adds its sub-histograms to the global one: one global atomic
//     per non-empty bin per work-group.
//   - No separate clear: the histogram is double-buffered by the host. The launch for frame i
//     accumulates into `hist` (zeroed by the launch of frame i-1, or at allocation) and zeroes
//     `clear`, the buffer frame i+1 will accumulate into (frame i-1's histogram, whose readers
//     come before this launch on the same in-order queue).
//   - with LOCAL == 1 (the CPU schedule) a work-group is one work-item, nothing else writes its
//     sub-histograms, and plain increments replace the local atomics: on PoCL a local atomic is
//     a locked instruction, over ten times the cost of the whole rest of the loop. Pixel p of a
//     chunk counts in copy p % COPIES: neighbouring pixels often have the same value, and on a
//     CPU consecutive increments of one counter stall on store-to-load forwarding.
//   - with LOCAL > 1 (GPUs), local atomics; which copy a work-item counts into (SPREAD):
//       SPREAD 1 (warp): copy (lid / 32) % COPIES, copy-major layout (copy * BINS + bin):
//         separate warps hit separate counters.
//       SPREAD 2 (lane): copy lid % COPIES, interleaved layout (bin * COPIES + copy): lanes of
//         one warp that see the same value (flat image areas) hit different counters, and
//         with COPIES == 32 lane l always uses bank l, so a warp's 32 atomics never conflict
//         whatever the data (with one copy, 32 random bins need ~3.5 bank passes).
//     COPIES == 1 is the plain schedule (one shared sub-histogram). Per-work-item copies in a
//     copy-major layout gain nothing on a GPU; the lane layout above differs by being free of
//     bank conflicts.
//
// -DCHANNELS=1|3|4  -DLOCAL=<work-group size>  -DCOPIES=<sub-histograms per work-group>
// -DSPREAD=0 (LOCAL == 1: by pixel) | 1 (by warp) | 2 (by lane)

#define BINS (CHANNELS * 256)
#ifndef COPIES
#define COPIES 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef SPREAD
#define SPREAD 0
#endif
#if LOCAL == 1 && SPREAD != 0
#error "LOCAL == 1 spreads by pixel (SPREAD 0)"
#endif
#if LOCAL > 1 && COPIES > 1 && SPREAD == 0
#error "LOCAL > 1 spreads by warp or lane (SPREAD 1 or 2)"
#endif

// A chunk is a whole number of pixels and of 16-byte vectors: 16 bytes, or 48 for 3 channels.
#if CHANNELS == 3
#define VECS 3
#else
#define VECS 1
#endif
#define CHUNK (16 * VECS)

#if LOCAL == 1
#define COUNT(p) (*(p) += 1u)
#else
#define COUNT(p) atomic_inc(p)
#endif

// Index of bin `bin` relative to this work-item's copy (see `h` in the kernel).
#if SPREAD == 2
#define AT(bin) ((bin)*COPIES)
#else
#define AT(bin) (bin)
#endif

// Counts byte `val` found at byte offset `off` of a chunk (off is a constant after expansion,
// so the copy and channel offsets fold away).
#if SPREAD == 0
#define COPY_OF(off) ((((off) / CHANNELS) % COPIES) * BINS)
#else
#define COPY_OF(off) 0
#endif
#define COUNT1(h, val, off) COUNT(&(h)[COPY_OF(off) + AT(((off) % CHANNELS) * 256 + (val))])
#define COUNT16(h, v, base)     \
  COUNT1(h, v.s0, (base) + 0);  \
  COUNT1(h, v.s1, (base) + 1);  \
  COUNT1(h, v.s2, (base) + 2);  \
  COUNT1(h, v.s3, (base) + 3);  \
  COUNT1(h, v.s4, (base) + 4);  \
  COUNT1(h, v.s5, (base) + 5);  \
  COUNT1(h, v.s6, (base) + 6);  \
  COUNT1(h, v.s7, (base) + 7);  \
  COUNT1(h, v.s8, (base) + 8);  \
  COUNT1(h, v.s9, (base) + 9);  \
  COUNT1(h, v.sa, (base) + 10); \
  COUNT1(h, v.sb, (base) + 11); \
  COUNT1(h, v.sc, (base) + 12); \
  COUNT1(h, v.sd, (base) + 13); \
  COUNT1(h, v.se, (base) + 14); \
  COUNT1(h, v.sf, (base) + 15)

// src: the frame, n bytes. hist: BINS uint, all zero before the launch; counts are added.
// clear: BINS uint, set to zero (another buffer than hist).
// Any global size that is a multiple of LOCAL works; every work-item reaches both barriers.
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void hist_accumulate(
    __global const uchar* src, int rowBytes, int rows, int pitch, __global uint* hist,
    __global uint* clear) {
  // Declared as uint4 for 16-byte alignment (BINS is a multiple of 256), used as uint.
  __local uint4 local4[COPIES * BINS / 4];
  __local uint* local_hist = (__local uint*)local4;
  const int lid = get_local_id(0);
  // Zeroed 16 bytes at a time (COPIES * BINS is a multiple of 256): consecutive work-items
  // write consecutive 16-byte words, conflict-free.
  for (int i = lid; i < COPIES * BINS / 4; i += LOCAL) local4[i] = (uint4)(0u);

  const int gid = get_global_id(0);
  const int stride = get_global_size(0);
  for (int i = gid; i < BINS; i += stride) clear[i] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);

  // This work-item's copy.
#if SPREAD == 1
  __local uint* h = local_hist + ((lid / 32) % COPIES) * BINS;
#elif SPREAD == 2
  __local uint* h = local_hist + lid % COPIES;
#else
  __local uint* h = local_hist;
#endif

  const int cpr = rowBytes / CHUNK;  // whole chunks a row
  const int chunks = cpr * rows;
  // Whole 16-byte vectors through a vector pointer (the buffer starts aligned): one 128-bit
  // load, where vload16 may split into narrower ones.
  // UNROLL chunks per step, all loaded before any is counted: the loads of a step are in
  // flight together instead of one load's latency per chunk (GPUs; CPUs use 1).
  __global const uchar16* src16 = (__global const uchar16*)src;
  for (int c = gid; c < chunks; c += stride * UNROLL) {
    uchar16 v[UNROLL * VECS];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int cu = min(c + u * stride, chunks - 1);  // in bounds; counted only if < chunks
      const int r = rows == 1 ? 0 : cu / cpr;
      const size_t at = (size_t)r * (size_t)(pitch / 16) + (size_t)(cu - r * cpr) * VECS;
#pragma unroll
      for (int k = 0; k < VECS; ++k) v[u * VECS + k] = src16[at + k];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (c + u * stride < chunks) {
        COUNT16(h, v[u * VECS], 0);
#if VECS == 3
        COUNT16(h, v[u * VECS + 1], 16);
        COUNT16(h, v[u * VECS + 2], 32);
#endif
      }
    }
  }
  // Each row's last partial chunk (fewer than CHUNK bytes), byte by byte. CHUNK is a multiple
  // of CHANNELS, so byte j of a tail is channel j % CHANNELS.
  const int tail = rowBytes - cpr * CHUNK;
  for (int k = gid; k < tail * rows; k += stride) {
    const int r = k / tail, j = k - r * tail;
    COUNT(&h[AT((j % CHANNELS) * 256 + src[(size_t)r * pitch + cpr * CHUNK + j])]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int i = lid; i < BINS; i += LOCAL) {
    uint count = 0;
#if SPREAD == 2 && COPIES % 4 == 0
    // The bin's copies are COPIES consecutive words: read 16 bytes at a time, starting at a
    // different 16-byte word for neighbouring work-items (word (k + i) % (COPIES / 4)), so that
    // 8 consecutive work-items (a quarter-warp) touch 8 distinct bank groups with 32 copies.
    __local const uint4* bin4 = (__local const uint4*)(local_hist + i * COPIES);
    for (int k = 0; k < COPIES / 4; ++k) {
      const uint4 v = bin4[(k + i) % (COPIES / 4)];
      count += v.x + v.y + v.z + v.w;
    }
#elif SPREAD == 2
    for (int k = 0; k < COPIES; ++k) count += local_hist[i * COPIES + (k + i) % COPIES];
#else
    for (int k = 0; k < COPIES; ++k) count += local_hist[k * BINS + i];
#endif
    if (count) atomic_add(&hist[i], count);
  }
}
