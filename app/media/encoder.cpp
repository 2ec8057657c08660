#include "app/media/encoder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "app/media/pixel_format_choice.hpp"
#include "app/options.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

bool is(const AVCodec* c, const char* name) { return std::string(c->name) == name; }

// Codecs whose time base must fit 16 bits (MPEG-4 part 2, H.263).
bool shortTimeBase(AVCodecID id) {
  return id == AV_CODEC_ID_MPEG4 || id == AV_CODEC_ID_H263 || id == AV_CODEC_ID_H263P ||
         id == AV_CODEC_ID_MSMPEG4V2 || id == AV_CODEC_ID_MSMPEG4V3 || id == AV_CODEC_ID_FLV1;
}

// Encoders that take the time base for the frame rate: libtheora writes it into its header as
// the rate and counts its keyframe distance in it (Ogg reads the frames' times back from that),
// so a file's time base (1/12800) would make it 12800 fps and lose frames. They get the
// nominal rate's; the frames' times are rescaled to it.
bool rateFromTimeBase(const AVCodec* c) { return is(c, "libtheora"); }

// Where MPEG-1's encoder would not start: the rate as the likely cause, when the nearest of the
// codec's table (`rate`) is not one of MPEG-1's eight (FFmpeg's table goes on with MPEG-2's
// extended ones); `fps`, the input's.
std::string rateHint(const AVCodec* c, AVRational rate, double fps) {
  if (!is(c, "mpeg1video")) return "";
  static constexpr AVRational kMpeg1[] = {{24000, 1001}, {24, 1}, {25, 1},       {30000, 1001},
                                          {30, 1},       {50, 1}, {60000, 1001}, {60, 1}};
  std::string rates;
  for (const AVRational r : kMpeg1) {
    if (av_cmp_q(r, rate) == 0) return "";
    rates += fmt::format("{}{:.5g}", rates.empty() ? "" : ", ", av_q2d(r));
  }
  return fmt::format(
      "; MPEG-1 takes these frame rates only: {}, and the input is {:.6g} fps: write MPEG-2 "
      "(--codec mpeg2video) or another container (.mp4, .mkv)",
      rates, fps > 0 ? fps : av_q2d(rate));
}

// Encoders that store frames of any size, their last chroma sample covering what is left, as
// ffmpeg writes them (FFmpeg 5.1, 333x201 in 4:2:0 or their 4:2:2: each opens, and its frames
// decode at that size); the others (libx264, libx265, libsvtav1, Xvid, HuffYUV, Ut Video, ...)
// refuse sizes that are not a multiple of the chroma subsampling.
bool storesAnySize(const AVCodec* c) {
  for (const char* name :
       {"rawvideo", "wrapped_avframe", "ffv1", "libvpx", "libvpx-vp9", "libaom-av1", "librav1e",
        "mpeg4", "mpeg1video", "mpeg2video", "msmpeg4", "flv", "mjpeg", "prores_ks", "libtheora",
        "magicyuv", "jpeg2000", "libopenjpeg"})
    if (is(c, name)) return true;
  return false;
}

// H.263 (.3gp's default encoder) codes five picture sizes only.
void checkH263Size(const std::string& shown, const AVCodec* c, int w, int h) {
  if (c->id != AV_CODEC_ID_H263) return;
  for (const auto& [sw, sh] :
       {std::pair{128, 96}, {176, 144}, {352, 288}, {704, 576}, {1408, 1152}})
    if (w == sw && h == sh) return;
  throw app::UsageError(shown + ": the h263 encoder takes 128x96, 176x144, 352x288, 704x576 or " +
                        "1408x1152 frames, not " + std::to_string(w) + "x" + std::to_string(h) +
                        "; end the chain with resize=352x288, or choose --codec libx264");
}

bool qscaleCodec(AVCodecID id) {
  return id == AV_CODEC_ID_MPEG4 || id == AV_CODEC_ID_MJPEG || id == AV_CODEC_ID_MPEG2VIDEO ||
         id == AV_CODEC_ID_MPEG1VIDEO || id == AV_CODEC_ID_MSMPEG4V3 || id == AV_CODEC_ID_H263P ||
         id == AV_CODEC_ID_FLV1;
}

