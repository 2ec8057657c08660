#include "app/media/frame_convert.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

extern "C" {
#include <libavutil/cpu.h>
#include <libavutil/opt.h>
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

// A YUV or gray format's range: as tagged; untagged, full for the JPEG formats and for gray (as
// swscale and ffmpeg take them), limited otherwise.
bool isFullRange(const AVPixFmtDescriptor* d, AVPixelFormat f, AVColorRange r) {
  return isFullRange(f, r) || (d->nb_components <= 2 && r != AVCOL_RANGE_MPEG);
}

bool isFullRange(const AVFrame* f, const AVPixFmtDescriptor* d) {
  return isFullRange(d, static_cast<AVPixelFormat>(f->format), f->color_range);
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
  // A palette frame (pal8: an 8-bit PNG, BMP or TIFF) has one component, its index, but colour
  // (and alpha) entries.
  if (d->flags & AV_PIX_FMT_FLAG_PAL) return alpha ? PixelFormat::BGRA8 : PixelFormat::BGR8;
  if (d->nb_components == 1 || (d->nb_components == 2 && alpha)) return PixelFormat::Gray8;
  if (grayLuma && !isRgbLike(d)) return PixelFormat::Gray8;
  return alpha ? PixelFormat::BGRA8 : PixelFormat::BGR8;
}

void warnIfDeeperThan8Bits(const std::string& shown, AVPixelFormat src) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(src);
  if (!d || d->comp[0].depth <= 8) return;
  spdlog::warn(
      "{}: its samples have {} bits ({}); the chain filters 8-bit samples, so the output has 8 "
      "bits of precision",
      shown, d->comp[0].depth, av_get_pix_fmt_name(src));
}

std::string frameChange(const FrameDesc& from, const FrameDesc& to, bool grayLuma) {
  if (from == to) return "";
  if (from.width != to.width || from.height != to.height)
    return "frame size changed from " + from.str() + " to " + to.str();
  const bool toOrFromGray = from.format == PixelFormat::Gray8 || to.format == PixelFormat::Gray8;
  if (grayLuma && toOrFromGray) return "";
  return std::string("pixel format changed from ") + formatName(from.format) + " to " +
         formatName(to.format);
}

ColourTags tagsOf(const AVFrame* f) {
  // An RGB frame's matrix and range (GBR, full) describe no YUV: YUV written from it takes the
  // SD matrix (BT.601, what the conversion uses, tagged so) and the range YUV is written in
  // unless told otherwise (limited), as ffmpeg writes it; its primaries and transfer stay.
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(f->format));
  if (d && isRgbLike(d))
    return {AVCOL_SPC_SMPTE170M, AVCOL_RANGE_MPEG, f->color_primaries, f->color_trc};
  return {f->colorspace, f->color_range, f->color_primaries, f->color_trc};
}

SwsContext* FrameConverter::context(const Spec& p) {
  const std::array<int, 12> key{p.sw,       p.sh,       p.sf,    p.dw,      p.dh,      p.df,
                                p.srcRange, p.dstRange, p.space, p.srcFull, p.dstFull, p.threads};
  if (ctx_ && key == key_) return ctx_.get();
  for (int threads = p.threads;; threads = 1) {
    ctx_.reset(sws_alloc_context());
    if (!ctx_) outOfMemory("a frame conversion");
    SwsContext* c = ctx_.get();
    av_opt_set_int(c, "srcw", p.sw, 0);
    av_opt_set_int(c, "srch", p.sh, 0);
    av_opt_set_int(c, "src_format", p.sf, 0);
    av_opt_set_int(c, "dstw", p.dw, 0);
    av_opt_set_int(c, "dsth", p.dh, 0);
    av_opt_set_int(c, "dst_format", p.df, 0);
    av_opt_set_int(c, "sws_flags", SWS_BICUBIC, 0);
    av_opt_set_int(c, "threads", threads, 0);
    // The ranges are set before the context is initialised: swscale 5.1's
    // sws_setColorspaceDetails does not redo the luma range conversion of a YUV source of more
    // than 8 bits (a full-range 10-bit frame's gray came out stretched as if limited range).
    if (p.srcRange >= 0) av_opt_set_int(c, "src_range", p.srcRange, 0);
    if (p.dstRange >= 0) av_opt_set_int(c, "dst_range", p.dstRange, 0);
    const int err = sws_init_context(c, nullptr, nullptr);
    if (err >= 0) {
      if (p.space >= 0) {
        const int* table = coefficients(static_cast<AVColorSpace>(p.space));
        sws_setColorspaceDetails(c, table, p.srcFull, table, p.dstFull, 0, 1 << 16, 1 << 16);
      }
      key_ = key;
      return c;
    }
    ctx_.reset();
    if (threads == 1)  // with slice threads it may be the threads that failed: one more try
      throw MediaError(std::string("no conversion from ") +
                       av_get_pix_fmt_name(static_cast<AVPixelFormat>(p.sf)) + " to " +
                       av_get_pix_fmt_name(static_cast<AVPixelFormat>(p.df)) + ": " + avError(err));
  }
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
  const bool full = isFullRange(src, d);
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

// swscale's slice threads (FFmpeg 5.1) give the one-thread bytes from 8-bit planar 4:2:0, 4:2:2
// and 4:4:4 YUV, the decoders' usual output (and NV12 once unpacked), as the tests check; from
// 10-bit YUV, rows at the bands' edges came out differently from run to run, so every format the
// tests do not cover converts on the calling thread.
bool threadable(const AVFrame* src) {
  switch (src->format) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUV422P:
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUVJ444P:
      return true;
    default:
      return false;
  }
}

}  // namespace

