#include "app/bench/size_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include <charconv>
#include <sstream>

#include "app/bench/timing.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/cl/event_timing.hpp"
#include "pipeline/percentile.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/text_file.hpp"

namespace vf::bench {
namespace {

struct Row {
  std::string chain, format, schedule, error;
  int w = 0, h = 0;
  int pitch = 0;  // the device's row pitch, in pixels
  double ms = 0, copyMs = 0;
  // Per frame with the frames enqueued back to back (no wait between them).
  double streamMs = 0;
};

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return median(v);
}

PixelFormat formatOf(const std::string& f) {
  if (f == "gray") return PixelFormat::Gray8;
  if (f == "bgr") return PixelFormat::BGR8;
  if (f == "bgra") return PixelFormat::BGRA8;
  throw UserError("--formats takes gray, bgr and bgra, got '" + f + "'");
}

void sizeOf(const std::string& s, int* w, int* h) {
  if (!parseSize(s, w, h))
    throw UserError("--sizes takes WxH sizes (e.g. 1920x1080), got '" + s + "'");
}

// Device time (median, ms) of `chain` on w x h frames and of a device-to-device copy of one.
Row timeRow(ClContext& cl, const std::string& chainText, int w, int h, const std::string& format,
            const TableOptions& o) {
  Row r{chainText, format, "", "", w, h};
  const FrameDesc desc{w, h, formatOf(format)};
  Chain chain = Chain::parse(chainText);
  if (o.packedRows) chain.setRowPitch(Chain::RowPitch::Packed);
  chain.configure(cl, desc);
  r.pitch = chain.pitchPixels();
  for (std::size_t i = 0; i < chain.size(); ++i)
    r.schedule += (i ? "; " : "") + chain.stage(i).schedule();
  cl::CommandQueue q = cl.makeQueue();
  // Uniform random bytes (xorshift64*, 8 bytes a step: an 8K frame in milliseconds).
  std::uint64_t state = 0x5eedULL;
  std::vector<std::uint8_t> host(desc.bytes());
  std::vector<cl::Buffer> in;
  for (int k = 0; k < o.distinct; ++k) {
    for (std::size_t i = 0; i < host.size(); i += 8) {
      state ^= state >> 12;
      state ^= state << 25;
      state ^= state >> 27;
      const std::uint64_t v = state * 0x2545F4914F6CDD1DULL;
      std::memcpy(host.data() + i, &v, std::min<std::size_t>(8, host.size() - i));
    }
    in.push_back(chain.inputBuffer(cl, q, host.data()));
  }
  const cl::Buffer out = chain.outputBuffer(cl);
  std::vector<double> copy, span;
  for (int k = 0; k < o.warmup + o.frames; ++k) {
    cl::Event e;
    clCall("clEnqueueCopyBuffer(table)", [&] {
      q.enqueueCopyBuffer(in[k % in.size()], out, 0, 0,
                          std::min(desc.bytes(), chain.output().bytes()), nullptr, &e);
      e.wait();
    });
    if (k >= o.warmup) copy.push_back(eventMs(e));
  }
  for (int k = 0; k < o.warmup + o.frames; ++k) {
    const ChainRun run = chain.enqueue(q, in[k % in.size()], out, {});
    clCall("clWaitForEvents(table)", [&] { run.done.wait(); });
    if (k >= o.warmup) span.push_back(stagesSpanMs(run.stages));
  }
  r.ms = medianOf(span);
  r.copyMs = medianOf(copy);
  r.streamMs = streamedFrameMs(cl, q, chain, in, out, o.frames);
  return r;
}

// One row of the JSON lines: times in microseconds.
nlohmann::ordered_json rowJson(const Row& r, const Row* peer) {
  nlohmann::ordered_json j{{"chain", r.chain},
                           {"format", r.format},
                           {"width", r.w},
                           {"height", r.h},
                           {"pitch", r.pitch},
                           {"us", r.ms * 1e3},
                           {"copy_us", r.copyMs * 1e3},
                           {"streamed_us", r.streamMs * 1e3},
                           {"schedule", r.schedule}};
  if (peer) {
    j["peer_width"] = peer->w;
    j["peer_height"] = peer->h;
    j["peer_us"] = peer->ms * 1e3;
  }
  return j;
}

std::string fmtUs(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", ms * 1e3);
  return b;
}

}  // namespace