// Whether full-range YUV stays full range when written: where the bitstream says so (H.264,
// HEVC, VP9 and AV1 carry it; MJPEG is full range) or the container does (Matroska's colour
// element). Elsewhere (MPEG-4 Part 2 or 2 in .avi, .ts, .mpg, ProRes, VP8) decoders take the
// samples as limited range: the colours would come out washed out and clipped.
bool keepsFullRange(const AVCodec* c, const std::string& muxer) {
  switch (c->id) {
    case AV_CODEC_ID_H264:
    case AV_CODEC_ID_HEVC:
    case AV_CODEC_ID_VP9:
    case AV_CODEC_ID_AV1:
    case AV_CODEC_ID_MJPEG:
      return true;
    default:
      return muxer == "matroska";
  }
}

// x264 and x265 take these presets and a crf up to 51: past them x264 prints its own error line
// or clamps the crf, so they are checked first.
void checkX26x(const AVCodec* codec, const EncoderSettings& s) {
  if (!is(codec, "libx264") && !is(codec, "libx264rgb") && !is(codec, "libx265")) return;
  static const char* const presets[] = {"ultrafast", "superfast", "veryfast", "faster",
                                        "fast",      "medium",    "slow",     "slower",
                                        "veryslow",  "placebo"};
  if (!s.preset.empty() &&
      std::find(std::begin(presets), std::end(presets), s.preset) == std::end(presets))
    throw app::UsageError(fmt::format("--preset {}: {} takes {} (medium is its default)",
                                      quote(s.preset), codec->name, fmt::join(presets, ", ")));
  if (s.crf && *s.crf > 51)
    throw app::UsageError(
        fmt::format("--crf {:g}: {} takes 0 to 51 (lower is better quality; its default is {})",
                    *s.crf, codec->name, is(codec, "libx265") ? 28 : 23));
}

}  // namespace

void VideoEncoder::applySettings(const EncoderSettings& given) {
  void* priv = ctx_->priv_data;
  EncoderSettings s = given;
  // Lossless encoders (y4m's wrapped frames, rawvideo, ffv1, png, ...) have no quality, bitrate
  // or speed to set: each such option is one warning and has no effect, as with ffmpeg.
  const AVCodecDescriptor* desc = avcodec_descriptor_get(codec_->id);
  if (desc && (desc->props & AV_CODEC_PROP_LOSSLESS) && !(desc->props & AV_CODEC_PROP_LOSSY)) {
    const bool raw =
        codec_->id == AV_CODEC_ID_WRAPPED_AVFRAME || codec_->id == AV_CODEC_ID_RAWVIDEO;
    const std::string what =
        raw ? "the output is uncompressed video (nothing to trade for size; write .mp4 or .mkv, "
              "H.264 by default, to set it)"
            : std::string("the ") + codec_->name +
                  " encoder is lossless (nothing to trade for size; choose a lossy encoder with "
                  "--codec, e.g. libx264, to set it)";
    const auto ignored = [&](const char* option) {
      spdlog::warn("{}: {} is ignored: {}", shown_, option, what);
    };
    if (s.crf) ignored("--crf");
    if (s.bitrate) ignored("--bitrate");
    if (!s.preset.empty()) ignored("--preset");
    s.crf.reset();
    s.bitrate.reset();
    s.preset.clear();
  }
  checkX26x(codec_, s);
  if (!s.preset.empty() && av_opt_set(priv, "preset", s.preset.c_str(), 0) < 0)
    throw app::UsageError("--preset " + s.preset + ": the " + codec_->name +
                          " encoder has no such preset");
  if (s.bitrate) {
    ctx_->bit_rate = *s.bitrate;
    rateText_ = std::to_string(*s.bitrate / 1000) + " kb/s";
  } else if (s.crf) {
    if (av_opt_set_double(priv, "crf", *s.crf, 0) < 0)
      throw app::UsageError(std::string("--crf: the ") + codec_->name +
                            " encoder has no constant-quality mode; give --bitrate instead");
    if (ctx_->codec_id == AV_CODEC_ID_VP9 || ctx_->codec_id == AV_CODEC_ID_AV1) ctx_->bit_rate = 0;
    rateText_ = "crf " + std::to_string(static_cast<int>(*s.crf));
  } else if ((is(codec_, "libvpx-vp9") || is(codec_, "libaom-av1"))) {
    av_opt_set_double(priv, "crf", 32, 0);  // their default is 256 kb/s
    ctx_->bit_rate = 0;
    rateText_ = "crf 32";
  } else if (qscaleCodec(ctx_->codec_id)) {
    ctx_->flags |= AV_CODEC_FLAG_QSCALE;  // their default is 200 kb/s
    ctx_->global_quality = FF_QP2LAMBDA * 3;
    rateText_ = "q 3";
  }
  const bool verbose = spdlog::get_level() <= spdlog::level::debug;
  // These two log to stderr by themselves, not through FFmpeg's log.
  if (is(codec_, "libx265"))
    av_opt_set(priv, "x265-params", verbose ? "log-level=info" : "log-level=error", 0);
  if (is(codec_, "libsvtav1")) ::setenv("SVT_LOG", verbose ? "3" : "1", 0);
}

