#include "app/media/pixel_format_choice.hpp"

#include <spdlog/spdlog.h>

#include "app/options.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

// Consumer codecs whose players expect 4:2:0.
bool prefers420(const AVCodec* c) {
  switch (c->id) {
    case AV_CODEC_ID_H264:
    case AV_CODEC_ID_HEVC:
    case AV_CODEC_ID_VP8:
    case AV_CODEC_ID_VP9:
    case AV_CODEC_ID_AV1:
    case AV_CODEC_ID_MPEG4:
    case AV_CODEC_ID_MPEG2VIDEO:
    case AV_CODEC_ID_MPEG1VIDEO:
      return true;
    default:
      return false;
  }
}

// Containers of working files, where a 4:2:2 or 4:4:4 source keeps its chroma as ffmpeg keeps
// it; files made to be played (MP4, MOV, WebM, MPEG-TS/PS, FLV, AVI) get 4:2:0, which browsers,
// phones and QuickTime decode (H.264 High 4:2:2 and 4:4:4 they do not).
bool keepsFineChroma(const std::string& muxer) {
  return muxer == "matroska" || muxer == "nut" || muxer.rfind("mxf", 0) == 0;
}

// The 8-bit planar YUV format with the chroma subsampling of `f` (yuv420p for nv12, yuvj420p or
// yuv420p10le; yuv422p, yuv444p, yuv411p, yuv410p), or NONE for RGB, gray and unknown formats.
AVPixelFormat planarYuvLike(AVPixelFormat f) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
  if (!d || d->nb_components < 3 ||
      (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL)))
    return AV_PIX_FMT_NONE;
  const int w = d->log2_chroma_w, h = d->log2_chroma_h;
  if (w == 1 && h == 1) return AV_PIX_FMT_YUV420P;
  if (w == 1 && h == 0) return AV_PIX_FMT_YUV422P;
  if (w == 0 && h == 0) return AV_PIX_FMT_YUV444P;
  if (w == 2 && h == 0) return AV_PIX_FMT_YUV411P;
  if (w == 2 && h == 2) return AV_PIX_FMT_YUV410P;
  return AV_PIX_FMT_NONE;
}

const char* chromaName(AVPixelFormat f) {
  return f == AV_PIX_FMT_YUV444P ? "4:4:4" : f == AV_PIX_FMT_YUV422P ? "4:2:2" : "4:2:0";
}

bool isVp8Or9(const AVCodec* c) { return c->id == AV_CODEC_ID_VP8 || c->id == AV_CODEC_ID_VP9; }

// A consumer codec's format: 4:2:0, or the finer chroma of a YUV source (4:2:2, 4:4:4) where the
// encoder and the container keep it, or VP9's yuva420p for frames with alpha in WebM/Matroska.
AVPixelFormat consumerFormat(const AVCodec* codec, const EncoderInput& in,
                             const std::string& shown) {
  const bool alpha = in.desc.format == PixelFormat::BGRA8;
  if (alpha && codec->id == AV_CODEC_ID_VP9 && encoderTakes(codec, AV_PIX_FMT_YUVA420P) &&
      keepsAlpha(codec, AV_PIX_FMT_YUVA420P, in.muxer))
    return AV_PIX_FMT_YUVA420P;
  const AVPixelFormat src =
      in.desc.format == PixelFormat::BGR8 ? planarYuvLike(in.sourcePixFmt) : AV_PIX_FMT_NONE;
  if (src != AV_PIX_FMT_YUV422P && src != AV_PIX_FMT_YUV444P) return AV_PIX_FMT_YUV420P;
  // The finest the encoder takes, no finer than the source's.
  AVPixelFormat fine = AV_PIX_FMT_YUV420P;
  for (AVPixelFormat f : {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV422P}) {
    if (f == AV_PIX_FMT_YUV444P && src != AV_PIX_FMT_YUV444P) continue;
    if (encoderTakes(codec, f)) {
      fine = f;
      break;
    }
  }
  const bool keep = keepsFineChroma(in.muxer);
  if (!keep && fine != AV_PIX_FMT_YUV420P) {  // the container's players, not the encoder
    spdlog::info(
        "{}: the input's {} chroma is written as 4:2:0, which players of {} files decode "
        "(browsers, phones and QuickTime do not decode {}); --pix-fmt {} keeps it, or write .mkv",
        shown, chromaName(src), in.muxer, chromaName(fine), av_get_pix_fmt_name(fine));
    return AV_PIX_FMT_YUV420P;
  }
  if (fine != src)
    spdlog::warn("{}: the input's {} chroma is written as {}: the {} encoder does not take {}{}",
                 shown, chromaName(src), chromaName(fine), codec->name, chromaName(src),
                 fine == AV_PIX_FMT_YUV420P
                     ? "; to keep it, choose one that does (--codec libx264, libx265, ffv1)"
                     : "");
  return fine;
}

}  // namespace

