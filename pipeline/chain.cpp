#include "pipeline/chain.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "pipeline/fused_pass.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/registry.hpp"

namespace vf {

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

struct Token {
  std::string text;
  std::size_t pos;
};

// Splits on `sep`, keeping each piece's offset in the whole chain string.
std::vector<Token> split(const std::string& s, std::size_t base, char sep) {
  std::vector<Token> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back({s.substr(start, i - start), base + start});
      start = i + 1;
    }
  }
  return out;
}

std::string mib(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

// A frame too large for one buffer on this device: one message that says what to do, instead of
// CL_INVALID_BUFFER_SIZE from somewhere inside a stage or the engine.
std::runtime_error frameTooLarge(const ClContext& cl, const FrameDesc& in, const std::string& what,
                                 std::uint64_t bytes) {
  return std::runtime_error(
      "frame " + in.str() + " is too large for " + cl.info().name + ": " + what + " needs " +
      mib(bytes) + " in one buffer, the device allows " + mib(cl.info().maxAllocBytes) +
      " (CL_DEVICE_MAX_MEM_ALLOC_SIZE); scale the input down or choose a device with more "
      "memory (--list-devices)");
}

bool isAllocationFailure(int code) {
  return code == CL_INVALID_BUFFER_SIZE || code == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
         code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY;
}

std::string trimCopy(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\n");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\n");
  return s.substr(a, b - a + 1);
}
}  // namespace

namespace {
// The chain and a caret line under [pos, pos + len): control characters shown escaped, a long
// chain cut to the part around the caret.
std::string caretLines(const std::string& chain, std::size_t pos, std::size_t len) {
  const Excerpt e = excerptAround(chain, pos, len);
  return "\n  " + e.text + "\n  " + std::string(e.caretPos, ' ') + std::string(e.caretLen, '^');
}
}  // namespace

ChainError::ChainError(const std::string& message, const std::string& chain, std::size_t pos,
                       std::size_t len)
    : UserError(message + caretLines(chain, pos, len)), message_(message), pos_(pos), len_(len) {}

Chain Chain::parse(const std::string& text) {
  Chain chain;
  if (trimCopy(text).empty())
    throw ChainError("empty chain: give at least one stage, e.g. --chain blur,sobel (stages: " +
                         joined(stageNames()) + ")",
                     text, 0, 1);
  for (const Token& item : split(text, 0, ',')) {
    const auto eq = item.text.find('=');
    const std::string rawName = item.text.substr(0, eq);
    const std::string name = trimCopy(rawName);
    const std::size_t namePos = item.pos + rawName.find_first_not_of(" \t\n");
    if (name.empty())
      throw ChainError("empty stage in chain (two commas, or a comma at an end?)", text, item.pos,
                       1);
    const StageInfo* info = findStage(name);
    if (!info)
      throw ChainError("unknown stage " + quote(name) + "; stages: " + joined(stageNames()), text,
                       namePos, name.size());
    auto stage = info->create();
    if (eq != std::string::npos) {
      const std::string args = item.text.substr(eq + 1);
      std::size_t positional = 0;
      bool named = false;
      std::set<std::string> given;
      for (const Token& kv : split(args, item.pos + eq + 1, ':')) {
        const auto e = kv.text.find('=');
        std::string key, value;
        if (e == std::string::npos) {
          // A bare value: the next parameter in declaration order (FFmpeg's shorthand).
          if (named)
            throw ChainError(name + ": " + quote(kv.text) +
                                 " needs a name (param=value) after a named parameter",
                             text, kv.pos, kv.text.size());
          const auto& specs = info->params;
          if (positional >= specs.size())
            throw ChainError(name + ": too many values; it takes " + std::to_string(specs.size()) +
                                 " parameter(s)",
                             text, kv.pos, kv.text.size());
          value = trimCopy(kv.text);
          const ParamType t = specs[positional].type;
          for (const auto& s : specs)  // a name written without its value: blur=sigma
            if (s.name == value && t != ParamType::Text && t != ParamType::Enum)
              throw ChainError(
                  name + ": " + value + " needs a value, e.g. " + value + "=" + s.defaultValue,
                  text, kv.pos, kv.text.size());
          key = specs[positional++].name;
        } else {
          named = true;
          key = trimCopy(kv.text.substr(0, e));
          value = trimCopy(kv.text.substr(e + 1));
        }
        try {
          stage->params().set(key, value);
        } catch (const ParamError& pe) {
          throw ChainError(name + ": " + pe.what(), text, kv.pos, kv.text.size());
        }
        // Only after set(), so an unknown name is reported as unknown first.
        if (!given.insert(key).second)
          throw ChainError(name + ": " + key + " is given twice; keep one", text, kv.pos,
                           kv.text.size());
      }
    }
    try {
      stage->validate();
    } catch (const ParamError& pe) {
      throw ChainError(name + ": " + pe.what(), text, item.pos, item.text.size());
    }
    chain.add(std::move(stage));
    chain.spans_.back() = {item.pos, item.text.size()};
  }
  chain.text_ = text;
  chain.checkColourSpaces();
  return chain;
}

