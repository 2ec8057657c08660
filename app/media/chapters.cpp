#include "app/media/chapters.hpp"

#include <algorithm>

namespace vf::media {

namespace {

void freeChapter(AVChapter* c) {
  av_dict_free(&c->metadata);
  av_free(c);
}

}  // namespace

OutputChapters::~OutputChapters() {
  for (unsigned i = 0; i < count_; ++i) freeChapter(held_[i]);
  av_freep(static_cast<void*>(&held_));
}

void OutputChapters::copy(AVFormatContext* out, const AVFormatContext* in, std::int64_t offsetUs,
                          std::int64_t endUs) {
  for (unsigned i = 0; i < in->nb_chapters; ++i) {
    const AVChapter* c = in->chapters[i];
    const std::int64_t off = av_rescale_q(offsetUs, AV_TIME_BASE_Q, c->time_base);
    const std::int64_t end =
        endUs == INT64_MAX ? INT64_MAX : av_rescale_q(endUs, AV_TIME_BASE_Q, c->time_base);
    if (c->end <= off || c->start >= end) continue;
    auto* o = static_cast<AVChapter*>(av_mallocz(sizeof(AVChapter)));
    if (!o) outOfMemory("the output container");
    o->id = c->id;
    o->time_base = c->time_base;
    o->start = std::max<std::int64_t>(0, c->start - off);
    o->end = std::min(c->end, end) - off;
    av_dict_copy(&o->metadata, c->metadata, 0);
    if (av_dynarray_add_nofree(&out->chapters, reinterpret_cast<int*>(&out->nb_chapters), o) < 0) {
      freeChapter(o);
      outOfMemory("the output container");
    }
  }
}

void OutputChapters::holdBack(AVFormatContext* out) {
  held_ = out->chapters;
  count_ = out->nb_chapters;
  out->chapters = nullptr;
  out->nb_chapters = 0;
}

void OutputChapters::settle(AVFormatContext* out, std::int64_t endUs) {
  if (held_) {
    av_freep(static_cast<void*>(&out->chapters));
    out->chapters = held_;
    out->nb_chapters = count_;
    held_ = nullptr;
    count_ = 0;
  }
  unsigned kept = 0;
  for (unsigned i = 0; i < out->nb_chapters; ++i) {
    AVChapter* c = out->chapters[i];
    const std::int64_t end = av_rescale_q(endUs, AV_TIME_BASE_Q, c->time_base);
    if (c->start >= end) {
      freeChapter(c);
      continue;
    }
    c->end = std::min(c->end, end);
    out->chapters[kept++] = c;
  }
  out->nb_chapters = kept;
}

}  // namespace vf::media
