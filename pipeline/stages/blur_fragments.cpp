#include "pipeline/stages/blur_fragments.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>

namespace vf {

namespace {
int roundHalo(int h) { return h <= 8 ? 8 : 8 + (h - 8 + 15) / 16 * 16; }
}  // namespace

int slabHalo(int r, int cn) { return std::max(8, (r * cn + 7) / 8 * 8); }
int slabWindowWords(int r, int cn) { return 1 + slabHalo(r, cn) / 8; }
int slabChunks(int r, int cn) { return (slabWindowWords(r, cn) + 1) / 2; }
int slabColumnHalo(int r) { return roundHalo(r); }
int slabColumnChunks(int r) { return ((slabColumnHalo(r) + 16 + r + 15) / 16 + 1) / 2; }
int slabOperands(int r, int cn) { return slabColumnChunks(r) + slabChunks(r, cn); }

bool slabTakes(const std::vector<int>& taps, int cn) {
  const int r = static_cast<int>(taps.size()) - 1;
  return r >= 1 && r <= kSlabMaxRadius && slabOperands(r, cn) <= kSlabMaxOperands &&
         *std::max_element(taps.begin(), taps.end()) <= 255;
}

// As blur_slab.cl's header defines them, for lane l = 4g + q, word f (f & 1: row m = g + 8
// instead of g; f & 2: inputs k + 16), byte i (k = 4q + i):
//   columns  A[m][k] = t(row(k) + 32j - halo - m), row(k) = 2q + (i & 1) + 8 (i >> 1) for
//            k = 4q + i, 16 more for k + 16;
//   rows     A[m][k] = t((k + 32j - halo - e(m)) / CH), e(m) = 4 (m >> 1) + (m & 1) for m < 8,
//            4 ((m - 8) >> 1) + 2 + (m & 1) beyond, 0 off the channel grid.
void slabOperand(const std::function<int(int)>& tap, bool column, int halo, int cn, int j,
                 cl_uint* frag) {
  const auto offset = [&](int m, int k) {
    if (column) {
      const int i = k % 4, row = k / 16 * 16 + 2 * (k % 16 / 4) + (i & 1) + 8 * (i >> 1);
      return row + 32 * j - halo - m;
    }
    const int e = m < 8 ? 4 * (m >> 1) + (m & 1) : 4 * ((m - 8) >> 1) + 2 + (m & 1);
    return k + 32 * j - halo - e;
  };
  const int step = column ? 1 : cn;  // columns: rows; rows: elements of one channel
  for (int l = 0; l < 32; ++l)
    for (int f = 0; f < 4; ++f) {
      const int g = l >> 2, q = l & 3, m = (f & 1) ? g + 8 : g, hi = (f & 2) ? 16 : 0;
      cl_uint word = 0;
      for (int i = 0; i < 4; ++i) {
        const int d = offset(m, 4 * q + i + hi);
        const int t = d % step == 0 ? tap(d / step) : 0;
        word |= cl_uint(t & 0xFF) << (8 * i);
      }
      frag[l * 4 + f] = word;
    }
}

void slabFragments(const std::vector<int>& taps, int cn, cl_uint* frag) {
  const int r = static_cast<int>(taps.size()) - 1, kr = slabColumnChunks(r);
  const auto tap = [&](int d) { return std::abs(d) <= r ? taps[std::size_t(std::abs(d))] : 0; };
  for (int j = 0; j < kr; ++j) slabOperand(tap, true, slabColumnHalo(r), cn, j, frag + j * 128);
  for (int c = 0; c < slabChunks(r, cn); ++c)
    slabOperand(tap, false, slabHalo(r, cn), cn, c, frag + (kr + c) * 128);
}

}  // namespace vf
