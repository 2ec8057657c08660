#include "app/media/side_streams.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "app/options.hpp"

namespace vf::media {

namespace {

// The codec's name; for a stream FFmpeg has no codec for (a QuickTime timecode track), its tag.
std::string codecOf(const AVStream* st) {
  const AVCodecParameters* p = st->codecpar;
  if (p->codec_id != AV_CODEC_ID_NONE || p->codec_tag == 0) return avcodec_get_name(p->codec_id);
  char tag[AV_FOURCC_MAX_STRING_SIZE] = {};
  return av_fourcc_make_string(tag, p->codec_tag);
}

std::string describe(const AVStream* st) {
  const char* type = av_get_media_type_string(st->codecpar->codec_type);
  std::string s = std::string(type ? type : "data") + " stream #" + std::to_string(st->index) +
                  " (" + codecOf(st);
  if (const AVDictionaryEntry* lang = av_dict_get(st->metadata, "language", nullptr, 0))
    s += std::string(", ") + lang->value;
  return s + ")";
}

// 1: the container takes the codec; 0: it does not; below 0: it cannot say (try). A
// container that names no codec of its own for a kind of stream takes none of that kind (as
// ffmpeg's stream selection has it): y4m and raw video hold the video alone, and their muxers
// fail on any other stream.
int takes(const AVOutputFormat* f, AVCodecID id, AVMediaType type) {
  // MPEG-TS answers no query: what its muxer writes as a stream a player reads (anything else
  // becomes private data no decoder opens).
  if (std::strcmp(f->name, "mpegts") == 0 && type == AVMEDIA_TYPE_AUDIO) {
    for (const AVCodecID a :
         {AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM, AV_CODEC_ID_AC3,
          AV_CODEC_ID_EAC3, AV_CODEC_ID_DTS, AV_CODEC_ID_TRUEHD, AV_CODEC_ID_OPUS})
      if (id == a) return 1;
    return 0;
  }
  if (std::strcmp(f->name, "mpegts") == 0 && type == AVMEDIA_TYPE_SUBTITLE)
    return id == AV_CODEC_ID_DVB_SUBTITLE || id == AV_CODEC_ID_DVB_TELETEXT ? 1 : 0;
  // What FFmpeg 5.1's QuickTime muxers refuse at their header though the query says yes: FLAC
  // in .mp4 (experimental there), FLAC and Opus in .mov.
  const bool mp4 = std::strcmp(f->name, "mp4") == 0, mov = std::strcmp(f->name, "mov") == 0;
  if ((mp4 || mov) && id == AV_CODEC_ID_FLAC) return 0;
  if (mov && id == AV_CODEC_ID_OPUS) return 0;
  const int ok = queryMuxerCodec(f, id);
  if (ok >= 0) return ok;
  const bool videoOnly = f->audio_codec == AV_CODEC_ID_NONE &&
                         f->subtitle_codec == AV_CODEC_ID_NONE && f->data_codec == AV_CODEC_ID_NONE;
  if (type == AVMEDIA_TYPE_AUDIO) return f->audio_codec == AV_CODEC_ID_NONE ? 0 : ok;
  if (type == AVMEDIA_TYPE_SUBTITLE) return f->subtitle_codec == AV_CODEC_ID_NONE ? 0 : ok;
  return videoOnly ? 0 : ok;
}

// Whether the muxer starts with the stream copied as it is: some refuse at their start what
// avformat_query_codec said they take (Opus or FLAC in QuickTime .mov, FLAC in .mp4 without
// -strict), or check their codecs only when they write their header (MPEG program streams,
// .mpg and .vob, refuse AAC there). Asked of a muxer of the same format that writes its header
// to memory (seekable, as a file is) and is then dropped.
bool startsWith(const AVOutputFormat* f, const AVStream* in) {
  AVFormatContext* c = nullptr;
  if (avformat_alloc_output_context2(&c, f, nullptr, nullptr) < 0 || !c)
    outOfMemory("the output container");
  std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> owned(c, [](AVFormatContext* x) {
    if (x->pb) {
      std::uint8_t* buf = nullptr;
      avio_close_dyn_buf(x->pb, &buf);
      av_free(buf);
    }
    avformat_free_context(x);
  });
  if (!(f->flags & AVFMT_NOFILE)) {
    if (avio_open_dyn_buf(&c->pb) < 0) outOfMemory("the output container");
    c->pb->seekable = AVIO_SEEKABLE_NORMAL;
  }
  AVStream* st = avformat_new_stream(c, nullptr);
  if (!st || avcodec_parameters_copy(st->codecpar, in->codecpar) < 0)
    outOfMemory("the output container");
  st->codecpar->codec_tag = 0;
  st->time_base = in->time_base;
  return avformat_write_header(c, nullptr) >= 0;
}

// The audio encoders of this FFmpeg whose codec the container takes, for a message.
std::string audioEncodersOf(const AVOutputFormat* f) {
  std::vector<std::string> names;
  void* it = nullptr;
  while (const AVCodec* c = av_codec_iterate(&it))
    if (av_codec_is_encoder(c) && c->type == AVMEDIA_TYPE_AUDIO &&
        !(c->capabilities & AV_CODEC_CAP_EXPERIMENTAL) && takes(f, c->id, AVMEDIA_TYPE_AUDIO) == 1)
      names.emplace_back(c->name);
  if (names.empty()) return "it holds no audio (-an leaves the audio out)";
  std::string s = "it takes -c:a ";
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

// The one audio stream of the input a container of one audio stream (FLV, and RTMP through it;
// SWF) takes: the input's default audio track, else its first; -1 where the container holds
// any number.
int soleAudio(const AVFormatContext* in, const AVOutputFormat* f) {
  if (std::strcmp(f->name, "flv") != 0 && std::strcmp(f->name, "swf") != 0) return -1;
  int first = -1;
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVStream* st = in->streams[i];
    if (st->codecpar->codec_type != AVMEDIA_TYPE_AUDIO || st->discard == AVDISCARD_ALL) continue;
    if (st->disposition & AV_DISPOSITION_DEFAULT) return static_cast<int>(i);
    if (first < 0) first = static_cast<int>(i);
  }
  return first;
}

// The one audio sample rate a container holds (MXF's and GXF's PCM is 48 kHz), 0 for any.
int containerRate(const AVOutputFormat* f) {
  const std::string name = f->name;
  return name.rfind("mxf", 0) == 0 || name == "gxf" ? 48000 : 0;
}

// `reencoded`, `cut`: the stream's tags that describe the input's stream are left out
// (copyStreamTags).
AVStream* newStream(AVFormatContext* out, const AVStream* in, bool reencoded, bool cut) {
  AVStream* st = avformat_new_stream(out, nullptr);
  if (!st) outOfMemory("the output container");
  copyStreamTags(&st->metadata, in->metadata, reencoded, cut);
  st->disposition = in->disposition;
  return st;
}

}  // namespace

SideStreams::SideStreams(const AVFormatContext* in, int videoIndex, AVFormatContext* out,
                         const OutputSpec& spec, AudioWindow window)
    : window_(window), limited_(spec.maxFrames >= 0), out_(out) {
  if (!in) return;
  const int audio = spec.audio ? soleAudio(in, out->oformat) : -1;
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVStream* st = in->streams[i];
    if (static_cast<int>(i) != videoIndex && st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
      spdlog::warn("{}: {} dropped: the output holds one video stream, the chain's (#{}){}",
                   spec.path, describe(st), videoIndex,
                   st->disposition & AV_DISPOSITION_ATTACHED_PIC ? " (a cover image)" : "");
    if (audio >= 0 && static_cast<int>(i) != audio &&
        st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO && st->discard != AVDISCARD_ALL) {
      spdlog::warn(
          "{}: {} dropped: the {} container holds one audio stream, the input's default or first "
          "({})",
          spec.path, describe(st), out->oformat->name, describe(in->streams[audio]));
      continue;
    }
    if (static_cast<int>(i) != videoIndex && st->discard != AVDISCARD_ALL)
      plan(in, static_cast<int>(i), videoIndex >= 0 ? in->streams[videoIndex] : nullptr, out, spec);
  }
  for (const std::string& n : notes_) spdlog::info("{}: {}", spec.path, n);
}

SideStreams::~SideStreams() = default;

void SideStreams::plan(const AVFormatContext* in, int index, const AVStream* video,
                       AVFormatContext* out, const OutputSpec& spec) {
  const AVStream* ist = in->streams[index];
  const AVMediaType type = ist->codecpar->codec_type;
  const std::string what = describe(ist);
  if (type == AVMEDIA_TYPE_AUDIO && !spec.audio) {
    notes_.push_back(what + " left out (-an)");
    return;
  }
  // A QuickTime timecode track's timecode is also the video stream's tag, which the output's
  // video stream takes: .mov and .mp4 write a timecode track of it, Matroska the tag; other
  // containers hold no timecode (a copied tmcd track would be unreadable data).
  if (type == AVMEDIA_TYPE_DATA && codecOf(ist) == "tmcd") {
    const AVDictionaryEntry* tc =
        video ? av_dict_get(video->metadata, "timecode", nullptr, 0) : nullptr;
    const std::string name = out->oformat->name;
    if (tc && (name == "mov" || name == "mp4" || name == "ipod" || name == "matroska")) {
      notes_.push_back(what + " kept as the video's timecode " + tc->value);
    } else {
      spdlog::warn("{}: {} dropped: the {} container holds no timecode (.mov, .mp4 and .mkv do)",
                   spec.path, what, name);
    }
    return;
  }
  const bool copy = spec.audioCodec.empty() || spec.audioCodec == "copy";
  const bool matroska = std::strcmp(out->oformat->name, "matroska") == 0;
  // Attachments (an ASS subtitle's fonts) are files, not a codec: Matroska holds any of them.
  const int ok = type == AVMEDIA_TYPE_ATTACHMENT
                     ? matroska
                     : takes(out->oformat, ist->codecpar->codec_id, type) != 0 &&
                           startsWith(out->oformat, ist);
  if (type != AVMEDIA_TYPE_AUDIO || copy) {
    if (ok != 0) {
      AVStream* ost = newStream(out, ist, false, cut());
      avcodec_parameters_copy(ost->codecpar, ist->codecpar);
      ost->codecpar->codec_tag = 0;
      ost->time_base = ist->time_base;
      routes_.push_back({index, ost->index, ist->time_base, nullptr, nullptr});
      notes_.push_back(what + " copied");
      return;
    }
    if (type == AVMEDIA_TYPE_SUBTITLE && convertSubtitles(ist, index, what, out, spec)) return;
    if (type != AVMEDIA_TYPE_AUDIO || spec.audioCodec == "copy") {
      spdlog::warn("{}: {} dropped: the {} container cannot hold {}{}", spec.path, what,
                   out->oformat->name, codecOf(ist),
                   type == AVMEDIA_TYPE_AUDIO ? " as it is (leave out -c:a copy to re-encode it)"
                   : matroska                 ? ""
                                              : " (.mkv holds almost anything)");
      return;
    }
  }
  // Audio re-encoded: with -c:a NAME, else the container's own audio codec.
  const AVCodec* enc = nullptr;
  if (!copy) {
    enc = avcodec_find_encoder_by_name(spec.audioCodec.c_str());
    if (!enc) {  // a codec's name, as ffmpeg takes it: mp3 is libmp3lame's
      const AVCodecDescriptor* d = avcodec_descriptor_get_by_name(spec.audioCodec.c_str());
      enc = d ? avcodec_find_encoder(d->id) : nullptr;
    }
    if (!enc || enc->type != AVMEDIA_TYPE_AUDIO)
      throw app::UsageError("-c:a " + spec.audioCodec +
                            ": no such audio encoder in this FFmpeg (aac, libopus, libmp3lame, "
                            "flac, ...; or copy)");
  } else if (out->oformat->audio_codec != AV_CODEC_ID_NONE) {
    enc = avcodec_find_encoder(out->oformat->audio_codec);
  }
  if (enc && !copy && takes(out->oformat, enc->id, type) == 0)
    throw app::UsageError("-c:a " + spec.audioCodec + ": the " + out->oformat->name +
                          " container cannot hold " + avcodec_get_name(enc->id) + "; " +
                          audioEncodersOf(out->oformat));
  if (enc && !copy && (enc->capabilities & AV_CODEC_CAP_EXPERIMENTAL)) {
    std::string other;  // an encoder of the same codec that is not
    void* it = nullptr;
    while (const AVCodec* c = av_codec_iterate(&it))
      if (other.empty() && av_codec_is_encoder(c) && c->id == enc->id &&
          !(c->capabilities & AV_CODEC_CAP_EXPERIMENTAL))
        other = c->name;
    throw app::UsageError("-c:a " + spec.audioCodec + ": FFmpeg's " + enc->name +
                          " encoder is experimental; " +
                          (other.empty() ? "choose another codec" : "use -c:a " + other));
  }
  if (!enc || takes(out->oformat, enc->id, type) == 0) {
    spdlog::warn("{}: {} dropped: the {} container takes {}", spec.path, what, out->oformat->name,
                 out->oformat->audio_codec == AV_CODEC_ID_NONE ? "no audio (the video alone)"
                                                               : "no audio this FFmpeg can encode");
    return;
  }
  const int rate = containerRate(out->oformat);
  auto t = std::make_unique<AudioTranscoder>(
      ist, enc, (out->oformat->flags & AVFMT_GLOBALHEADER) != 0, spec.path, window_, rate);
  AVStream* ost = newStream(out, ist, true, cut());
  avcodec_parameters_from_context(ost->codecpar, t->encoder());
  ost->time_base = t->timeBase();
  const bool resampled = rate > 0 && ist->codecpar->sample_rate != rate;
  notes_.push_back(what + " re-encoded as " + codecName(enc) +
                   (resampled ? " at " + std::to_string(rate) + " Hz (the " + out->oformat->name +
                                    " container's only rate)"
                              : ""));
  routes_.push_back({index, ost->index, ist->time_base, std::move(t), nullptr});
}

bool SideStreams::convertSubtitles(const AVStream* ist, int index, const std::string& what,
                                   AVFormatContext* out, const OutputSpec& spec) {
  // The container's own text format; where it names none (mp4 and mov in FFmpeg 5.1), the first
  // text format it takes.
  const AVCodec* enc = nullptr;
  for (const AVCodecID id : {out->oformat->subtitle_codec, AV_CODEC_ID_MOV_TEXT, AV_CODEC_ID_ASS,
                             AV_CODEC_ID_WEBVTT, AV_CODEC_ID_SUBRIP}) {
    const AVCodec* c = id == AV_CODEC_ID_NONE ? nullptr : avcodec_find_encoder(id);
    if (c && takes(out->oformat, id, AVMEDIA_TYPE_SUBTITLE) == 1) {
      enc = c;
      break;
    }
  }
  if (!SubtitleTranscoder::converts(ist, enc)) return false;
  auto t = std::make_unique<SubtitleTranscoder>(
      ist, enc, (out->oformat->flags & AVFMT_GLOBALHEADER) != 0, spec.path);
  AVStream* ost = newStream(out, ist, true, cut());
  avcodec_parameters_from_context(ost->codecpar, t->encoder());
  ost->time_base = t->timeBase();
  notes_.push_back(what + " converted to " + codecName(enc));
  routes_.push_back({index, ost->index, ist->time_base, nullptr, std::move(t)});
  return true;
}

std::vector<int> SideStreams::inputs() const {
  std::vector<int> v;
  for (const Route& r : routes_) v.push_back(r.input);
  return v;
}

SideStreams::Route* SideStreams::route(int input) {
  for (Route& r : routes_)
    if (r.input == input) return &r;
  return nullptr;
}

bool SideStreams::before(const AVPacket* p, std::int64_t endUs) const {
  for (const Route& r : routes_)
    if (r.input == p->stream_index)
      return p->pts == AV_NOPTS_VALUE || av_rescale_q(p->pts, r.inTb, AV_TIME_BASE_Q) < endUs;
  return true;
}

void SideStreams::handle(AVPacket* p, std::int64_t endUs, const Write& write) {
  Route* r = route(p->stream_index);
  if (!r || !before(p, endUs)) return;
  const AVStream* ost = out_->streams[r->output];
  // A re-encoded packet: from the encoder's time base to the output stream's.
  const int index = r->output;
  const auto encoded = [&](AVRational tb) {
    return [&, tb](AVPacket* q) {
      q->stream_index = index;
      av_packet_rescale_ts(q, tb, ost->time_base);
      write(q);
    };
  };
  if (r->subtitles) return r->subtitles->process(p, encoded(r->subtitles->timeBase()));
  if (r->transcoder) return r->transcoder->process(p, encoded(r->transcoder->timeBase()));
  p->stream_index = r->output;
  av_packet_rescale_ts(p, r->inTb, ost->time_base);
  p->pos = -1;
  keepMonotonic(*r, p);
  write(p);
}

void SideStreams::keepMonotonic(Route& r, AVPacket* p) const {
  // Copied timestamps that step back (streams overlapping where files were joined, a
  // discontinuity mended by the other stream's jump) are moved up to the last one, as ffmpeg
  // does: a muxer refuses them, which ended the whole run.
  if (p->dts == AV_NOPTS_VALUE) return;
  if (r.lastDts != AV_NOPTS_VALUE) {
    const std::int64_t min = r.lastDts + !(out_->oformat->flags & AVFMT_TS_NONSTRICT);
    if (p->dts < min) {
      spdlog::debug("stream #{}: timestamp {} after {}; moved to {}", r.input, p->dts, r.lastDts,
                    min);
      if (p->pts != AV_NOPTS_VALUE && p->pts >= p->dts) p->pts = std::max(p->pts, min);
      p->dts = min;
    }
  }
  r.lastDts = p->dts;
}

void SideStreams::flush(const Write& write) {
  for (Route& r : routes_) {
    if (!r.transcoder) continue;
    const AVStream* ost = out_->streams[r.output];
    const AVRational tb = r.transcoder->timeBase();
    r.transcoder->flush([&](AVPacket* q) {
      q->stream_index = r.output;
      av_packet_rescale_ts(q, tb, ost->time_base);
      write(q);
    });
  }
}

std::string SideStreams::summary() const {
  std::string s;
  for (const std::string& n : notes_) s += (s.empty() ? "" : "; ") + n;
  return s;
}

}  // namespace vf::media
