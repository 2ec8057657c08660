// vidfilter-scale-bench: host-to-host throughput of the engine on one and several devices.
// Frames are made in memory (no decoding, no encoding): each engine's source writes random
// frames into its pinned slots, the sink discards the results, so the figure is what the
// devices and the transfers sustain. For each frame size it runs, on the same devices:
//   1 device,  1 input                 the engine alone
//   1 device,  N inputs                N engines interleaving on one device
//   D devices, 1 input (split)         each device takes the next frame, output in order
//   D devices, D inputs                one engine per device
// Usage: vidfilter-scale-bench [--device all] [--chain gray,blur,sobel,hist,brightness]
//        [--size 1920x1080,3840x2160] [--frames 3000] [--inputs 2] [--slots 4]
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>

#include "app/device_set.hpp"
#include "app/frame_split.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/pocl_cache.hpp"
#include "pipeline/engine.hpp"

namespace {

using namespace vf;
using Clock = std::chrono::steady_clock;

// Random frames, each slot filled once (the pixels do not change the work), `total` in all.
class MemorySource : public FrameSource {
 public:
  MemorySource(FrameDesc desc, std::int64_t total) : desc_(desc), total_(total) {}
  bool live() const override { return false; }
  std::int64_t frameCount() const override { return total_; }
  bool next(const SlotFn& slot, FrameTime&) override {
    if (produced_ >= total_) return false;
    const FrameView v = slot(desc_);
    if (filled_.insert(v.data).second) {
      std::uint32_t x = 2463534242u + static_cast<std::uint32_t>(filled_.size());
      for (std::size_t i = 0; i < desc_.bytes(); ++i) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        v.data[i] = static_cast<std::uint8_t>(x);
      }
    }
    ++produced_;
    return true;
  }

 private:
  FrameDesc desc_;
  std::int64_t total_, produced_ = 0;
  std::set<std::uint8_t*> filled_;
};

class NullSink : public FrameSink {
 public:
  void consume(const FrameResult&) override {}
};

struct Setup {
  std::string chain;
  int slots = 4;
  std::int64_t frames = 3000;
};

std::unique_ptr<Engine> makeEngine(const std::shared_ptr<ClContext>& ctx, const Setup& su,
                                   const FrameDesc& d) {
  Chain c = Chain::parse(su.chain);
  c.configure(*ctx, d);
  EngineOptions eo;
  eo.slots = su.slots;
  eo.timingEvery = 64;
  return std::make_unique<Engine>(ctx, std::move(c), eo);
}

// `engines[i]` runs `sources[i]` into `sinks[i]`, all at once; frames per second over all.
double runAll(std::vector<std::unique_ptr<Engine>>& engines, std::vector<FrameSource*> sources,
              std::vector<FrameSink*> sinks, std::int64_t frames) {
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < engines.size(); ++i)
    threads.emplace_back([&, i] { engines[i]->run(*sources[i], *sinks[i]); });
  for (auto& t : threads) t.join();
  return double(frames) / std::chrono::duration<double>(Clock::now() - t0).count();
}

// N engines on the devices given (engine i on devices[i % size]), each its own input.
double inputs(const std::vector<std::shared_ptr<ClContext>>& devices, int n, const Setup& su,
              const FrameDesc& d) {
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<std::unique_ptr<MemorySource>> owned;
  std::vector<FrameSource*> sources;
  std::vector<FrameSink*> sinks;
  NullSink sink;
  for (int i = 0; i < n; ++i) {
    engines.push_back(makeEngine(devices[i % devices.size()], su, d));
    owned.push_back(std::make_unique<MemorySource>(d, su.frames / n));
    sources.push_back(owned.back().get());
    sinks.push_back(&sink);
  }
  return runAll(engines, sources, sinks, su.frames / n * n);
}

// One input over every device, in order.
double split(const std::vector<std::shared_ptr<ClContext>>& devices, const Setup& su,
             const FrameDesc& d) {
  MemorySource source(d, su.frames);
  NullSink out;
  app::FrameSplit fs(source, out, static_cast<int>(devices.size()), -1, false);
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<FrameSource*> sources;
  std::vector<FrameSink*> sinks;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    engines.push_back(makeEngine(devices[i], su, d));
    sources.push_back(&fs.source(static_cast<int>(i)));
    sinks.push_back(&fs.sink(static_cast<int>(i)));
  }
  return runAll(engines, sources, sinks, su.frames);
}

}  // namespace

int main(int argc, char** argv) {
  vf::ignoreEmptyPoclCacheDir();
  CLI::App app{"vidfilter-scale-bench: host-to-host fps on one and several devices"};
  std::string device = "all", sizes = "1920x1080,3840x2160";
  Setup su;
  su.chain = "gray,blur,sobel,hist,brightness";
  int n = 2;
  app.add_option("--device", device, "devices: all, a list (0:0,0:1) or a selector");
  app.add_option("--chain", su.chain, "the chain");
  app.add_option("--size", sizes, "frame sizes, comma-separated (BGR frames)");
  app.add_option("--frames", su.frames, "frames per measurement")->check(CLI::Range(10, 10000000));
  app.add_option("--inputs", n, "inputs on one device (the interleaving row)")
      ->check(CLI::Range(1, 64));
  app.add_option("--slots", su.slots, "slots per engine")->check(CLI::Range(1, 8));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  try {
    const auto devices = app::openDevices(device);
    std::printf("chain %s, %lld frames a row, %d slots an engine; devices:\n", su.chain.c_str(),
                static_cast<long long>(su.frames), su.slots);
    for (const auto& d : devices)
      std::printf("  %s %s\n", d->info().index().c_str(), d->info().name.c_str());
    const int dn = static_cast<int>(devices.size());
    std::printf("%-10s %12s %12s %14s %14s\n", "size", "1 dev 1 in",
                ("1 dev " + std::to_string(n) + " in").c_str(),
                (std::to_string(dn) + " dev split").c_str(),
                (std::to_string(dn) + " dev " + std::to_string(dn) + " in").c_str());
    std::size_t a = 0;
    while (a < sizes.size()) {
      const std::size_t b = std::min(sizes.find(',', a), sizes.size());
      const std::string sz = sizes.substr(a, b - a);
      a = b + 1;
      int w = 0, h = 0;
      if (std::sscanf(sz.c_str(), "%dx%d", &w, &h) != 2 || w < 16 || h < 16) {
        std::fprintf(stderr, "vidfilter-scale-bench: --size %s is not WxH\n", sz.c_str());
        return 2;
      }
      const FrameDesc d{w, h, PixelFormat::BGR8};
      const std::vector<std::shared_ptr<ClContext>> first = {devices.front()};
      inputs(first, 1, Setup{su.chain, su.slots, std::min<std::int64_t>(su.frames, 100)},
             d);  // warm-up
      const double one = inputs(first, 1, su, d);
      const double interleaved = inputs(first, n, su, d);
      const double sp = split(devices, su, d);
      const double spread = inputs(devices, dn, su, d);
      std::printf("%-10s %12.0f %12.0f %14.0f %14.0f   fps\n", sz.c_str(), one, interleaved, sp,
                  spread);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vidfilter-scale-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
