#pragma once
// The input's streams other than the video, in the output: each is copied when the container
// takes its codec (stream copy: the packets as they are), audio is re-encoded when it cannot
// (AAC for mp4/mov, Opus for webm, or -c:a NAME), text subtitles converted to the container's
// text format, and a stream that fits no way is dropped with a warning that names it. -an drops
// audio on purpose. Stream metadata and dispositions come along.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/media/audio_transcoder.hpp"
#include "app/media/av.hpp"
#include "app/media/output_spec.hpp"
#include "app/media/subtitle_transcoder.hpp"

namespace vf::media {

class SideStreams {
 public:
  using Write = std::function<void(AVPacket*)>;  // a packet for the muxer, stream index set

  // Adds the output streams to `out` (before its header is written).
  // `window`: where re-encoded audio is cut (the output's timeline).
  SideStreams(const AVFormatContext* in, int videoIndex, AVFormatContext* out,
              const OutputSpec& spec, AudioWindow window = {});
  ~SideStreams();

  // The input streams to relay.
  std::vector<int> inputs() const;
  // One relayed packet (input stream index set; timestamps on the output's timeline in the
  // input stream's time base). `endUs`: packets starting at or after it are left out (the run
  // stopped early; INT64_MAX otherwise).
  void handle(AVPacket* p, std::int64_t endUs, const Write& write);
  // Whether relayed packet `p` starts before `endUs` (or has no time, or is of a stream not
  // taken): what handle() would keep of it with that end.
  bool before(const AVPacket* p, std::int64_t endUs) const;
  // Re-encoded streams: what their encoders still hold.
  void flush(const Write& write);
  std::string summary() const;  // "audio aac copied; subtitle ass dropped"

 private:
  struct Route {
    int input = -1, output = -1;
    AVRational inTb{1, 1};
    std::unique_ptr<AudioTranscoder> transcoder;
    std::unique_ptr<SubtitleTranscoder> subtitles;
    std::int64_t lastDts = AV_NOPTS_VALUE;  // of the last packet copied (output time base)
  };
  // `video`: the input's video stream (whose tags the output's video stream takes).
  void plan(const AVFormatContext* in, int index, const AVStream* video, AVFormatContext* out,
            const OutputSpec& spec);
  // Text subtitles the container cannot take as they are, in its own text format: whether
  // they are (else they are dropped).
  bool convertSubtitles(const AVStream* ist, int index, const std::string& what,
                        AVFormatContext* out, const OutputSpec& spec);
  Route* route(int input);
  void keepMonotonic(Route& r, AVPacket* p) const;

  std::vector<Route> routes_;
  AudioWindow window_;
  bool limited_ = false;  // --frames may end the output before the input's end
  // --ss, --to, -t or --frames cut the input (its streams' lengths and statistics no longer
  // hold).
  bool cut() const { return window_.fromUs != INT64_MIN || window_.toUs != INT64_MAX || limited_; }
  AVFormatContext* out_;
  std::vector<std::string> notes_;
};

}  // namespace vf::media
