#include "pipeline/stages/blur_shape.hpp"

#include <algorithm>

namespace vf {

SlabShape slabShape(std::size_t rowElems, int height, unsigned computeUnits, int warpsPerUnit,
                    int pairs, int nb, int th) {
  SlabShape s;
  const auto warps = [&](int b, int t) {
    return ((rowElems + 16 * std::size_t(b) - 1) / (16 * std::size_t(b))) *
           ((std::size_t(std::max(height, 1)) + std::size_t(t) - 1) / std::size_t(t));
  };
  const std::size_t enough =
      std::size_t(std::max(computeUnits, 1u)) * std::size_t(std::max(warpsPerUnit, 1));
  const int fill = std::max(pairs - 1, 1);
  s.nb = nb >= 1 ? nb : pairs <= 4 ? 4 : 2;
  if (th >= 1)
    s.th = th;
  else
    for (s.th = std::max(64, 32 * fill); s.th > 16 && warps(s.nb, s.th) < enough;)
      s.th = std::max(16, s.th / 2 / 16 * 16);
  if (nb < 1)
    while (s.nb > 1 && warps(s.nb, s.th) < enough) s.nb /= 2;
  return s;
}

}  // namespace vf
