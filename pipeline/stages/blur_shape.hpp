#pragma once
#include <cstddef>

namespace vf {

// The slab kernel's strip (kernels/blur_slab.cl): nb sets of 16 output elements by th rows
// per warp.
struct SlabShape {
  int nb = 4, th = 32;
};

// The default strip for a frame of `height` rows of `rowElems` elements on a device with
// `computeUnits` compute units: the tallest strips (th 64, 32 or 16: a taller strip computes
// fewer halo rows twice), then the widest (nb 4, 2 or 1), that still give every compute unit
// `warpsPerUnit` warps (fewer leave the units short of warps to hide memory latency with). `nb`
// or `th` given (>= 1) is kept.
SlabShape slabShape(std::size_t rowElems, int height, unsigned computeUnits, int warpsPerUnit,
                    int nb = -1, int th = -1);

}  // namespace vf
