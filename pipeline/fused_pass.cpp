#include "pipeline/fused_pass.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "pipeline/error.hpp"
#include "pipeline/fusion.hpp"
#include "pipeline/point_source.hpp"
#include "pipeline/stages/histogram_kernel.hpp"

namespace vf {

namespace {

std::string num(long long v) { return std::to_string(v); }

const char* const kHex = "0123456789abcdef";

// Sub-histograms a work-group counts into with plain increments (one work-item per group, on
// CPUs): lane q of 16 counts into copy q % copies, as the hist stage's CPU schedule
// (kernels/hist.cl: neighbouring pixels often share a value, and consecutive increments of one
// counter stall on store-to-load forwarding). Fewer where local memory cannot hold them.
constexpr int kCopies = 4;

// Counts the current pixel (array v, `channels` channels of `lanes` pixels) into local
// histogram lh<h>, `copies` sub-histograms (1 with atomics).
std::string countLines(int h, int v, int channels, bool plain, int lanes, int copies) {
  std::string s;
  // Pixel by pixel, its channels in turn (as the bytes lie): two increments of one counter
  // are channels x copies increments apart.
  for (int q = 0; q < lanes; ++q)
    for (int c = 0; c < channels; ++c) {
      const std::string lane = lanes == 1 ? "" : std::string(".s") + kHex[q];
      const int copy = q % copies;
      const std::string bin = "lh" + num(h) + "[" + num((copy * channels + c) * 256) + " + v" +
                              num(v) + "[" + num(c) + "]" + lane + "]";
      s += plain ? "  " + bin + " += 1u;\n" : "  atomic_inc(&" + bin + ");\n";
    }
  return s;
}

// `to`[j] = vector j of the other layout of 16 pixels of n channels: interleaved (16-byte
// vectors of consecutive bytes) or planar (vector c: channel c of the 16 pixels). Each target
// vector is the OR of one single-source byte shuffle (zeros elsewhere) per source vector, which
// a CPU compiler lowers to a byte shuffle and an OR each.
std::string relayout(const std::string& to, const std::string& from, int n, bool toPlanar) {
  std::string s;
  for (int j = 0; j < n; ++j) {
    s += "      " + to + "[" + num(j) + "] = ";
    bool first = true;
    for (int src = 0; src < n; ++src) {
      std::string term = "(uchar16)(";
      bool any = false;
      for (int q = 0; q < 16; ++q) {
        // The byte of `from` that lands in component q of target j: toPlanar: channel j of
        // pixel q, byte q*n + j of the interleaved bytes; else byte 16j + q, channel
        // (16j + q) % n of pixel (16j + q) / n.
        const int k = toPlanar ? q * n + j : 16 * j + q;
        const int vec = toPlanar ? k / 16 : k % n, comp = toPlanar ? k % 16 : k / n;
        term += q ? ", " : "";
        if (vec == src) {
          term += from + "[" + num(src) + "].s" + kHex[comp];
          any = true;
        } else {
          term += "0";
        }
      }
      if (!any) continue;
      s += (first ? "" : " | ") + term + ")";
      first = false;
    }
    s += ";\n";
  }
  return s;
}

// The kernel around fused_pixel: 16 pixels per step, loaded and stored as whole 16-byte
// vectors (the pixel index is a multiple of 16, so the byte offsets are multiples of 16), the
// last partial chunk pixel by pixel. `planes`: the 16 pixels go through fused_pixel16 at once,
// as a uchar16 of lanes per channel (on CPUs, where one pixel at a time does not vectorise).
std::string chunkLoop(int in, int out, const std::string& args, bool planes) {
  // The chunk's pixels that are the frame's: on packed rows (a pitch that is no multiple of
  // 16) up to the last pixel; on rows whole chunks apart up to the row's end (the rest of the
  // row's pitch is not the frame's: never counted, written or not).
  std::string s =
      "    const int p0 = k * 16;\n"
      "    const int valid = (pitch & 15) ? min(16, pixels - p0) : min(16, width - p0 % pitch);\n"
      "    if (valid == 16) {\n";
  s += "      uchar16 a[" + num(in) + "], b[" + num(out) + "];\n";
  for (int j = 0; j < in; ++j)
    s += "      a[" + num(j) + "] = ((__global const uchar16*)src)[(size_t)k * " + num(in) + " + " +
         num(j) + "];\n";
  if (planes) {
    s += "      uchar16 pa[4], pb[4];\n";
    s += in == 1 ? "      pa[0] = a[0];\n" : relayout("pa", "a", in, true);
    s += "      fused_pixel16(pa, pb" + args + ");\n";
    s += out == 1 ? "      b[0] = pb[0];\n" : relayout("b", "pb", out, false);
  } else {
    s += "#pragma unroll\n      for (int q = 0; q < 16; ++q)\n"
         "        fused_pixel((const uchar*)a + q * " +
         num(in) + ", (uchar*)b + q * " + num(out) + args + ");\n";
  }
  for (int j = 0; j < out; ++j)
    s += "      ((__global uchar16*)dst)[(size_t)k * " + num(out) + " + " + num(j) + "] = b[" +
         num(j) + "];\n";
  s += "    } else {\n      for (int p = p0; p < p0 + valid; ++p) {\n        uchar a[4], b[4];\n";
  for (int c = 0; c < in; ++c)
    s += "        a[" + num(c) + "] = src[(size_t)p * " + num(in) + " + " + num(c) + "];\n";
  s += "        fused_pixel(a, b" + args + ");\n";
  for (int c = 0; c < out; ++c)
    s += "        dst[(size_t)p * " + num(out) + " + " + num(c) + "] = b[" + num(c) + "];\n";
  s += "      }\n    }\n";
  return s;
}

}  // namespace

std::string fusedPassSource(const std::vector<Stage*>& stages, int inChannels, int local, bool cpu,
                            int copies) {
  const bool plain = local == 1;
  if (!plain) copies = 1;
  // fused_pixel (and fused_pixel16 on CPUs): a pixel (16 pixels) through every function and
  // counter in chain order.
  auto counting = [plain, copies](int lanes) {
    return [plain, lanes, copies](int h, int v, int ch) {
      return countLines(h, v, ch, plain, lanes, copies);
    };
  };
  const PixelFunction px = pixelFunction(stages, inChannels, "fused_pixel", 1, counting(1));
  std::string s = "// Generated by vidfilter's chain: one fused pass (pipeline/fused_pass.cpp).\n";
  s += px.source;
  if (cpu) s += pixelFunction(stages, inChannels, "fused_pixel16", 16, counting(16)).source;
  // Each counter's local histogram, cleared, and its merge into the frame's histogram.
  std::string kernelParams, counters, merge;
  const int hist = static_cast<int>(px.counterChannels.size());
  for (int k = 0; k < hist; ++k) {
    const int ch = px.counterChannels[k];
    const std::string h = num(k), bins = num(ch * 256);
    kernelParams += ", __global uint* hist" + h + ", __global uint* clear" + h;
    counters += "  __local uint lh" + h + "[" + num(copies * ch * 256) + "];\n" +
                "  for (int i = lid; i < " + num(copies * ch * 256) + "; i += " + num(local) +
                ") lh" + h + "[i] = 0u;\n" + "  for (int i = (int)get_global_id(0); i < " + bins +
                "; i += (int)get_global_size(0)) clear" + h + "[i] = 0u;\n";
    std::string sum = "lh" + h + "[i]";
    for (int c = 1; c < copies; ++c) sum += " + lh" + h + "[i + " + num(c * ch * 256) + "]";
    merge += "  for (int i = lid; i < " + bins + "; i += " + num(local) +
             ") {\n    const uint n = " + sum + ";\n    if (n) atomic_add(&hist" + h +
             "[i], n);\n  }\n";
  }
  // Kernel arguments: the functions' parameters in order, then each counter's two buffers.
  std::string kernelFnParams;
  for (std::size_t pos = 0; pos < px.params.size();) {
    const std::size_t next = px.params.find(", ", pos + 2);
    const std::string part =
        px.params.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (part.find("__local") == std::string::npos) kernelFnParams += part;
    pos = next == std::string::npos ? px.params.size() : next;
  }
  s += "__kernel __attribute__((reqd_work_group_size(" + num(local) +
       ", 1, 1))) void fused_pass(__global const uchar* src, __global uchar* dst, int pixels, "
       "int width, int pitch" +
       kernelFnParams + kernelParams + ") {\n  const int chunks = (pixels + 15) / 16;\n";
  const std::string loop = chunkLoop(inChannels, px.outChannels, px.args, cpu);
  if (hist == 0) {
    s += "  const int k = (int)get_global_id(0);\n  if (k < chunks) {\n" + loop + "  }\n}\n";
    return s;
  }
  s += "  const int lid = (int)get_local_id(0);\n" + counters + "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  if (cpu && plain)
    s += "  const int per = (chunks + (int)get_global_size(0) - 1) / (int)get_global_size(0);\n"
         "  const int begin = (int)get_global_id(0) * per, end = min(chunks, begin + per);\n"
         "  for (int k = begin; k < end; ++k) {\n";
  else
    s += "  for (int k = (int)get_global_id(0); k < chunks; k += (int)get_global_size(0)) {\n";
  s += loop + "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n" + merge + "}\n";
  return s;
}

void FusedPass::configure(ClContext& cl, const std::vector<Stage*>& stages, const FrameDesc& in,
                          int pitchPixels) {
  const int pitch = std::max(pitchPixels, in.width);
  const std::size_t bytes =
      std::size_t(pitch) * std::size_t(in.channels()) * std::size_t(in.height);
  if (bytes > std::size_t(INT_MAX))
    throw UserError("frame of " + std::to_string(bytes) + " bytes is too large to fuse");
  stages_ = stages;
  in_ = in;
  functions_.clear();
  counters_.clear();
  firstArg_.clear();
  std::vector<std::string> names;
  int ch = in.channels();
  cl_uint arg = 5;
  for (Stage* st : stages) {
    names.push_back(st->name());
    if (const PointFn* f = st->pointFn()) {
      functions_.push_back(st);
      firstArg_.push_back(arg);
      arg += static_cast<cl_uint>(f->params.size());
      ch = f->outChannels;
    } else if (HistogramKernel* h = st->histogramCounter()) {
      counters_.push_back({h, ch});
    }
  }
  firstCounterArg_ = arg;  // the counters' buffers follow every function's parameters
  label_ = passLabel(names);
  const DeviceFacts& facts = cl.facts();
  const bool counting = !counters_.empty();
  local_ = counting ? (facts.cpu ? 1 : 256) : (facts.cpu ? 64 : 256);
  local_ = static_cast<int>(std::min<std::size_t>(local_, facts.maxWorkGroupSize));
  blocked_ = counting && local_ == 1;
  const int units = static_cast<int>(std::max<cl_uint>(facts.computeUnits, 1));
  const int pixels = pitch * in.height;
  const int chunks = (pixels + 15) / 16;  // 16 pixels per step (see chunkLoop)
  groups_ =
      counting
          ? std::max(1, std::min(facts.cpu ? units : 4 * units, (chunks + local_ - 1) / local_))
          : (chunks + local_ - 1) / local_;
  // Sub-histograms: as many as local memory holds for every counter, up to kCopies.
  std::size_t bins = 0;
  for (const Counter& c : counters_) bins += std::size_t(c.channels) * 256;
  int copies = kCopies;
  while (copies > 1 && copies * bins * sizeof(cl_uint) > facts.localMemBytes) copies /= 2;
  source_ = fusedPassSource(stages, in.channels(), local_, facts.cpu, copies);
  kernel_ = clCall("clCreateKernel(fused_pass " + label_ + ")", [&] {
    return cl::Kernel(cl.programs().buildSource("fused pass " + label_, source_, ""), "fused_pass");
  });
  kernel_.setArg(2, pixels);
  kernel_.setArg(3, in.width);
  kernel_.setArg(4, pitch);
}

StageEvents FusedPass::enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                               const std::vector<cl::Event>& wait) {
  StageEvents ev;
  std::vector<cl::Event> deps = wait;
  const PointFn* first = stages_.front()->pointFn();
  if (first && first->startsPass) {
    const StageEvents pre = stages_.front()->enqueuePrelude(q, in, deps);
    ev.first = pre.first;
    if (pre.last()) deps.assign(1, pre.last);
  }
  kernel_.setArg(0, in);
  kernel_.setArg(1, out);
  for (std::size_t k = 0; k < functions_.size(); ++k)
    functions_[k]->setPointArgs(kernel_, firstArg_[k]);
  cl_uint arg = firstCounterArg_;
  for (const Counter& c : counters_) {
    const HistogramKernel::Targets t = c.hist->advance();
    kernel_.setArg(arg, t.count);
    kernel_.setArg(arg + 1, t.clear);
    arg += 2;
  }
  ev.last = launchKernel(q, kernel_, cl::NDRange(std::size_t(groups_) * local_),
                         cl::NDRange(local_), deps);
  if (!ev.first()) ev.first = ev.last;
  return ev;
}

std::string FusedPass::schedule() const {
  return "pass=" + label_ + " local=" + num(local_) + " groups=" + num(groups_) +
         (blocked_ ? " blocks" : "");
}

}  // namespace vf
