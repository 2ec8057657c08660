#include "app/media/audio_transcoder.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "app/options.hpp"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
}

namespace vf::media {

namespace {

constexpr int kMaxGapSeconds = 600;  // a longer jump is a broken clock, not a pause

// The encoder's sample format nearest `want`: itself, its planar or packed twin, else the
// smallest that loses no precision (float into FLAC: s32, not s16), else the widest.
AVSampleFormat pickSampleFormat(const AVCodec* c, AVSampleFormat want) {
  if (!c->sample_fmts) return want;
  const int bytes = av_get_bytes_per_sample(want);
  AVSampleFormat best = AV_SAMPLE_FMT_NONE;
  int bestScore = -1;
  for (const AVSampleFormat* f = c->sample_fmts; *f != AV_SAMPLE_FMT_NONE; ++f) {
    if (*f == want) return want;
    const int b = av_get_bytes_per_sample(*f);
    const int score = av_get_packed_sample_fmt(*f) == av_get_packed_sample_fmt(want) ? 1000
                      : b >= bytes                                                   ? 500 - b
                                                                                     : b;
    if (score > bestScore) {
      best = *f;
      bestScore = score;
    }
  }
  return best;
}

int pickRate(const AVCodec* c, int want) {
  if (!c->supported_samplerates) return want;
  int best = c->supported_samplerates[0];
  for (const int* r = c->supported_samplerates; *r; ++r) {
    if (*r == want) return want;
    if (std::abs(*r - want) < std::abs(best - want)) best = *r;
  }
  return best;
}

// Layouts in Vorbis channel order, one per count from 1 to 8: all that libopus takes without
// an explicit mapping family, though it lists none (5.1(side), as AC-3 5.1 decodes, is refused
// with "Invalid argument").
const AVChannelLayout* vorbisLayouts() {
  static const std::vector<AVChannelLayout> layouts = [] {
    std::vector<AVChannelLayout> v;
    for (const std::uint64_t mask :
         {AV_CH_LAYOUT_MONO, AV_CH_LAYOUT_STEREO, AV_CH_LAYOUT_SURROUND, AV_CH_LAYOUT_QUAD,
          AV_CH_LAYOUT_5POINT0_BACK, AV_CH_LAYOUT_5POINT1_BACK, AV_CH_LAYOUT_6POINT1,
          AV_CH_LAYOUT_7POINT1}) {
      AVChannelLayout l{};
      av_channel_layout_from_mask(&l, mask);
      v.push_back(l);
    }
    v.push_back(AVChannelLayout{});  // the end, as in AVCodec::ch_layouts
    return v;
  }();
  return layouts.data();
}

// The layouts `c` takes; null where it takes any.
const AVChannelLayout* encoderLayouts(const AVCodec* c) {
  if (c->ch_layouts) return c->ch_layouts;
  if (std::string_view(c->name) == "libopus") return vorbisLayouts();
  return nullptr;
}

// How many of `want`'s channels layout `l` takes: the same places, and a side channel where `l`
// has the back one instead (or the other way round), as the resampler maps them.
int sharedChannels(const AVChannelLayout& l, const AVChannelLayout& want) {
  if (want.order != AV_CHANNEL_ORDER_NATIVE) return 0;
  const std::uint64_t w = want.u.mask, has = av_channel_layout_subset(&l, ~0ULL);
  int shared = static_cast<int>(std::bitset<64>(has & w).count());
  for (const auto& [a, b] :
       {std::pair{AV_CH_SIDE_LEFT, AV_CH_BACK_LEFT}, std::pair{AV_CH_SIDE_RIGHT, AV_CH_BACK_RIGHT},
        std::pair{AV_CH_BACK_LEFT, AV_CH_SIDE_LEFT}, std::pair{AV_CH_BACK_RIGHT, AV_CH_SIDE_RIGHT}})
    shared += (w & a) && !(w & b) && !(has & a) && (has & b);
  return shared;
}

// The encoder's layout nearest `want`: `want` itself where the encoder takes it (or takes any),
// else, of the layouts with no more channels than `want`, the one keeping the most of its
// channels, then the one adding the fewest it has not, then the nearest in count (5.1(side) into
// Opus: 5.1, not 7.1 with two silent channels; 2.1: stereo, not 3.0 with a silent centre; 5.1
// into MP3 or MP2, which take mono and stereo: stereo, downmixed by the resampler). Where every
// layout has more channels, the nearest in count.
AVChannelLayout pickLayout(const AVCodec* c, const AVChannelLayout& want) {
  AVChannelLayout out{};
  const AVChannelLayout* best = nullptr;
  if (const AVChannelLayout* layouts = encoderLayouts(c)) {
    int bestShared = -1, bestAdded = 0, bestDistance = 0;
    bool bestFits = false;
    for (const AVChannelLayout* l = layouts; l->nb_channels; ++l) {
      if (av_channel_layout_compare(l, &want) == 0) {
        best = l;
        break;
      }
      const bool fits = l->nb_channels <= want.nb_channels;
      const int shared = sharedChannels(*l, want);
      const int added = l->nb_channels - shared;
      const int distance = std::abs(l->nb_channels - want.nb_channels);
      const bool better =
          best == nullptr || (fits && !bestFits) ||
          (fits == bestFits &&
           (shared > bestShared ||
            (shared == bestShared &&
             (added < bestAdded || (added == bestAdded && distance < bestDistance)))));
      if (better) {
        best = l;
        bestFits = fits;
        bestShared = shared;
        bestAdded = added;
        bestDistance = distance;
      }
    }
  }
  av_channel_layout_copy(&out, best ? best : &want);
  return out;
}

}  // namespace

AudioTranscoder::AudioTranscoder(const AVStream* input, const AVCodec* encoder, bool globalHeader,
                                 const std::string& shown, AudioWindow window, int rate)
    : shown_(shown),
      dec_(openStreamDecoder(input, shown, "audio")),
      in_(makeFrame()),
      out_(makeFrame()),
      pkt_(makePacket()),
      window_(window) {
  enc_.reset(avcodec_alloc_context3(encoder));
  if (!enc_) outOfMemory("audio re-encoding");

  enc_->sample_rate =
      rate > 0 ? rate : pickRate(encoder, dec_->sample_rate > 0 ? dec_->sample_rate : 48000);
  enc_->sample_fmt = pickSampleFormat(encoder, dec_->sample_fmt);
  AVChannelLayout layout = dec_->ch_layout;
  if (layout.nb_channels <= 0) av_channel_layout_default(&layout, 2);
  if (layout.order != AV_CHANNEL_ORDER_NATIVE)
    av_channel_layout_default(&layout, layout.nb_channels);
  enc_->ch_layout = pickLayout(encoder, layout);
  enc_->time_base = {1, enc_->sample_rate};
  // The bit rate stays the encoder's own default, as with ffmpeg without -b:a: a fixed one is
  // refused by some (libvorbis, mono at 22050 Hz).
  if (globalHeader) enc_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  int err = avcodec_open2(enc_.get(), encoder, nullptr);
  if (err < 0)
    throw MediaError(shown + ": the " + codecName(encoder) +
                     " audio encoder did not open: " + avError(err));
  err = swr_alloc_set_opts2(&swr_, &enc_->ch_layout, enc_->sample_fmt, enc_->sample_rate,
                            &dec_->ch_layout, dec_->sample_fmt, dec_->sample_rate, 0, nullptr);
  if (err < 0 || swr_init(swr_) < 0)
    throw MediaError(shown + ": no resampler for this audio (" + avError(err) + ")");
  fifo_ = av_audio_fifo_alloc(enc_->sample_fmt, enc_->ch_layout.nb_channels, 1024);
  if (!fifo_) outOfMemory("audio re-encoding");
}

AudioTranscoder::~AudioTranscoder() {
  swr_free(&swr_);
  if (fifo_) av_audio_fifo_free(fifo_);
}

void AudioTranscoder::process(const AVPacket* packet, const Sink& out) {
  if (avcodec_send_packet(dec_.get(), packet) < 0) return;  // a damaged packet: skipped
  while (avcodec_receive_frame(dec_.get(), in_.get()) >= 0) {
    decoded(in_.get(), out);
    av_frame_unref(in_.get());
  }
}

void AudioTranscoder::fillGap(const AVFrame* f, const Sink& out) {
  if (nextPts_ == AV_NOPTS_VALUE || f->best_effort_timestamp == AV_NOPTS_VALUE) return;
  // Where the samples so far end: encoded, waiting in the FIFO, and held by the resampler.
  const std::int64_t end =
      nextPts_ + av_audio_fifo_size(fifo_) + swr_get_delay(swr_, enc_->sample_rate);
  const std::int64_t at =
      av_rescale_q(f->best_effort_timestamp, dec_->pkt_timebase, enc_->time_base);
  std::int64_t gap = at - end;
  const int rate = enc_->sample_rate;
  if (gap <= rate / 50) return;  // within 20 ms: timestamp jitter
  if (gap > std::int64_t{kMaxGapSeconds} * rate) {
    spdlog::warn("{}: the audio jumps {:.1f} s ahead; not filled with silence (more than {} s)",
                 shown_, double(gap) / rate, kMaxGapSeconds);
    return;
  }
  spdlog::debug("{}: {:.3f} s without audio filled with silence", shown_, double(gap) / rate);
  // A second of silence at a time, encoded as it goes.
  const int chunk = static_cast<int>(std::min<std::int64_t>(gap, rate));
  const int channels = enc_->ch_layout.nb_channels;
  std::uint8_t** raw = nullptr;
  if (av_samples_alloc_array_and_samples(&raw, nullptr, channels, chunk, enc_->sample_fmt, 0) < 0)
    outOfMemory("audio re-encoding");
  const auto freePlanes = [](std::uint8_t** p) {
    av_freep(&p[0]);
    av_freep(&p);
  };
  std::unique_ptr<std::uint8_t*, decltype(freePlanes)> planes(raw, freePlanes);
  av_samples_set_silence(planes.get(), 0, chunk, channels, enc_->sample_fmt);
  for (; gap > 0; gap -= chunk) {
    av_audio_fifo_write(fifo_, reinterpret_cast<void**>(planes.get()),
                        static_cast<int>(std::min<std::int64_t>(gap, chunk)));
    encodeFromFifo(false, out);  // may throw: the planes are freed all the same
  }
}

void AudioTranscoder::decoded(AVFrame* f, const Sink& out) {
  // The frame's samples within the window: [skip, keep) (all of them without a timestamp).
  int skip = 0, keep = f->nb_samples;
  if (f->best_effort_timestamp != AV_NOPTS_VALUE && f->sample_rate > 0) {
    const AVRational sample{1, f->sample_rate};
    const std::int64_t at = av_rescale_q(f->best_effort_timestamp, dec_->pkt_timebase, sample);
    if (window_.fromUs != INT64_MIN)
      skip = static_cast<int>(std::clamp<std::int64_t>(
          av_rescale_q(window_.fromUs, AV_TIME_BASE_Q, sample) - at, 0, f->nb_samples));
    if (window_.toUs != INT64_MAX)
      keep = static_cast<int>(std::clamp<std::int64_t>(
          av_rescale_q(window_.toUs, AV_TIME_BASE_Q, sample) - at, 0, f->nb_samples));
  }
  if (keep <= skip) return;  // wholly outside the window
  if (nextPts_ == AV_NOPTS_VALUE) {
    const std::int64_t ts =
        f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : 0;
    nextPts_ = av_rescale_q(ts, dec_->pkt_timebase, enc_->time_base) +
               av_rescale_q(skip, {1, std::max(f->sample_rate, 1)}, enc_->time_base);
  } else {
    fillGap(f, out);
  }
  // The samples from `skip` on: each plane's (or the one packed plane's) pointer moved on.
  const int planar = av_sample_fmt_is_planar(static_cast<AVSampleFormat>(f->format));
  const int inPlanes = planar ? f->ch_layout.nb_channels : 1;
  const int step = av_get_bytes_per_sample(static_cast<AVSampleFormat>(f->format)) *
                   (planar ? 1 : f->ch_layout.nb_channels);
  std::vector<const std::uint8_t*> in(static_cast<std::size_t>(inPlanes));
  for (int i = 0; i < inPlanes; ++i)
    in[static_cast<std::size_t>(i)] = f->extended_data[i] + skip * step;
  const int count = keep - skip;
  const int maxOut = swr_get_out_samples(swr_, count);
  std::uint8_t** planes = nullptr;
  if (av_samples_alloc_array_and_samples(&planes, nullptr, enc_->ch_layout.nb_channels, maxOut,
                                         enc_->sample_fmt, 0) < 0)
    outOfMemory("audio re-encoding");
  const int n = swr_convert(swr_, planes, maxOut, in.data(), count);
  if (n > 0) av_audio_fifo_write(fifo_, reinterpret_cast<void**>(planes), n);
  av_freep(&planes[0]);
  av_freep(&planes);
  encodeFromFifo(false, out);
}

void AudioTranscoder::encodeFromFifo(bool all, const Sink& out) {
  const int frameSize = enc_->frame_size > 0 ? enc_->frame_size : 1024;
  while (av_audio_fifo_size(fifo_) >= frameSize || (all && av_audio_fifo_size(fifo_) > 0)) {
    const int n = std::min(frameSize, av_audio_fifo_size(fifo_));
    av_frame_unref(out_.get());
    out_->nb_samples = n;
    out_->format = enc_->sample_fmt;
    out_->sample_rate = enc_->sample_rate;
    av_channel_layout_copy(&out_->ch_layout, &enc_->ch_layout);
    if (av_frame_get_buffer(out_.get(), 0) < 0) outOfMemory("audio re-encoding");
    av_audio_fifo_read(fifo_, reinterpret_cast<void**>(out_->data), n);
    out_->pts = nextPts_ == AV_NOPTS_VALUE ? 0 : nextPts_;
    nextPts_ = out_->pts + n;
    const int err = avcodec_send_frame(enc_.get(), out_.get());
    if (err < 0) throw MediaError(shown_ + ": audio encoding failed: " + avError(err));
    drain(out);
  }
}

void AudioTranscoder::drain(const Sink& out) {
  for (;;) {
    const int err = avcodec_receive_packet(enc_.get(), pkt_.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return;
    if (err < 0) throw MediaError(shown_ + ": audio encoding failed: " + avError(err));
    out(pkt_.get());
    av_packet_unref(pkt_.get());
  }
}

void AudioTranscoder::flush(const Sink& out) {
  process(nullptr, out);
  encodeFromFifo(true, out);
  avcodec_send_frame(enc_.get(), nullptr);
  drain(out);
}

}  // namespace vf::media