void Chain::checkColourSpaces() const {
  // hsv, lab and yuv frames travel as 3-channel frames, so their format cannot tell a later
  // stage that reads them as BGR: the conversions from BGR would take their channels for B, G, R.
  std::string space;  // the colour space color=to= made of the frames, "" for BGR or gray
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    const std::string& name = stages_[i]->name();
    const std::string to = name == "color" ? stages_[i]->params().text("to") : "";
    const bool fromBgr =
        name == "gray" || to == "gray" || to == "bgr" || to == "hsv" || to == "lab" || to == "yuv";
    if (fromBgr && !space.empty() && spans_[i].first != std::string::npos)
      throw ChainError(name + (to.empty() ? "" : "=to=" + to) + " reads BGR, but the frames here " +
                           "are " + space + " (from color=to=" + space + ", in BGR's layout): " +
                           "it cannot convert them; put it before color=to=" + space +
                           ", or leave it out to keep the " + space + " channels",
                       text_, spans_[i].first, spans_[i].second);
    // Otsu's threshold takes gray frames: these are three channels of another space.
    if (name == "threshold" && stages_[i]->params().text("mode") == "otsu" && !space.empty() &&
        spans_[i].first != std::string::npos)
      throw ChainError("threshold: mode=otsu needs gray input, but the frames here are " + space +
                           " (from color=to=" + space +
                           "); put gray (or color=to=gray) before "
                           "color=to=" +
                           space + ", or threshold with mode=binary",
                       text_, spans_[i].first, spans_[i].second);
    if (to == "hsv" || to == "lab" || to == "yuv")
      space = to;
    else if (fromBgr)
      space.clear();
  }
}

void Chain::add(std::unique_ptr<Stage> stage) {
  stages_.push_back(std::move(stage));
  enabled_.push_back(true);
  spans_.emplace_back(std::string::npos, 0);
  configured_ = false;
}

std::string Chain::str() const {
  std::string s;
  for (const auto& st : stages_) {
    const std::string p = st->params().str();
    s += (s.empty() ? "" : ",") + st->name() + (p.empty() ? "" : "=" + p);
  }
  return s;
}

std::vector<std::string> Chain::filesRead() const {
  std::vector<std::string> files;
  for (const auto& st : stages_)
    for (std::string& f : st->filesRead()) files.push_back(std::move(f));
  return files;
}

bool Chain::setEnabled(std::size_t i, bool on) {
  if (enabled_.at(i) == on) return false;
  enabled_[i] = on;
  configured_ = false;
  return true;
}

