// The muxer's check of a finished file: it opens again and holds the frames written, and the
// input's rotation where the container has a place for it.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "app/media/muxer.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace vf::media {

namespace {

// The first video stream of a file read back (-1 when it has none yet).
int videoOf(const AVFormatContext* in) {
  for (unsigned i = 0; i < in->nb_streams; ++i)
    if (in->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) return static_cast<int>(i);
  return -1;
}

}  // namespace

void Muxer::verify() const {
  struct stat st {};
  if (::stat(spec_.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || videoPackets_ == 0) return;
  // Raw video has no header to find its frames by: it is read back as what was written.
  const AVInputFormat* format = nullptr;
  AVDictionary* options = nullptr;
  const AVCodecParameters* video = ctx_->streams[0]->codecpar;
  if (std::string(ctx_->oformat->name) == "rawvideo" && video->codec_id == AV_CODEC_ID_RAWVIDEO) {
    format = av_find_input_format("rawvideo");
    const std::string size = std::to_string(video->width) + "x" + std::to_string(video->height);
    av_dict_set(&options, "video_size", size.c_str(), 0);
    av_dict_set(&options, "pixel_format",
                av_get_pix_fmt_name(static_cast<AVPixelFormat>(video->format)), 0);
  }
  // Else the demuxer of the muxer's kind, when FFmpeg has one by that name: probing goes by the
  // name too, and a name such as 'v_%03d.png' would be taken for an image sequence.
  const AVInputFormat* byName = format ? nullptr : av_find_input_format(ctx_->oformat->name);
  AVFormatContext* raw = nullptr;
  int err = avformat_open_input(&raw, spec_.url.c_str(), format ? format : byName, &options);
  if (err < 0 && byName) err = avformat_open_input(&raw, spec_.url.c_str(), nullptr, nullptr);
  av_dict_free(&options);
  if (err < 0)
    throw MediaError(spec_.path + " was written but does not open again (" + avError(err) +
                     "): the file is damaged");
  InputPtr in(raw);
  // The video is not always stream 0 of what is read back: FLV adds its streams as their first
  // packets come, and the audio can come first. The first video stream is the one written.
  int readVideo = videoOf(in.get());
  for (unsigned i = 0; i < in->nb_streams; ++i)
    if (static_cast<int>(i) != readVideo) in->streams[i]->discard = AVDISCARD_ALL;
  PacketPtr p = makePacket();
  std::int64_t frames = 0;
  while ((err = av_read_frame(in.get(), p.get())) >= 0) {
    if (readVideo < 0 && in->streams[p->stream_index]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
      readVideo = p->stream_index;
    if (p->stream_index == readVideo) ++frames;
    av_packet_unref(p.get());
  }
  if (readVideo >= 0) checkRotation(in->streams[readVideo]);
  if (frames > videoPackets_ || frames < videoPackets_ - emptyVideoPackets_)
    throw MediaError(spec_.path + " was written but reads back " + std::to_string(frames) +
                     " of the " + std::to_string(videoPackets_) + " frames written" +
                     (err != AVERROR_EOF ? " (" + avError(err) + ")" : "") +
                     ": the file is damaged");
  spdlog::debug("{}: read back {} frames, {} bytes", spec_.path, frames,
                static_cast<long long>(st.st_size));
}

void Muxer::checkRotation(const AVStream* written) const {
  // Some containers have no place for it (AVI, MPEG-TS; Matroska and WebM in older FFmpeg).
  if (rotation_ == 0) return;
  if (av_stream_get_side_data(written, AV_PKT_DATA_DISPLAYMATRIX, nullptr)) return;
  warnRotationLost();
}

void Muxer::warnRotationLost() const {
  spdlog::warn(
      "{}: the input's rotation ({:g} degrees) is not kept: this FFmpeg's {} container does not "
      "hold it, so players show the video unrotated; write .mp4 or .mov to keep it",
      spec_.toStdout ? "stdout" : spec_.path, rotation_, ctx_->oformat->name);
}

}  // namespace vf::media
