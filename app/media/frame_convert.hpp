#pragma once
// Pixels between FFmpeg's frames and the engine's slots, through swscale, with the colour
// matrix and range the frame is tagged with (BT.601 limited range when untagged, as ffmpeg).
// Decoded frames are converted straight into the pinned slot, in bands of rows on swscale's slice
// threads (a 1080p frame to BGR is 0.5-0.7 ms on one core, on the input's thread for every frame);
// a chain that begins with gray takes only the luma plane (no chroma is read).
#include <array>
#include <vector>

#include "app/media/av.hpp"
#include "pipeline/frame.hpp"

namespace vf::media {

// The slot format a decoded frame of `src` is delivered in: Gray8 for gray sources, and for
// YUV sources when `grayLuma`; BGRA8 when it has alpha; BGR8 otherwise.
PixelFormat slotFormatFor(AVPixelFormat src, bool grayLuma);

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
  // `threads`: how many threads toSlot's conversions from 8-bit planar YUV use (1: the calling
  // thread alone; other formats always). The pixels are the same for any count.
  explicit FrameConverter(int threads = 1) : threads_(threads) {}

  // Decoded frame -> slot (same size; the slot's format chosen by slotFormatFor).
  void toSlot(const AVFrame* src, const FrameView& dst);

  // Slot -> `dst` (allocated: format, width, height set). A view of `width` x `height` (the
  // output's frame size) fills the frame's top left, and the padding an encoder needs beyond it
  // repeats the last column and row; a view of another size (the input changed size) is
  // scaled to the frame. `tags` give the matrix and range for YUV outputs.
  void fromSlot(const FrameView& src, AVFrame* dst, const ColourTags& tags, int width, int height);

 private:
  // The conversion's context, reused while its sizes, formats and ranges hold (a range of -1:
  // swscale's default for the format).
  SwsContext* context(int sw, int sh, AVPixelFormat sf, int dw, int dh, AVPixelFormat df,
                      int srcRange = -1, int dstRange = -1, int threads = 1);
  const AVFrame* planar(const AVFrame* src);
  // `src` converted by `c` (made for `threads`) into the rows at `out` (`stride` bytes apart).
  void convert(SwsContext* c, int threads, const AVFrame* src, std::uint8_t* out, int stride,
               AVPixelFormat df, int width, int height);
  int threads_;
  SwsPtr ctx_;
  std::array<int, 9> key_{};          // what ctx_ converts: context()'s arguments, threads
  FramePtr planar_;                   // semi-planar frames unpacked, reused while the size holds
  std::vector<std::uint8_t> padded_;  // fromSlot's frame grown to the encoder's size
  std::vector<std::uint8_t> wide_;    // toSlot's rows with room for whole groups of 8
};

AVPixelFormat avFormatOf(PixelFormat f);

}  // namespace vf::media
