// A kernel's stores through point-wise functions and histogram counters (an epilogue:
// Stage::setEpilogue, pipeline/epilogue.hpp), one-channel frames. The functions of a byte are
// a byte: each work-group first tabulates them (the host's generated EPI_BEGIN runs epi_pixel,
// every function and counter after the stage in chain order, on the 256 byte values into
// epi_lut: the byte stored, and the byte each counter sees), so a stored byte costs a look-up
// and an increment per counter (epi_byte) however long the functions are. Counters count into
// EPI_COPIES sub-histograms per work-group in local memory (bin b of copy c at
// b * EPI_COPIES + c: work-items counting the same value in one step hit different words),
// zeroed by EPI_BEGIN and added to the frame's histogram by EPI_END; every work-item reaches
// both barriers. EPI_DECL and EPI_PASS carry the tables and sub-histograms to the functions
// that store, EPI_KDECL declares the kernel's parameters for them. Without EPILOGUE everything
// here is empty. Needs VX (bytes a store covers) and UNROLL.

#ifndef VF_EPILOGUE_CL
#define VF_EPILOGUE_CL

#if EPILOGUE
// Bytes from .. count - 1 of the VX bytes in w (lowest byte first) through epi_byte; the others
// (stored by another work-item, or past the row's end) as they are, neither changed nor counted.
inline void epi_words(uint* w, int from, int count EPI_DECL) {
  UNROLL
  for (int k = 0; k < VX / 4; ++k) {
    uint o = w[k];
    UNROLL
    for (int b = 0; b < 4; ++b)
      if (4 * k + b >= from && 4 * k + b < count)
        o = (o & ~(0xFFu << (8 * b))) | (epi_byte((w[k] >> (8 * b)) & 0xFFu EPI_PASS) << (8 * b));
    w[k] = o;
  }
}
#else
#define EPI_DECL
#define EPI_PASS
#define EPI_KDECL
#define EPI_BEGIN
#define EPI_END
#define epi_words(w, from, count)
#endif

#endif