// NV12 and NV21 (NVDEC and VAAPI hand back NV12) have no fast colour path in swscale: its
// generic scaler takes about five times as long as from planar 4:2:0 (8 against 1.7 ms a 1080p
// frame here). Unpacked to planar first (an exact copy of the interleaved chroma), they take the
// planar path and give the same pixels as a software decoder's frames of the same picture.
// The unpacking is done here: swscale 5.1's own NV21 unpacking swaps the chroma.
const AVFrame* FrameConverter::planar(const AVFrame* src) {
  const auto sf = static_cast<AVPixelFormat>(src->format);
  if (sf != AV_PIX_FMT_NV12 && sf != AV_PIX_FMT_NV21) return src;
  if (!planar_ || planar_->width != src->width || planar_->height != src->height) {
    planar_ = makeFrame();
    planar_->format = AV_PIX_FMT_YUV420P;
    planar_->width = src->width;
    planar_->height = src->height;
    if (av_frame_get_buffer(planar_.get(), 0) < 0) outOfMemory("a frame conversion");
  }
  AVFrame* p = planar_.get();
  for (int y = 0; y < src->height; ++y)
    std::memcpy(p->data[0] + std::ptrdiff_t(y) * p->linesize[0],
                src->data[0] + std::ptrdiff_t(y) * src->linesize[0], std::size_t(src->width));
  const int cw = (src->width + 1) / 2;
  const int first = sf == AV_PIX_FMT_NV12 ? 1 : 2;  // the plane of the pair's first byte
  for (int y = 0; y < (src->height + 1) / 2; ++y) {
    const std::uint8_t* in = src->data[1] + std::ptrdiff_t(y) * src->linesize[1];
    std::uint8_t* a = p->data[first] + std::ptrdiff_t(y) * p->linesize[first];
    std::uint8_t* b = p->data[3 - first] + std::ptrdiff_t(y) * p->linesize[3 - first];
    for (int x = 0; x < cw; ++x) {
      a[x] = in[2 * x];
      b[x] = in[2 * x + 1];
    }
  }
  p->color_range = src->color_range;
  p->colorspace = src->colorspace;
  return p;
}

void FrameConverter::toSlot(const AVFrame* frame, const FrameView& dst) {
  if (lumaToGray(frame, dst)) return;
  const AVFrame* src = planar(frame);
  const auto sf = static_cast<AVPixelFormat>(src->format);
  const AVPixelFormat df = avFormatOf(dst.format);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(sf);
  const bool yuv = d && !isRgbLike(d);
  // Gray comes out full range, as a gray conversion of the colour frame would.
  const bool full = yuv && isFullRange(src, d);
  const int threads = threadable(src) ? threads_ : 1;
  Spec spec{src->width, src->height, sf, dst.width, dst.height, df};
  spec.threads = threads;
  if (yuv) {  // the matrix of the frame's tags (SD BT.601 when untagged), to full-range BGR
    spec.srcRange = spec.srcFull = int(full);
    spec.dstRange = spec.dstFull = 1;
    spec.space = src->colorspace;
  }
  SwsContext* c = context(spec);
  if (!yuv || dst.width % 16 == 0 || dst.format == PixelFormat::Gray8) {
    convert(c, threads, src, dst.data, static_cast<int>(dst.stride), df, dst.width, dst.height);
    return;
  }
  // swscale's x86 path from planar YUV to packed RGB converts whole groups of pixels (FFmpeg
  // 5.1): where the destination's rows have no room for a row rounded up to 8, it leaves the last
  // width % 8 pixels of every row unwritten, and from 4:2:0 it writes rows rounded up to 16, past
  // a row of 8 mod 16 pixels (and past the slot after its last row). The slot's rows are tight,
  // so widths not a multiple of 16 are converted into rows with room and copied.
  const std::size_t row = std::size_t(dst.width) * vf::channels(dst.format);
  const std::size_t stride = std::size_t((dst.width + 15) / 16 * 16) * vf::channels(dst.format);
  wide_.resize(stride * std::size_t(dst.height));
  convert(c, threads, src, wide_.data(), static_cast<int>(stride), df, dst.width, dst.height);
  for (int y = 0; y < dst.height; ++y) std::memcpy(dst.row(y), wide_.data() + y * stride, row);
}

