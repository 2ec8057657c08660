#pragma once
// The slab kernel's constant tensor-core operands (kernels/blur_slab.cl): the taps laid out as
// the A fragments of mma.m16n8k32, one table per product, so the kernel loads each lane's words
// once and multiplies.
#include <vector>

#include "pipeline/cl/opencl.hpp"

namespace vf {

// The slab kernel's row halo HA (R * CH rounded up to 8, 24 or 40 elements) and the 32-element
// chunks KC of a row product, as kernels/blur_slab.cl defines them.
int slabHalo(int radius, int channels);
int slabChunks(int radius, int channels);

// Whether the slab kernel takes these taps: radius <= 8 (a column product spans 16 + 2R <= 32
// rows) and every tap fits 8 bits (only a degenerate kernel, all weight in the centre, has a
// tap of 256).
bool slabTakes(const std::vector<int>& taps);

// Writes the operands for `taps` (fixedPointTaps, radius taps.size() - 1) on frames of
// `channels` into frag (TapsBlock::frag): operand j (0: the column product, 1 + c: the row
// products' chunk c) of lane l at words (j * 32 + l) * 4 .. + 3.
void slabFragments(const std::vector<int>& taps, int channels, cl_uint* frag);

}  // namespace vf
