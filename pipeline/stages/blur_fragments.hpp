#pragma once
// The slab kernel's constant tensor-core operands (kernels/blur_slab.cl): the taps laid out as
// the A fragments of mma.m16n8k32, one table per product, so the kernel loads each lane's words
// once and multiplies.
#include <functional>
#include <vector>

#include "pipeline/cl/opencl.hpp"
#include "pipeline/stages/blur_taps.hpp"

namespace vf {

// The slab kernel's row halo HA (R * CH rounded up to a multiple of 8 elements, at least 8), the
// 16-byte words of a set's row window (16 + 2 HA elements) and the 32-element chunks KC of a row
// product (the last one's upper half unused where the words are odd); its column halo HR (R
// rounded up to 8 + 16 i rows) and the 32-row chunks KR of a column product; KR + KC operands in
// all. As kernels/blur_slab.cl defines them.
int slabHalo(int radius, int channels);
int slabWindowWords(int radius, int channels);
int slabChunks(int radius, int channels);
int slabColumnHalo(int radius);
int slabColumnChunks(int radius);
int slabOperands(int radius, int channels);

// Whether the slab kernel takes these taps on frames of `channels`: its operands within
// kSlabMaxOperands and every tap fits 8 bits (only a degenerate kernel, all weight in the
// centre, has a tap of 256).
bool slabTakes(const std::vector<int>& taps, int channels);
// What slabTakes takes, in words (errors name it).
constexpr const char* kSlabReach =
    "radius <= 72 (ksize 145) and taps below 256, on a little-endian device";

// Writes the operands for `taps` (fixedPointTaps, radius taps.size() - 1) on frames of
// `channels` into frag (TapsBlock::frag): operand j (j < KR: the column products' chunk j,
// KR + c: the row products' chunk c) of lane l at words (j * 32 + l) * 4 .. + 3.
void slabFragments(const std::vector<int>& taps, int channels, cl_uint* frag);

// One operand, chunk j of a column product (`column`: the taps step a row, the window starting
// `halo` rows above the band) or of a row product (the taps step `channels` elements, the words
// starting `halo` elements before the set), tap(d) the weight at the signed offset d (0 past the
// taps; each must fit a signed or an unsigned byte, as the product reads it), into frag's 32
// lanes x 4 words (lane l's at l * 4 .. + 3).
void slabOperand(const std::function<int(int)>& tap, bool column, int halo, int channels, int j,
                 cl_uint* frag);

}  // namespace vf