VideoEncoder::VideoEncoder(const EncoderSettings& settings, const EncoderInput& in,
                           const std::string& shown)
    : colour_(in.colour), shown_(shown), muxer_(in.muxer), constantRate_(in.constantRate) {
  codec_ = avcodec_find_encoder_by_name(settings.codec.c_str());
  if (!codec_) throw app::UsageError("--codec " + settings.codec + ": no such encoder");
  ctx_.reset(avcodec_alloc_context3(codec_));
  if (!ctx_) outOfMemory("the encoder");
  const AVPixelFormat pix = choosePixelFormat(codec_, settings, in, shown);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pix);
  // Sizes a multiple of the chroma subsampling (odd frames are padded by repeating the last
  // column and row; an image sequence keeps the exact size), except where the encoder stores
  // any size.
  const bool anySize = storesAnySize(codec_);
  const int mx = anySize ? 0 : (1 << d->log2_chroma_w) - 1,
            my = anySize ? 0 : (1 << d->log2_chroma_h) - 1;
  ctx_->width = (in.desc.width + mx) & ~mx;
  ctx_->height = (in.desc.height + my) & ~my;
  if (ctx_->width != in.desc.width || ctx_->height != in.desc.height)
    spdlog::warn(
        "{}: {}x{} is odd; written as {}x{} with the last column/row repeated ({} in {} "
        "needs even sizes; VP9, AV1 through libaom, FFV1, y4m and image sequences keep the "
        "exact size)",
        shown, in.desc.width, in.desc.height, ctx_->width, ctx_->height, av_get_pix_fmt_name(pix),
        codec_->name);
  ctx_->pix_fmt = pix;
  AVRational rate = in.fps > 0 ? av_d2q(in.fps, 1001000) : AVRational{25, 1};
  // MPEG-1/2 take the rates of their table: the nearest, as ffmpeg picks it (29.97 for 2997/100).
  if (codec_->supported_framerates)
    rate = codec_->supported_framerates[av_find_nearest_q_idx(rate, codec_->supported_framerates)];
  AVRational tb = in.timeBase;
  if (constantRate_ || tb.num <= 0 || tb.den <= 0) {
    constantRate_ = true;
    tb = av_inv_q(rate);
  }
  rate_ = av_q2d(rate);
  // The container's time base (AVI) or the codec's (Theora, MPEG-1/2) is the rate: where the
  // frames keep their own times, they are timed in its whole frames.
  const bool rateTimeBase =
      in.rateTimeBase || rateFromTimeBase(codec_) || codec_->supported_framerates != nullptr;
  if (rateTimeBase) tb = av_inv_q(rate);
  wholeFrames_ = rateTimeBase && !constantRate_;
  if (shortTimeBase(codec_->id) && tb.den > 65535) tb = {1, 1000};
  ctx_->time_base = tb;
  ctx_->framerate = rate;
  ctx_->sample_aspect_ratio =
      in.sampleAspect.num > 0 && in.sampleAspect.den > 0 ? in.sampleAspect : AVRational{1, 1};
  // Interlaced input stays tagged so (the containers' and y4m's field order), as with ffmpeg.
  if (in.fieldOrder != AV_FIELD_UNKNOWN) ctx_->field_order = in.fieldOrder;
  ctx_->thread_count = 0;
  // RGB is written as RGB (the GBR matrix, no range), whatever the input's matrix was.
  const bool rgb = (d->flags & AV_PIX_FMT_FLAG_RGB) != 0;
  if (rgb) colour_.space = AVCOL_SPC_RGB;
  ctx_->colorspace = colour_.space;
  ctx_->color_range = rgb ? AVCOL_RANGE_UNSPECIFIED : colour_.range;
  ctx_->color_primaries = colour_.primaries;
  ctx_->color_trc = colour_.transfer;
  // Gray is written full range (as ffmpeg writes it, and as the chain's gray is), whatever the
  // input's range.
  const bool gray =
      d->nb_components <= 2 && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL));
  if (gray || pix == AV_PIX_FMT_YUVJ420P || pix == AV_PIX_FMT_YUVJ422P ||
      pix == AV_PIX_FMT_YUVJ444P)
    ctx_->color_range = AVCOL_RANGE_JPEG;
  else if (!rgb && ctx_->color_range == AVCOL_RANGE_JPEG && !keepsFullRange(codec_, in.muxer))
    ctx_->color_range = AVCOL_RANGE_MPEG;  // converted to limited range, and tagged so
  colour_.range = ctx_->color_range;
  if (in.globalHeader) ctx_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  applySettings(settings);
  const int w = ctx_->width, h = ctx_->height;  // avcodec_open2 clears them when it fails
  checkEncodableSize(shown, w, h);
  checkH263Size(shown, codec_, w, h);
  const int err = avcodec_open2(ctx_.get(), codec_, nullptr);
  // Settings the user chose can be what the encoder refuses (exit 2); without any, the encoder
  // itself could not start (memory, a library fault: exit 1).
  const bool chosen =
      !settings.preset.empty() || !settings.pixFmt.empty() || settings.crf || settings.bitrate;
  // Encoders have limits of their own on a side (MPEG-4 Part 2: 8191, libx264's levels) that
  // FFmpeg does not publish: past 4096, the frame's size is the likely cause.
  const std::string large =
      std::max(w, h) > 4096
          ? "; frames this large may be past what this encoder takes: end the chain with a "
            "smaller resize=WxH, or write an encoder that takes any size (--codec ffv1 into .mkv, "
            "or a .y4m file)"
          : "";
  if (err < 0 && (err == AVERROR(ENOMEM) || !chosen))
    throw MediaError(shown + ": the " + codecName(codec_) + " encoder could not start at " +
                     std::to_string(w) + "x" + std::to_string(h) + " (" + avError(err) + ")" +
                     large + rateHint(codec_, rate, in.fps));
  if (err < 0)
    throw app::UsageError(shown + ": the " + codecName(codec_) + " encoder refused " +
                          av_get_pix_fmt_name(pix) + " " + std::to_string(w) + "x" +
                          std::to_string(h) +
                          (settings.preset.empty() ? "" : " with --preset " + settings.preset) +
                          (settings.crf ? " with --crf" : "") + " (" + avError(err) + ")" +
                          rateHint(codec_, rate, in.fps));
}

