#include "app/media/colour_kept.hpp"

#include <spdlog/spdlog.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

// What the stream itself records of the description: all, the matrix and range, or nothing.
enum class InStream { All, MatrixRange, None };

InStream inStream(AVCodecID codec) {
  switch (codec) {
    case AV_CODEC_ID_H264:
    case AV_CODEC_ID_HEVC:
    case AV_CODEC_ID_AV1:
    case AV_CODEC_ID_MPEG2VIDEO:
    case AV_CODEC_ID_PRORES:
      return InStream::All;
    case AV_CODEC_ID_VP9:
      return InStream::MatrixRange;
    default:
      return InStream::None;
  }
}

void add(std::string& out, const std::string& part) { out += (out.empty() ? "" : ", ") + part; }

}  // namespace

std::string colourLost(const ColourTags& t, const std::string& muxer, AVCodecID codec,
                       bool images) {
  const bool container = isMp4OrMatroska(muxer);
  const InStream stream = inStream(codec);
  const bool matrixKept = images || container || stream != InStream::None;
  // JPEG's range is full by its own definition.
  const bool rangeKept = matrixKept || muxer == "yuv4mpegpipe" || codec == AV_CODEC_ID_MJPEG;
  const bool gamutKept = !images && (container || stream == InStream::All);
  std::string lost;
  if (!matrixKept && t.space != AVCOL_SPC_UNSPECIFIED && t.space != AVCOL_SPC_SMPTE170M &&
      t.space != AVCOL_SPC_BT470BG && t.space != AVCOL_SPC_RGB)
    add(lost, std::string(av_color_space_name(t.space)) + " matrix");
  if (!rangeKept && t.range == AVCOL_RANGE_JPEG) add(lost, "full range");
  if (!gamutKept && (t.primaries == AVCOL_PRI_BT2020 || t.primaries == AVCOL_PRI_SMPTE431 ||
                     t.primaries == AVCOL_PRI_SMPTE432))
    add(lost, std::string(av_color_primaries_name(t.primaries)) + " primaries");
  if (!gamutKept && (t.transfer == AVCOL_TRC_SMPTE2084 || t.transfer == AVCOL_TRC_ARIB_STD_B67))
    add(lost, std::string(av_color_transfer_name(t.transfer)) + " transfer");
  return lost;
}

void warnColourLost(const std::string& shown, const ColourTags& tags, const std::string& muxer,
                    AVCodecID codec, bool images) {
  const std::string lost = colourLost(tags, muxer, codec, images);
  if (lost.empty()) return;
  if (images)
    spdlog::warn(
        "{}: the input's {} are not kept: images have no place for them, so viewers "
        "show the picture's values as SDR colours",
        shown, lost);
  else
    spdlog::warn(
        "{}: the input's colour description ({}) has no place in {}{}: players will "
        "guess it and may show the colours off; write .mkv or .mp4 to keep it",
        shown, lost, muxer,
        codec == AV_CODEC_ID_WRAPPED_AVFRAME || codec == AV_CODEC_ID_RAWVIDEO
            ? std::string()
            : std::string(" with ") + avcodec_get_name(codec));
}

}  // namespace vf::media