bool parseSize(const std::string& text, int* w, int* h) {
  const auto x = text.find_first_of("xX");
  if (x == std::string::npos) return false;
  const auto side = [&](std::size_t from, std::size_t to, int* v) {
    if (from == to) return false;
    const auto [end, ec] = std::from_chars(text.data() + from, text.data() + to, *v);
    return ec == std::errc() && end == text.data() + to && *v > 0;
  };
  return side(0, x, w) && side(x + 1, text.size(), h);
}

void alignedPeer(int w, int h, int* pw, int* ph) {
  *pw = std::max(64, static_cast<int>(std::lround(w / 64.0)) * 64);
  *ph = std::max(1, static_cast<int>(std::lround(double(w) * h / *pw)));
}

void checkTable(const TableOptions& o) {
  for (const std::string& chain : o.chains) Chain::parse(chain);
  for (const std::string& format : o.formats)
    if (format != "gray" && format != "bgr" && format != "bgra")
      throw UserError("--formats takes gray, bgr and bgra, got " + quote(format));
  for (const std::string& size : o.sizes) {
    int w = 0, h = 0;
    sizeOf(size, &w, &h);
  }
}

int runTable(ClContext& cl, const TableOptions& o) {
  // A row that fails on the device (its memory, a build) is reported in its place and the table
  // goes on (exit 1).
  checkTable(o);
  TextFile json;
  if (!o.json.empty()) json.open(o.json, "the JSON file");
  std::printf(
      "vidfilter bench --table on %s: device time per frame (median of %d runs after %d "
      "warm-up, %d distinct random frames), the copy of the same frame, %% of the copy's "
      "bandwidth (copy time / chain time), and for widths not a multiple of 64 the "
      "aligned peer of about the same area (its time, and this row's time over it); then the "
      "chain's time per frame with the frames enqueued back to back (streamed)\n",
      cl.info().name.c_str(), o.frames, o.warmup, o.distinct);
  std::printf("%-26s %-11s %-5s %9s %9s %6s   %-11s %9s %6s   %9s\n", "chain", "size", "fmt", "us",
              "copy us", "%copy", "peer", "peer us", "ratio", "str us");
  int rc = 0;
  for (const std::string& chain : o.chains)
    for (const std::string& format : o.formats)
      for (const std::string& size : o.sizes) {
        int w = 0, h = 0;
        sizeOf(size, &w, &h);
        Row r, p;
        bool peer = o.peers && w % 64 != 0;
        try {
          r = timeRow(cl, chain, w, h, format, o);
          if (peer) {
            int pw = 0, ph = 0;
            alignedPeer(w, h, &pw, &ph);
            p = timeRow(cl, chain, pw, ph, format, o);
          }
        } catch (const std::exception& e) {
          std::printf("%-26s %-11s %-5s error: %s\n", chain.c_str(), size.c_str(), format.c_str(),
                      e.what());
          rc = 1;
          continue;
        }
        const double pct = r.ms > 0 ? 100 * r.copyMs / r.ms : 0;
        std::printf("%-26s %-11s %-5s %9s %9s %5.0f%%", chain.c_str(), size.c_str(), format.c_str(),
                    fmtUs(r.ms).c_str(), fmtUs(r.copyMs).c_str(), pct);
        if (peer)
          std::printf("   %-11s %9s %6.2f",
                      (std::to_string(p.w) + "x" + std::to_string(p.h)).c_str(),
                      fmtUs(p.ms).c_str(), p.ms > 0 ? r.ms / p.ms : 0.0);
        else
          std::printf("   %-11s %9s %6s", "-", "-", "-");
        std::printf("   %9s\n", fmtUs(r.streamMs).c_str());
        std::fflush(stdout);
        if (json.isOpen()) json.writeLine(rowJson(r, peer ? &p : nullptr).dump());
      }
  if (json.isOpen()) json.close();
  return rc;
}

}  // namespace vf::bench
