#pragma once
// Pixels between FFmpeg's frames and the engine's slots, through swscale, with the colour
// matrix and range the frame is tagged with (BT.601 limited range when untagged, as ffmpeg).
// Decoded frames are converted straight into the pinned slot; from 8-bit YUV in bands of rows on
// swscale's slice threads (1080p 4:2:0 to BGR takes 0.7 ms on one core of a 2-core development
// machine, 2.8 ms at 4K, on the input's thread for every frame); a chain that begins with gray
// takes only the luma plane (no chroma is read).
#include <array>
#include <vector>

#include <string>

#include "app/media/av.hpp"
#include "pipeline/frame.hpp"

namespace vf::media {

// The slot format a decoded frame of `src` is delivered in: Gray8 for gray sources, and for
// YUV sources when `grayLuma`; BGRA8 when it has alpha; BGR8 otherwise.
PixelFormat slotFormatFor(AVPixelFormat src, bool grayLuma);

// Says once for an input (`shown`) whose samples have more than 8 bits (10-bit video, 16-bit
// PNG) that the chain filters them as 8-bit samples.
void warnIfDeeperThan8Bits(const std::string& shown, AVPixelFormat src);

// What a change of the slots' frames from `from` to `to` is worth a warning for ("frame size
// changed from 64x48 bgr to 32x24 bgr", "pixel format changed from bgr to bgra"); "" for none.
// When `grayLuma` (the chain begins with gray), a change between gray and colour at the same
// size is none: the chain's gray makes the same frame of either.
std::string frameChange(const FrameDesc& from, const FrameDesc& to, bool grayLuma);

// Colour tags that travel from the input to the output (so the output decodes to the colours
// the chain saw).
struct ColourTags {
  AVColorSpace space = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
};
ColourTags tagsOf(const AVFrame* f);

class FrameConverter {
 public:
  // `threads`: how many threads toSlot's conversions from 8-bit planar YUV (4:2:0, 4:2:2, 4:4:4)
  // use (1: the calling thread alone, as for every other format); the tests check that the
  // bytes are the same as on one thread.
  explicit FrameConverter(int threads = 1) : threads_(threads) {}

  // Decoded frame -> slot (same size; the slot's format chosen by slotFormatFor).
  void toSlot(const AVFrame* src, const FrameView& dst);

  // Slot -> `dst` (allocated: format, width, height set). A view of `width` x `height` (the
  // output's frame size) fills the frame's top left, and the padding an encoder needs beyond it
  // repeats the last column and row; a view of another size (the input changed size) is
  // scaled to the frame. `tags` give the matrix and range for YUV outputs.
  void fromSlot(const FrameView& src, AVFrame* dst, const ColourTags& tags, int width, int height);

 private:
  // The conversion's context, reused while its sizes, formats, ranges (-1: swscale's default for
  // the format), matrix (`space` -1: swscale's default; else the coefficients of that colour space
  // on both sides, with `srcFull`/`dstFull` saying which side is full range) and threads hold.
  // The matrix is set once, when the context is made (with slice threads it is set on each
  // slice's context: not work for every frame).
  struct Spec {
    int sw, sh, sf, dw, dh, df;
    int srcRange = -1, dstRange = -1;
    int space = -1, srcFull = 0, dstFull = 0;
    int threads = 1;
  };
  SwsContext* context(const Spec& spec);
  const AVFrame* planar(const AVFrame* src);
  // `src` converted by `c` (made for `threads`) into the rows at `out` (`stride` bytes apart).
  void convert(SwsContext* c, int threads, const AVFrame* src, std::uint8_t* out, int stride,
               AVPixelFormat df, int width, int height);
  int threads_;
  SwsPtr ctx_;
  std::array<int, 12> key_{};         // what ctx_ converts: the Spec it was made for
  FramePtr planar_;                   // semi-planar frames unpacked, reused while the size holds
  std::vector<std::uint8_t> padded_;  // fromSlot's rows grown: the encoder's size, odd widths
  std::vector<std::uint8_t> wide_;    // toSlot's rows with room for whole groups of 8
};

AVPixelFormat avFormatOf(PixelFormat f);

// The threads that convert each input's decoded frames into its slots when `atOnce` inputs
// decode at once: one for every 4 cores an input has, at most 4, at most `cap` (--threads; 0: no
// cap). The decoder's frame threads keep about a third of the cores busy for one input alone; on
// 2 cores, where they keep both busy, 2 conversion threads made decoding 13-19% slower than one
// (`vidfilter bench --input`), so small machines convert on the input's thread alone.
int convertThreadsEach(int atOnce, int cap);

}  // namespace vf::media
