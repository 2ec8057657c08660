#include "app/bench/job_parts.hpp"

#include <chrono>
#include <cstring>

#include "app/media/media_source.hpp"
#include "app/media/video_sink.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/engine.hpp"

namespace vf::bench {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

app::InputOptions inputOptions(const JobSetup& s, const std::string& hwdec) {
  app::InputOptions o;
  o.hwdec = hwdec;
  o.grayLuma = chainStartsWithGray(s.chain);
  o.convertThreads = s.convertThreads;
  return o;
}

std::unique_ptr<media::MediaSource> openInput(const JobSetup& s, const std::string& hwdec) {
  app::SourceSpec spec;
  spec.kind = app::SourceKind::File;
  spec.text = s.input;
  return std::make_unique<media::MediaSource>(spec, inputOptions(s, hwdec));
}

media::OutputSpec outputSpec(const JobSetup& s, const std::string& path) {
  media::OutputRequest r;
  r.path = path;
  r.encoder = s.encoder;
  r.audio = false;  // the video job alone (the ffmpeg peer runs with -an too)
  return media::classifyOutput(r);
}

// Resident frames into the engine's slots, stamped at the input's rate.
class ResidentSource : public FrameSource {
 public:
  ResidentSource(const ResidentFrames& f, int count) : f_(f), count_(count) {}
  bool live() const override { return false; }
  std::int64_t frameCount() const override { return count_; }
  double fps() const override { return f_.fps; }
  bool next(const SlotFn& slot, FrameTime& time) override {
    if (i_ >= count_) return false;
    const FrameView v = slot(f_.desc);
    const auto& src = f_.frames[static_cast<std::size_t>(i_) % f_.frames.size()];
    for (int y = 0; y < v.height; ++y)
      std::memcpy(v.row(y), src.data() + std::size_t(y) * f_.desc.rowBytes(), f_.desc.rowBytes());
    time.pts = i_++;
    time.num = 1000;
    time.den = static_cast<int>(f_.fps * 1000 + 0.5);
    time.duration = 1;
    return true;
  }

 private:
  const ResidentFrames& f_;
  int count_, i_ = 0;
};

// Keeps the first frames the engine delivers (the chain's output), for encode-only.
class KeepingSink : public FrameSink {
 public:
  KeepingSink(ResidentFrames* out, std::size_t keep) : out_(out), keep_(keep) {}
  void consume(const FrameResult& r) override {
    if (!out_ || out_->frames.size() >= keep_) return;
    out_->desc = r.output.desc();
    std::vector<std::uint8_t> bytes(out_->desc.bytes());
    for (int y = 0; y < r.output.height; ++y)
      std::memcpy(bytes.data() + std::size_t(y) * out_->desc.rowBytes(), r.output.row(y),
                  out_->desc.rowBytes());
    out_->frames.push_back(std::move(bytes));
  }

 private:
  ResidentFrames* out_;
  std::size_t keep_;
};

}  // namespace

bool chainStartsWithGray(const std::string& chain) {
  return chain == "gray" || chain.rfind("gray,", 0) == 0;
}

namespace {

// Hardware decoding was asked for and software decodes.
bool fellBack(const std::string& hwdec, const media::MediaSource& src) {
  return hwdec != "none" && src.hwDevice().empty();
}

// " (cuvid)" when the source decodes on the hardware asked for, " (cuvid unavailable:
// software)" when it fell back, "" for software asked for.
std::string hwLabel(const std::string& hwdec, bool fellBack) {
  if (hwdec == "none") return "";
  return fellBack ? " (" + hwdec + " unavailable: software)" : " (" + hwdec + ")";
}

}  // namespace