void Chain::configure(ClContext& cl, const FrameDesc& in) {
  if (in.empty())
    throw UserError("cannot configure the chain for an empty frame (" + in.str() + ")");
  configured_ = false;
  const ProgramVariant variant(perFrameSize_ ? in.str() : "");
  const std::uint64_t maxAlloc = cl.info().maxAllocBytes;
  const int pitch = pitchPixelsFor(cl, in);
  // The bytes of a frame like f on the device: rows `pitch` pixels apart (a stage that takes a
  // row pitch keeps the size, so every frame of a padded chain has the input's).
  const auto deviceBytes = [&](const FrameDesc& f) {
    return std::size_t(std::max(pitch, f.width)) * std::size_t(f.channels()) *
           std::size_t(f.height);
  };
  if (maxAlloc && deviceBytes(in) > maxAlloc)
    throw frameTooLarge(cl, in, "the input", deviceBytes(in));
  cl_ = &cl;
  published_.clear();
  publishedPerFrame_.clear();
  stageOut_.assign(stages_.size(), FrameDesc{});
  FrameDesc cur = in;
  std::size_t maxBytes = 0;
  std::size_t producers = 0;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    if (!enabled_[i]) {
      stageOut_[i] = cur;
      continue;
    }
    StageContext ctx{cl, static_cast<int>(i), published_, &publishedPerFrame_,
                     pitch > in.width ? pitch : 0};
    FrameDesc out;
    try {
      out = clCall(stages_[i]->name(), [&] { return stages_[i]->configure(ctx, cur); });
    } catch (const ChainError&) {
      throw;
    } catch (const UserError& e) {  // the frame does not suit the stage: where it is written
      if (spans_[i].first == std::string::npos) throw;
      throw ChainError(e.what(), text_, spans_[i].first, spans_[i].second);
    } catch (const ClError& e) {
      if (!isAllocationFailure(e.code())) throw;
      throw std::runtime_error(stages_[i]->name() + ": " + e.what() + " for frame " + in.str() +
                               ": the frame is too large for " + cl.info().name +
                               "; scale the input down or choose a device with more memory "
                               "(--list-devices)");
    }
    if (maxAlloc && deviceBytes(out) > maxAlloc) {
      // A stage that made the frame larger (resize) was asked for too much: the chain's fault,
      // where it is written; else the input is too large for the device.
      const auto area = [](const FrameDesc& d) { return std::uint64_t(d.width) * d.height; };
      if (area(out) > area(cur) && spans_[i].first != std::string::npos)
        throw ChainError(stages_[i]->name() + ": its output, " + out.str() + ", needs " +
                             mib(deviceBytes(out)) + " in one buffer; " + cl.info().name +
                             " allows " + mib(maxAlloc) + ": ask for a smaller size",
                         text_, spans_[i].first, spans_[i].second);
      throw frameTooLarge(cl, in, stages_[i]->name() + "'s output", deviceBytes(out));
    }
    if (!stages_[i]->passthrough()) {
      published_.clear();
      publishedPerFrame_.clear();
      ++producers;
      maxBytes = std::max(maxBytes, deviceBytes(out));
    } else if (out != cur) {
      throw std::logic_error(stages_[i]->name() + ": a passthrough stage changed the frame");
    }
    stageOut_[i] = cur = out;
  }
  // Intermediate results ping-pong between two scratch buffers; the last producer writes `out`.
  // (With two producers only the first buffer is used; both are allocated for simplicity.)
  if (producers >= 2 && maxBytes > scratchBytes_) {
    for (std::size_t k = 0; k < 2; ++k)
      scratch_[k] = clCall("clCreateBuffer(chain scratch)",
                           [&] { return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, maxBytes); });
    scratchBytes_ = maxBytes;
  }
  input_ = in;
  output_ = cur;
  pitchPx_ = pitch;
  planFusion(cl);
  configured_ = true;
}

std::vector<SideOutput> Chain::sideOutputs() const {
  std::vector<SideOutput> all;
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    if (!enabled_[i]) continue;
    for (auto s : stages_[i]->sideOutputs()) {
      s.stage = static_cast<int>(i);
      all.push_back(std::move(s));
    }
  }
  return all;
}

