#pragma once
// The blur's arithmetic, as OpenCV's 8-bit cv::GaussianBlur does it: the kernel size a sigma
// derives and the taps quantised to integers with 8 fractional bits. Every blur kernel computes
// with these integers, so each is bit-exact with OpenCV (kernels/blur.cl states why).
#include <cstddef>
#include <vector>

#include "pipeline/cl/opencl.hpp"

namespace vf {

constexpr int kBlurMaxKsize = 151;  // largest explicit ksize
// Largest radius: ksize=0 derives cvRound(6*sigma + 1)|1, 301 at sigma = 50.
constexpr int kBlurMaxRadius = 150;

// OpenCV's createGaussianKernels for 8-bit data: cvRound(sigma*3*2 + 1) | 1.
int derivedKsize(double sigma);

// The taps OpenCV's 8-bit GaussianBlur uses for ksize and sigma, as integers with 8 fractional
// bits summing to 256. Returns the half kernel: [0] is the centre, [k] the weight at distance k.
std::vector<int> fixedPointTaps(int ksize, double sigma);

// The most constant tensor-core operands the slab kernel takes (blur_fragments.hpp).
constexpr int kSlabMaxOperands = 24;
// The largest radius it takes: a column window of 10 pairs of slabs held in registers.
constexpr int kSlabMaxRadius = 72;

// The taps buffer every blur kernel reads: the half kernel as floats (kBlurMaxRadius + 1 of
// them), the same values as ushorts (from TAPS_U, for 16-bit arithmetic), then from FRAG_OFF
// the slab kernel's constant tensor-core operands (blur_fragments.hpp). Sized for the largest
// radius, so a live radius change never reallocates it.
struct TapsBlock {
  float f[kBlurMaxRadius + 1] = {};
  cl_ushort u[kBlurMaxRadius + 1] = {};
  alignas(16) cl_uint frag[kSlabMaxOperands * 32 * 4] = {};  // operands x 32 lanes x 4 words
};
constexpr std::size_t kTapsUshortOffset = kBlurMaxRadius + 1;  // TAPS_U, in floats
constexpr std::size_t kTapsFragOffsetWords = offsetof(TapsBlock, frag) / sizeof(cl_uint);

// The taps block of `taps` (fixedPointTaps), without fragments.
TapsBlock tapsBlock(const std::vector<int>& taps);

}  // namespace vf