bool encoderTakes(const AVCodec* codec, AVPixelFormat f) {
  if (!codec->pix_fmts) return true;
  for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
    if (*p == f) return true;
  return false;
}

bool keepsAlpha(const AVCodec* codec, AVPixelFormat f, const std::string& muxer) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
  if (!d || !(d->flags & AV_PIX_FMT_FLAG_ALPHA)) return false;
  return !isVp8Or9(codec) || muxer == "webm" || muxer == "matroska";
}

AVPixelFormat nearestFormat(const AVCodec* codec, PixelFormat frames, AVPixelFormat input) {
  // An encoder of any format (raw video) writes the frames as they are; so does a lossless one
  // (FFV1, HuffYUV, Ut Video, MagicYUV): chosen to hold the chain's result exactly, it gets its
  // format nearest the frames (RGB for BGR), not a subsampled YUV.
  if (!codec->pix_fmts) return avFormatOf(frames);
  const AVCodecDescriptor* d = avcodec_descriptor_get(codec->id);
  const bool lossless =
      d && (d->props & AV_CODEC_PROP_LOSSLESS) && !(d->props & AV_CODEC_PROP_LOSSY);
  const AVPixelFormat yuv =
      frames == PixelFormat::BGR8 && !lossless ? planarYuvLike(input) : AV_PIX_FMT_NONE;
  const AVPixelFormat src = yuv != AV_PIX_FMT_NONE ? yuv : avFormatOf(frames);
  // MJPEG's limited-range formats are for -strict unofficial only: its full-range ones, as ffmpeg.
  static const AVPixelFormat kJpeg[] = {AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
                                        AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_NONE};
  return avcodec_find_best_pix_fmt_of_list(codec->id == AV_CODEC_ID_MJPEG ? kJpeg : codec->pix_fmts,
                                           src, frames == PixelFormat::BGRA8, nullptr);
}

AVPixelFormat choosePixelFormat(const AVCodec* codec, const EncoderSettings& s,
                                const EncoderInput& in, const std::string& shown) {
  if (!s.pixFmt.empty()) {
    const AVPixelFormat f = av_get_pix_fmt(s.pixFmt.c_str());
    if (!encoderTakes(codec, f))
      throw app::UsageError("--pix-fmt " + s.pixFmt + ": the " + codec->name +
                            " encoder cannot take it");
    return f;
  }
  // Uncompressed video (y4m, raw frames) keeps the input's chroma layout as ffmpeg does: a .yuv or
  // .y4m of a yuv420p input is yuv420p, 4:4:4 stays 4:4:4 (in 8 bits: the chain's depth); gray
  // frames stay gray; y4m of anything else (RGB, images, cameras) is yuv420p, raw video BGR.
  // Raw video inside other containers (.avi, .mov) stays BGR, which they can tag.
  const bool y4m = in.muxer == "yuv4mpegpipe";
  const bool rawFile =
      codec->id == AV_CODEC_ID_RAWVIDEO && (in.muxer == "rawvideo" || in.muxer == "nut");
  if (y4m || rawFile) {
    if (in.desc.format == PixelFormat::Gray8) return AV_PIX_FMT_GRAY8;
    const AVPixelFormat yuv =
        in.desc.format == PixelFormat::BGRA8 ? AV_PIX_FMT_NONE : planarYuvLike(in.sourcePixFmt);
    if (yuv != AV_PIX_FMT_NONE) return yuv;
    if (y4m) return AV_PIX_FMT_YUV420P;
  }
  if (prefers420(codec) && encoderTakes(codec, AV_PIX_FMT_YUV420P))
    return consumerFormat(codec, in, shown);
  return nearestFormat(codec, in.desc.format, in.sourcePixFmt);
}

}  // namespace vf::media
