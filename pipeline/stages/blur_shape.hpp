#pragma once
#include <cstddef>

namespace vf {

// The slab kernel's strip (kernels/blur_slab.cl): nb sets of 16 output elements by th rows
// per warp.
struct SlabShape {
  int nb = 4, th = 32;
};

// The default strip for a frame of `height` rows of `rowElems` elements on a device with
// `computeUnits` compute units, for a column window of `pairs` pairs of slabs (2 up to radius 8):
// the tallest strips (th from 64, or 32 rows per pair a strip fills before its first band, halved
// down to 16: a taller strip computes fewer halo rows twice), then the widest (nb from 4 for
// windows of up to 4 pairs, from 2 beyond, where the window's registers grow with both; halved
// down to 1),
// that still give every compute unit `warpsPerUnit` warps (fewer leave the units short of warps
// to hide memory latency with). `nb` or `th` given (>= 1) is kept.
SlabShape slabShape(std::size_t rowElems, int height, unsigned computeUnits, int warpsPerUnit,
                    int pairs = 2, int nb = -1, int th = -1);

}  // namespace vf