PartResult decodeOnly(const JobSetup& s, const std::string& hwdec, ResidentFrames* keep) {
  auto src = openInput(s, hwdec);
  const FrameDesc d = src->firstFrameDesc();
  std::vector<std::uint8_t> host(d.bytes());
  FrameDesc current = d;
  auto slot = [&](const FrameDesc& want) {
    current = want;
    host.resize(want.bytes());
    return FrameView{host.data(), want.width, want.height, want.rowBytes(), want.format};
  };
  if (keep) {
    keep->desc = d;
    keep->fps = src->fps() > 0 ? src->fps() : 25;
  }
  const bool software = fellBack(hwdec, *src);
  std::string name = "decode only" + hwLabel(hwdec, software);
  if (!chainStartsWithGray(s.chain))  // gray takes the luma plane: no conversion
    name += s.convertThreads == 1
                ? ", conversion on 1 thread"
                : ", conversion on " + std::to_string(s.convertThreads) + " threads";
  PartResult r{name};
  r.hwFellBack = software;
  const auto t0 = Clock::now();
  FrameTime t;
  while (r.frames < s.frames && src->next(slot, t)) {
    ++r.frames;
    if (keep && current == keep->desc && keep->frames.size() < std::size_t(s.resident))
      keep->frames.push_back(host);
  }
  r.seconds = since(t0);
  return r;
}

PartResult chainOnly(const JobSetup& s, std::shared_ptr<ClContext> cl, const ResidentFrames& in,
                     ResidentFrames* out) {
  EngineOptions eo;
  eo.slots = s.slots;
  eo.timingEvery = 8;
  // Configured (kernels built) before the clock starts, as in the program.
  Chain chain = Chain::parse(s.chain);
  chain.configure(*cl, in.desc);
  Engine engine(std::move(cl), std::move(chain), eo);
  const int n = s.frames;
  ResidentSource src(in, n);
  KeepingSink sink(out, static_cast<std::size_t>(s.resident));
  if (out) out->fps = in.fps;
  PartResult r{"chain only (resident frames)", n};
  const auto t0 = Clock::now();
  engine.run(src, sink);
  r.seconds = since(t0);
  r.frames = static_cast<int>(engine.stats().framesOut);
  return r;
}

PartResult encodeOnly(const JobSetup& s, const ResidentFrames& filtered, const std::string& path) {
  media::OutputTiming timing;
  timing.fps = filtered.fps;
  timing.timeBase = {1000, static_cast<int>(filtered.fps * 1000 + 0.5)};
  PartResult r{"encode only (resident filtered frames)"};
  {
    media::VideoSink sink(outputSpec(s, path), filtered.desc, timing, nullptr);
    const auto t0 = Clock::now();  // the encoder has started
    for (int i = 0; i < s.frames; ++i) {
      FrameResult f;
      auto& bytes = const_cast<std::vector<std::uint8_t>&>(
          filtered.frames[static_cast<std::size_t>(i) % filtered.frames.size()]);
      f.output = {bytes.data(), filtered.desc.width, filtered.desc.height, filtered.desc.rowBytes(),
                  filtered.desc.format};
      f.time.pts = i;
      f.time.num = timing.timeBase.num;
      f.time.den = timing.timeBase.den;
      sink.consume(f);
      ++r.frames;
    }
    sink.finish();
    r.seconds = since(t0);
  }
  return r;
}

PartResult wholeJob(const JobSetup& s, std::shared_ptr<ClContext> cl, const std::string& hwdec,
                    const std::string& path) {
  auto src = openInput(s, hwdec);
  const bool software = fellBack(hwdec, *src);
  PartResult r{"whole job" + hwLabel(hwdec, software)};
  r.hwFellBack = software;
  Chain chain = Chain::parse(s.chain);
  chain.configure(*cl, src->firstFrameDesc());
  const FrameDesc out = chain.output();
  media::OutputTiming timing;
  timing.fps = src->fps();
  timing.timeBase = src->format()->streams[src->videoStream()]->time_base;
  media::VideoSink sink(outputSpec(s, path), out, timing, src.get());
  EngineOptions eo;
  eo.slots = s.slots;
  eo.timingEvery = 8;
  eo.maxFrames = s.frames;
  Engine engine(std::move(cl), std::move(chain), eo);
  const auto t0 = Clock::now();  // everything is open and the kernels are built
  engine.run(*src, sink);
  r.seconds = since(t0);
  r.frames = static_cast<int>(engine.stats().framesOut);
  return r;
}

}  // namespace vf::bench
