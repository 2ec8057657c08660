// perm(a, b, sel): byte i of the result is byte (nibble i of sel) & 7 of the pair a, b (a's
// bytes 0-3, b's 4-7), as PTX's prmt.b32 in its default mode. PERM_PTX defined non-zero: the
// instruction through inline PTX (NVIDIA); otherwise the same in OpenCL C, for any device.

#ifndef VF_BYTE_PERM_CL
#define VF_BYTE_PERM_CL

#if defined(PERM_PTX) && PERM_PTX
inline uint perm(uint a, uint b, uint sel) {
  uint d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}
#else
inline uint perm(uint a, uint b, uint sel) {
  const ulong ab = (ulong)b << 32 | a;
  uint d = 0;
  for (int i = 0; i < 4; ++i) d |= (uint)(ab >> (8 * ((sel >> (4 * i)) & 7)) & 0xFF) << (8 * i);
  return d;
}
#endif

// Bytes o .. o + 3 of the pair lo, hi (lo's bytes first), o in 0 .. 4: a word that starts o
// bytes into the aligned word lo.
inline uint funnel_word(uint lo, uint hi, uint o) { return perm(lo, hi, 0x3210u + 0x1111u * o); }

#endif
