#include "app/media/frame_convert.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

bool isRgbLike(const AVPixFmtDescriptor* d) {
  return (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) != 0;
}

bool isFullRange(AVPixelFormat f, AVColorRange r) {
  if (r == AVCOL_RANGE_JPEG) return true;
  switch (f) {
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUVJ440P:
    case AV_PIX_FMT_YUVJ411P:
      return true;
    default:
      return false;
  }
}

const int* coefficients(AVColorSpace s) {
  return sws_getCoefficients(s == AVCOL_SPC_UNSPECIFIED || s == AVCOL_SPC_RGB ? SWS_CS_DEFAULT
                                                                              : int(s));
}

}  // namespace

AVPixelFormat avFormatOf(PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray8:
      return AV_PIX_FMT_GRAY8;
    case PixelFormat::BGRA8:
      return AV_PIX_FMT_BGRA;
    case PixelFormat::BGR8:
      break;
  }
  return AV_PIX_FMT_BGR24;
}

PixelFormat slotFormatFor(AVPixelFormat src, bool grayLuma) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(src);
  if (!d) return PixelFormat::BGR8;
  const bool alpha = (d->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
  if (d->nb_components == 1 || (d->nb_components == 2 && alpha)) return PixelFormat::Gray8;
  if (grayLuma && !isRgbLike(d)) return PixelFormat::Gray8;
  return alpha ? PixelFormat::BGRA8 : PixelFormat::BGR8;
}

ColourTags tagsOf(const AVFrame* f) {
  return {f->colorspace, f->color_range, f->color_primaries, f->color_trc};
}

SwsContext* FrameConverter::context(int sw, int sh, AVPixelFormat sf, int dw, int dh,
                                    AVPixelFormat df) {
  SwsContext* c = sws_getCachedContext(ctx_.release(), sw, sh, sf, dw, dh, df, SWS_BICUBIC, nullptr,
                                       nullptr, nullptr);
  if (!c)
    throw MediaError(std::string("no conversion from ") + av_get_pix_fmt_name(sf) + " to " +
                     av_get_pix_fmt_name(df));
  ctx_.reset(c);
  return c;
}

namespace {

// The luma plane of an 8-bit YUV frame as full-range gray, the way a gray conversion of the
// colour frame reads it: (Y - 16) * 255 / 219 for limited range, as is for full range.
// Limited-range luma to full range: round((y - 16) * 255 / 219) clamped to 0..255, in fixed
// point ((t * 9539 + 4096) >> 13 equals it for every byte, t = y - 16) so that the loop
// vectorizes (a table lookup per byte does not); an AVX2 clone where the CPU has it (about twice
// the SSE2 loop's speed: 32-bit multiplies). It runs on the input's thread for every frame.
__attribute__((target_clones("avx2", "default"))) void expandLimitedRange(const std::uint8_t* in,
                                                                          std::uint8_t* out,
                                                                          int n) {
  for (int x = 0; x < n; ++x) {
    const int v = ((int(in[x]) - 16) * 9539 + 4096) >> 13;
    out[x] = static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

bool lumaToGray(const AVFrame* src, const FrameView& dst) {
  const auto sf = static_cast<AVPixelFormat>(src->format);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(sf);
  if (!d || isRgbLike(d) || (d->flags & AV_PIX_FMT_FLAG_BE) || d->comp[0].depth != 8 ||
      d->comp[0].step != 1 || d->comp[0].plane != 0 || dst.format != PixelFormat::Gray8 ||
      src->width != dst.width || src->height != dst.height)
    return false;
  // Gray formats are full range unless tagged otherwise (as swscale takes them).
  const bool full = isFullRange(sf, src->color_range) ||
                    (d->nb_components <= 2 && src->color_range != AVCOL_RANGE_MPEG);
  for (int y = 0; y < dst.height; ++y) {
    const std::uint8_t* in = src->data[0] + std::ptrdiff_t(y) * src->linesize[0];
    std::uint8_t* out = dst.row(y);
    if (full) {
      std::memcpy(out, in, std::size_t(dst.width));
    } else {
      expandLimitedRange(in, out, dst.width);
    }
  }
  return true;
}

}  // namespace

void FrameConverter::toSlot(const AVFrame* src, const FrameView& dst) {
  if (lumaToGray(src, dst)) return;
  const auto sf = static_cast<AVPixelFormat>(src->format);
  const AVPixelFormat df = avFormatOf(dst.format);
  SwsContext* c = context(src->width, src->height, sf, dst.width, dst.height, df);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(sf);
  if (d && !isRgbLike(d)) {
    // The matrix of the frame's tags (SD BT.601 when untagged); gray comes out full range,
    // as a gray conversion of the colour frame would.
    const int* table = coefficients(src->colorspace);
    sws_setColorspaceDetails(c, table, isFullRange(sf, src->color_range), table, 1, 0, 1 << 16,
                             1 << 16);
  }
  std::uint8_t* planes[4] = {dst.data, nullptr, nullptr, nullptr};
  int strides[4] = {static_cast<int>(dst.stride), 0, 0, 0};
  sws_scale(c, src->data, src->linesize, 0, src->height, planes, strides);
}

void FrameConverter::fromSlot(const FrameView& src, AVFrame* dst, const ColourTags& tags, int width,
                              int height) {
  const AVPixelFormat sf = avFormatOf(src.format);
  const auto df = static_cast<AVPixelFormat>(dst->format);
  const std::uint8_t* data = src.data;
  int stride = static_cast<int>(src.stride);
  int sw = src.width, sh = src.height;
  const bool padded = src.width == width && src.height == height &&
                      (dst->width != src.width || dst->height != src.height);
  if (padded) {
    // Padding for an encoder that needs even sizes: the last column and row repeat.
    const int bpp = vf::channels(src.format);
    stride = dst->width * bpp;
    padded_.resize(std::size_t(stride) * dst->height);
    for (int y = 0; y < dst->height; ++y) {
      const std::uint8_t* row = src.row(std::min(y, src.height - 1));
      std::uint8_t* out = padded_.data() + std::size_t(y) * stride;
      std::memcpy(out, row, std::size_t(src.width) * bpp);
      for (int x = src.width; x < dst->width; ++x)
        std::memcpy(out + x * bpp, row + (src.width - 1) * bpp, bpp);
    }
    data = padded_.data();
    sw = dst->width;
    sh = dst->height;
  }
  SwsContext* c = context(sw, sh, sf, dst->width, dst->height, df);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(df);
  if (d && !isRgbLike(d)) {
    const int* table = coefficients(tags.space);
    sws_setColorspaceDetails(c, table, 1, table, isFullRange(df, tags.range), 0, 1 << 16, 1 << 16);
  }
  const std::uint8_t* planes[4] = {data, nullptr, nullptr, nullptr};
  const int strides[4] = {stride, 0, 0, 0};
  sws_scale(c, planes, strides, 0, sh, dst->data, dst->linesize);
}

}  // namespace vf::media
