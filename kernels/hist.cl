// hist: 256-bin histogram of every channel of an 8-bit frame, as cv::calcHist per channel
// (range [0, 256)). The frame is one flat byte array; byte k belongs to channel k % CHANNELS,
// and the histogram is CHANNELS x 256 uint, channel-major: hist[c * 256 + value].
//
// Algorithm: count every byte into bin (k % CHANNELS) * 256 + value.
// Schedule (the host picks it, see pipeline/stages/histogram_kernel.hpp):
//   - each work-group counts into its own sub-histogram in local memory,
//   - each work-item covers many pixels: a grid-stride loop over CHUNK-byte chunks, so the
//     number of work-groups is free (a few per compute unit) and not tied to the frame size,
//   - at the end every work-group adds its sub-histogram to the global one: one global atomic
//     per non-empty bin per work-group. The host clears the global histogram before each frame.
//   - with LOCAL == 1 (the CPU schedule) a work-group is one work-item, nothing else writes its
//     sub-histogram, and plain increments replace the local atomics: on PoCL a local atomic is
//     a locked instruction, several times the cost of the whole rest of the loop (measured:
//     about 20 ms instead of 1.5 ms for a 1080p gray frame).
//   - with LOCAL == 1, COPIES sub-histograms per work-group: pixel p of a chunk counts in copy
//     p % COPIES, summed before the merge. Neighbouring pixels often have the same value, and
//     on a CPU consecutive increments of one counter stall on store-to-load forwarding (4
//     copies: ~15% faster on PoCL). With LOCAL > 1 there is one copy: per-work-item copies
//     (to spread same-value local atomics) measured no faster on an H200 (11.7-12.2 us against
//     11.3 us for a 3840x2160 gray frame), so they were dropped.
//
// -DCHANNELS=1|3|4  -DLOCAL=<work-group size>  -DCOPIES=<sub-histograms per work-group>

#define BINS (CHANNELS * 256)
#ifndef COPIES
#define COPIES 1
#endif
#if LOCAL > 1 && COPIES > 1
#error "COPIES > 1 needs LOCAL == 1"
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

// Counts byte `val` found at byte offset `off` of a chunk (off is a constant after expansion,
// so the copy and channel offsets fold away).
#define COUNT1(h, val, off) \
  COUNT(&(h)[(((off) / CHANNELS) % COPIES) * BINS + ((off) % CHANNELS) * 256 + (val)])
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

// src: the frame, n bytes. hist: BINS uint, cleared by the host before the launch.
// Any global size that is a multiple of LOCAL works; every work-item reaches both barriers.
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void hist_accumulate(
    __global const uchar* src, int n, __global uint* hist) {
  __local uint local_hist[COPIES * BINS];
  const int lid = get_local_id(0);
  for (int i = lid; i < COPIES * BINS; i += LOCAL) local_hist[i] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);

  const int gid = get_global_id(0);
  const int stride = get_global_size(0);
  const int chunks = n / CHUNK;
  // Whole 16-byte vectors through a vector pointer (the buffer starts aligned): one 128-bit
  // load; with vload16 the H200 took 13.3 us instead of 11.3 us for a 3840x2160 gray frame.
  __global const uchar16* src16 = (__global const uchar16*)src;
  for (int c = gid; c < chunks; c += stride) {
    const uchar16 v0 = src16[c * VECS];
    COUNT16(local_hist, v0, 0);
#if VECS == 3
    const uchar16 v1 = src16[c * VECS + 1];
    COUNT16(local_hist, v1, 16);
    const uchar16 v2 = src16[c * VECS + 2];
    COUNT16(local_hist, v2, 32);
#endif
  }
  // The last partial chunk (fewer than CHUNK bytes), byte by byte. CHUNK is a multiple of
  // CHANNELS, so byte k of the tail is channel k % CHANNELS.
  for (int k = gid; chunks * CHUNK + k < n; k += stride)
    COUNT(&local_hist[(k % CHANNELS) * 256 + src[chunks * CHUNK + k]]);
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int i = lid; i < BINS; i += LOCAL) {
    uint count = local_hist[i];
    for (int k = 1; k < COPIES; ++k) count += local_hist[k * BINS + i];
    if (count) atomic_add(&hist[i], count);
  }
}