ChainRun Chain::enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                        const std::vector<cl::Event>& wait,
                        std::vector<std::vector<std::uint8_t>>* side, bool stageEvents) {
  if (!configured_) throw std::logic_error("Chain::enqueue before configure");
  ChainRun run;
  run.stages.resize(stages_.size());
  std::size_t lastProducer = passes_.size();
  for (std::size_t k = 0; k < passes_.size(); ++k)
    if (producer(passes_[k])) lastProducer = k;
  const std::size_t lastPass = passes_.size() - 1;  // passes_ is empty when no stage is enabled

  const cl::Buffer* cur = &in;
  std::vector<cl::Event> deps;  // the caller's events, without null ones
  for (const cl::Event& e : wait)
    if (e()) deps.push_back(e);
  bool eventless = false;  // some stage enqueued commands without events
  int nextScratch = 0;
  for (std::size_t k = 0; k < passes_.size(); ++k) {
    const PassPlan& pass = passes_[k];
    const std::size_t i = pass.stages.front();
    Stage& st = *stages_[i];
    const cl::Buffer* dst = cur;
    if (producer(pass)) dst = (k == lastProducer) ? &out : &scratch_[nextScratch++ % 2];
    const std::uint64_t before = kernelsLaunched();
    StageEvents ev;
    {
      const StageEventsOff off(!stageEvents && k != 0 && k != lastPass);
      if (fused_[k])
        ev = clCall(label(pass), [&] { return fused_[k]->enqueue(queue, *cur, *dst, deps); });
      else if (pass.prologue || pass.epilogue || pass.filter)
        ev = clCall(label(pass), [&] {
          return stages_[pass.stages[pass.reader]]->enqueue(queue, *cur, *dst, deps);
        });
      else
        ev = clCall(st.name(), [&] { return st.enqueue(queue, *cur, *dst, deps); });
    }
    if (ev.last())
      deps.assign(1, ev.last);  // a stage with nothing to do enqueues nothing
    else if (kernelsLaunched() != before) {
      deps.clear();  // enqueued without events: the in-order queue orders what follows
      eventless = true;
    }
    run.stages[i] = ev;
    cur = dst;
  }
  if (deps.empty() && eventless) {
    // Every event-less command is done before this marker (in-order queue): the frame's end.
    cl::Event mark;
    clCall("clEnqueueMarkerWithWaitList(chain)",
           [&] { queue.enqueueMarkerWithWaitList(nullptr, &mark); });
    deps.assign(1, mark);
  }
  if (lastProducer == passes_.size() && in() != out()) {
    // Nothing changed the frame (e.g. "hist" alone): the output is the input.
    cl::Event copy;
    clCall("clEnqueueCopyBuffer(chain passthrough)", [&] {
      queue.enqueueCopyBuffer(in, out, 0, 0, inputBytes(), deps.empty() ? nullptr : &deps, &copy);
    });
    deps.assign(1, copy);
  }
  run.done = deps.empty() ? cl::Event() : deps.front();
  if (side) {
    const std::vector<SideOutput> outs = sideOutputs();
    side->resize(outs.size());
    std::vector<std::uint8_t*> dst;
    for (std::size_t k = 0; k < outs.size(); ++k) {
      (*side)[k].resize(outs[k].bytes);
      dst.push_back((*side)[k].data());
    }
    run.done = readSideOutputs(queue, dst, run.done);
  }
  return run;
}

cl::Event Chain::readSideOutputs(cl::CommandQueue& queue, const std::vector<std::uint8_t*>& dst,
                                 const cl::Event& after) const {
  const std::vector<SideOutput> outs = sideOutputs();
  if (dst.size() < outs.size())
    throw std::invalid_argument("Chain::readSideOutputs: " + std::to_string(dst.size()) +
                                " destinations for " + std::to_string(outs.size()) + " outputs");
  cl::Event last = after;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const std::vector<cl::Event> deps{last};
    cl::Event read;
    clCall("clEnqueueReadBuffer(" + outs[k].name + ")", [&] {
      queue.enqueueReadBuffer(outs[k].buffer, CL_FALSE, 0, outs[k].bytes, dst[k],
                              last() ? &deps : nullptr, &read);
    });
    last = read;
  }
  return last;
}

}  // namespace vf
