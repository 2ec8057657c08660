#include "app/media/complete_output.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "app/media/av.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf::media {

namespace {

// Containers whose duration is written when they close (absent from a file whose run was
// killed, so FFmpeg estimates it instead).
bool writesDurationAtClose(const AVInputFormat* f) {
  return std::strstr(f->name, "matroska") || std::strstr(f->name, "mov") ||
         std::strcmp(f->name, "avi") == 0;
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

}  // namespace

std::string incompleteVideo(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "it is not a regular file";
  AVFormatContext* raw = nullptr;
  if (const int err = avformat_open_input(&raw, path.c_str(), nullptr, nullptr); err < 0)
    return "it does not open (" + avError(err) + ")";
  InputPtr in(raw);
  if (avformat_find_stream_info(in.get(), nullptr) < 0) return "its streams cannot be read";
  const int video = av_find_best_stream(in.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (video < 0) return "it has no video";
  const bool declared = in->duration_estimation_method == AVFMT_DURATION_FROM_STREAM;
  if (writesDurationAtClose(in->iformat) && !declared) return "it was not closed";
  // The duration counts from the first timestamp, or from 0 (Matroska's segment, an MP4 edit
  // list that starts late): packets are compared by where they end, from 0.
  const double duration = in->duration > 0 ? in->duration / 1e6 : 0.0;
  // The last seconds: from two before the end to the end, every stream's packets (a file with
  // no index to seek by is read from its start).
  if (duration > 2.0) {
    const double start = in->start_time == AV_NOPTS_VALUE ? 0.0 : in->start_time / 1e6;
    av_seek_frame(in.get(), -1, std::int64_t((start + duration - 2.0) * AV_TIME_BASE),
                  AVSEEK_FLAG_BACKWARD);
  }
  PacketPtr p = makePacket();
  double end = 0.0;
  long videoPackets = 0;
  int err = 0;
  while ((err = av_read_frame(in.get(), p.get())) >= 0) {
    const AVStream* st = in->streams[p->stream_index];
    const std::int64_t ts = p->pts != AV_NOPTS_VALUE ? p->pts : p->dts;
    if (ts != AV_NOPTS_VALUE)
      end = std::max(end, (ts + std::max<std::int64_t>(p->duration, 0)) * av_q2d(st->time_base));
    videoPackets += p->stream_index == video;
    av_packet_unref(p.get());
  }
  if (err != AVERROR_EOF) return "reading its end failed (" + avError(err) + ")";
  if (videoPackets == 0) return "it holds no video frames at its end";
  // A cut-short file still declares the whole duration in its header.
  if (declared && end < duration - std::max(0.1, duration * 0.02))
    return "it ends at " + seconds(end) + " of " + seconds(duration);
  return "";
}

}  // namespace vf::media