FramePtr VideoEncoder::allocFrame() const {
  FramePtr f = makeFrame();
  f->format = ctx_->pix_fmt;
  f->width = ctx_->width;
  f->height = ctx_->height;
  if (av_frame_get_buffer(f.get(), 0) < 0) outOfMemory("the encoder");
  return f;
}

void VideoEncoder::send(AVFrame* frame) {
  if (frame) {
    frame->colorspace = colour_.space;
    frame->color_range = colour_.range;
    frame->color_primaries = colour_.primaries;
    frame->color_trc = colour_.transfer;
  }
  const int err = avcodec_send_frame(ctx_.get(), frame);
  if (err < 0 && err != AVERROR_EOF)
    throw MediaError(shown_ + ": the " + codecName(codec_) + " encoder failed: " + avError(err));
}

bool VideoEncoder::receive(AVPacket* out) {
  const int err = avcodec_receive_packet(ctx_.get(), out);
  if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return false;
  if (err < 0)
    throw MediaError(shown_ + ": the " + codecName(codec_) + " encoder failed: " + avError(err));
  return true;
}

bool VideoEncoder::keepsAlpha() const { return media::keepsAlpha(codec_, ctx_->pix_fmt, muxer_); }

std::string VideoEncoder::summary() const {
  std::string s = codecName(codec_) + " " + av_get_pix_fmt_name(ctx_->pix_fmt);
  if (!rateText_.empty()) s += ", " + rateText_;
  return s;
}

}  // namespace vf::media