void FrameConverter::convert(SwsContext* c, int threads, const AVFrame* src, std::uint8_t* out,
                             int stride, AVPixelFormat df, int width, int height) {
  if (threads <= 1) {
    std::uint8_t* planes[4] = {out, nullptr, nullptr, nullptr};
    int strides[4] = {stride, 0, 0, 0};
    sws_scale(c, src->data, src->linesize, 0, src->height, planes, strides);
    return;
  }
  // sws_scale() runs on the calling thread; the frame API runs bands of rows on the context's
  // threads. It takes the destination as a frame with a buffer: the rows at `out`, which this
  // frame does not own (nothing to free).
  FramePtr dst = makeFrame();
  dst->format = df;
  dst->width = width;
  dst->height = height;
  dst->data[0] = out;
  dst->linesize[0] = stride;
  dst->buf[0] = av_buffer_create(
      out, std::size_t(stride) * std::size_t(height), [](void*, std::uint8_t*) {}, nullptr, 0);
  if (!dst->buf[0]) outOfMemory("a frame conversion");
  const int err = sws_scale_frame(c, dst.get(), src);
  if (err < 0) throw MediaError("converting a decoded frame failed: " + avError(err));
}

void FrameConverter::fromSlot(const FrameView& src, AVFrame* dst, const ColourTags& tags, int width,
                              int height) {
  const AVPixelFormat sf = avFormatOf(src.format);
  const auto df = static_cast<AVPixelFormat>(dst->format);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(df);
  // Rows padded for an encoder that needs even sizes (the last column and row repeat); and for
  // YUV with chroma across pairs of columns, rows of an odd width get room for one more pixel,
  // a copy of their last: swscale 5.1 takes a chroma sample from each pair, the pair at an odd
  // width's end included, reading the pixel past the row (the next row's first, or past the
  // frame on the last row).
  const bool grown = src.width == width && src.height == height &&
                     (dst->width != src.width || dst->height != src.height);
  const int sw = grown ? dst->width : src.width, sh = grown ? dst->height : src.height;
  const int pairs = d && !isRgbLike(d) ? 1 << d->log2_chroma_w : 1;
  const int room = (sw + pairs - 1) / pairs * pairs;
  const std::uint8_t* data = src.data;
  int stride = static_cast<int>(src.stride);
  if (grown || room != sw) {
    const int bpp = vf::channels(src.format);
    stride = room * bpp;
    padded_.resize(std::size_t(stride) * sh);
    for (int y = 0; y < sh; ++y) {
      const std::uint8_t* row = src.row(std::min(y, src.height - 1));
      std::uint8_t* out = padded_.data() + std::size_t(y) * stride;
      std::memcpy(out, row, std::size_t(src.width) * bpp);
      for (int x = src.width; x < room; ++x)
        std::memcpy(out + x * bpp, row + (src.width - 1) * bpp, bpp);
    }
    data = padded_.data();
  }
  Spec spec{sw, sh, sf, dst->width, dst->height, df};
  if (d && !isRgbLike(d)) {  // full-range BGR to the output's matrix and range
    spec.space = tags.space;
    spec.srcRange = spec.srcFull = 1;
    // Set before the context is initialised too: swscale 5.1's sws_setColorspaceDetails moves
    // the luma of RGB to YUV to full range but leaves the chroma on the limited range's scale.
    spec.dstRange = spec.dstFull = int(isFullRange(d, df, tags.range));
  }
  SwsContext* c = context(spec);
  const std::uint8_t* planes[4] = {data, nullptr, nullptr, nullptr};
  const int strides[4] = {stride, 0, 0, 0};
  sws_scale(c, planes, strides, 0, sh, dst->data, dst->linesize);
}

int convertThreadsEach(int atOnce, int cap) {
  constexpr int kMost = 4;
  const int cores = std::max(1, av_cpu_count());
  const int n = std::clamp(cores / (4 * std::max(atOnce, 1)), 1, kMost);
  return cap > 0 ? std::min(n, cap) : n;
}

}  // namespace vf::media
