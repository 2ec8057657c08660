#include "pipeline/fused_pass.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <stdexcept>

#include "pipeline/error.hpp"
#include "pipeline/fusion.hpp"
#include "pipeline/stages/histogram_kernel.hpp"

namespace vf {

namespace {

std::string num(long long v) { return std::to_string(v); }

// "__global const float* gain_bias" -> "__global const float*": the declaration's type.
std::string declType(const std::string& decl) {
  std::size_t end = decl.size();
  while (end > 0 &&
         (std::isalnum(static_cast<unsigned char>(decl[end - 1])) || decl[end - 1] == '_'))
    --end;
  std::string t = decl.substr(0, end);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t.empty()) throw std::logic_error("PointFn parameter without a type: " + decl);
  return t;
}

// Counts the current pixel (array v, `channels` bytes) into local histogram lh<h>.
std::string countLines(int h, int v, int channels, bool plain) {
  std::string s;
  for (int c = 0; c < channels; ++c) {
    const std::string bin =
        "lh" + num(h) + "[" + num(c * 256) + " + v" + num(v) + "[" + num(c) + "]]";
    s += plain ? "  " + bin + " += 1u;\n" : "  atomic_inc(&" + bin + ");\n";
  }
  return s;
}

// The kernel around fused_pixel: 16 pixels per step, loaded and stored as whole 16-byte
// vectors (the pixel index is a multiple of 16, so the byte offsets are multiples of 16), the
// last partial chunk pixel by pixel.
std::string chunkLoop(int in, int out, const std::string& args) {
  std::string s = "    const int p0 = k * 16;\n    if (p0 + 16 <= pixels) {\n";
  s += "      uchar16 a[" + num(in) + "], b[" + num(out) + "];\n";
  for (int j = 0; j < in; ++j)
    s += "      a[" + num(j) + "] = ((__global const uchar16*)src)[(size_t)k * " + num(in) + " + " +
         num(j) + "];\n";
  s += "#pragma unroll\n      for (int q = 0; q < 16; ++q)\n"
       "        fused_pixel((const uchar*)a + q * " +
       num(in) + ", (uchar*)b + q * " + num(out) + args + ");\n";
  for (int j = 0; j < out; ++j)
    s += "      ((__global uchar16*)dst)[(size_t)k * " + num(out) + " + " + num(j) + "] = b[" +
         num(j) + "];\n";
  s += "    } else {\n      for (int p = p0; p < pixels; ++p) {\n        uchar a[4], b[4];\n";
  for (int c = 0; c < in; ++c)
    s += "        a[" + num(c) + "] = src[(size_t)p * " + num(in) + " + " + num(c) + "];\n";
  s += "        fused_pixel(a, b" + args + ");\n";
  for (int c = 0; c < out; ++c)
    s += "        dst[(size_t)p * " + num(out) + " + " + num(c) + "] = b[" + num(c) + "];\n";
  s += "      }\n    }\n";
  return s;
}

}  // namespace

std::string fusedPassSource(const std::vector<Stage*>& stages, int inChannels, int local,
                            bool cpuBlocks) {
  // fused_pixel: one pixel through every function and counter, in chain order.
  std::string fns, fnParams, kernelParams, args, counters, merge, body;
  int ch = inChannels, v = 0, fn = 0, hist = 0;
  body += "  uchar v0[4];\n";
  for (int c = 0; c < inChannels; ++c) body += "  v0[" + num(c) + "] = in[" + num(c) + "];\n";
  const bool plain = local == 1;
  for (Stage* st : stages) {
    if (const PointFn* f = st->pointFn()) {
      if (f->inChannels != ch)
        throw std::logic_error(st->name() + ": its function takes " + num(f->inChannels) +
                               " channels, the pass has " + num(ch));
      const std::string name = "fused_fn" + num(fn);
      fns += "#define POINT_FN " + name + "\n" + f->source + "#undef POINT_FN\n";
      std::string call;
      for (std::size_t j = 0; j < f->params.size(); ++j) {
        const std::string a = "a" + num(fn) + "_" + num(static_cast<long long>(j));
        fnParams += ", " + declType(f->params[j]) + " " + a;
        args += ", " + a;
        call += ", " + a;
      }
      body += "  uchar v" + num(v + 1) + "[4];\n  " + name + "(v" + num(v) + ", v" + num(v + 1) +
              call + ");\n";
      ++v;
      ++fn;
      ch = f->outChannels;
    } else if (st->histogramCounter()) {
      const std::string h = num(hist), bins = num(ch * 256);
      kernelParams += ", __global uint* hist" + h + ", __global uint* clear" + h;
      fnParams += ", __local uint* lh" + h;
      args += ", lh" + h;
      counters += "  __local uint lh" + h + "[" + bins + "];\n  for (int i = lid; i < " + bins +
                  "; i += " + num(local) + ") lh" + h + "[i] = 0u;\n" +
                  "  for (int i = (int)get_global_id(0); i < " + bins +
                  "; i += (int)get_global_size(0)) clear" + h + "[i] = 0u;\n";
      merge += "  for (int i = lid; i < " + bins + "; i += " + num(local) + ")\n    if (lh" + h +
               "[i]) atomic_add(&hist" + h + "[i], lh" + h + "[i]);\n";
      body += countLines(hist, v, ch, plain);
      ++hist;
    } else {
      throw std::logic_error(st->name() + " is neither point-wise nor a counter: not fusable");
    }
  }
  for (int c = 0; c < ch; ++c) body += "  out[" + num(c) + "] = v" + num(v) + "[" + num(c) + "];\n";

  std::string s = "// Generated by vidfilter's chain: one fused pass (pipeline/fused_pass.cpp).\n";
  s += fns;
  s += "inline void fused_pixel(const uchar* in, uchar* out" + fnParams + ") {\n" + body + "}\n";
  // Kernel arguments: the functions' parameters in order, then each counter's two buffers.
  std::string kernelFnParams;
  for (std::size_t pos = 0; pos < fnParams.size();) {
    const std::size_t next = fnParams.find(", ", pos + 2);
    const std::string part =
        fnParams.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (part.find("__local") == std::string::npos) kernelFnParams += part;
    pos = next == std::string::npos ? fnParams.size() : next;
  }
  s += "__kernel __attribute__((reqd_work_group_size(" + num(local) +
       ", 1, 1))) void fused_pass(__global const uchar* src, __global uchar* dst, int pixels" +
       kernelFnParams + kernelParams + ") {\n  const int chunks = (pixels + 15) / 16;\n";
  const std::string loop = chunkLoop(inChannels, ch, args);
  if (hist == 0) {
    s += "  const int k = (int)get_global_id(0);\n  if (k < chunks) {\n" + loop + "  }\n}\n";
    return s;
  }
  s += "  const int lid = (int)get_local_id(0);\n" + counters + "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  if (cpuBlocks)
    s += "  const int per = (chunks + (int)get_global_size(0) - 1) / (int)get_global_size(0);\n"
         "  const int begin = (int)get_global_id(0) * per, end = min(chunks, begin + per);\n"
         "  for (int k = begin; k < end; ++k) {\n";
  else
    s += "  for (int k = (int)get_global_id(0); k < chunks; k += (int)get_global_size(0)) {\n";
  s += loop + "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n" + merge + "}\n";
  return s;
}

void FusedPass::configure(ClContext& cl, const std::vector<Stage*>& stages, const FrameDesc& in) {
  if (in.bytes() > std::size_t(INT_MAX))
    throw UserError("frame of " + std::to_string(in.bytes()) + " bytes is too large to fuse");
  stages_ = stages;
  in_ = in;
  functions_.clear();
  counters_.clear();
  firstArg_.clear();
  std::vector<std::string> names;
  int ch = in.channels();
  cl_uint arg = 3;
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
  const int pixels = in.width * in.height;
  const int chunks = (pixels + 15) / 16;  // 16 pixels per step (see chunkLoop)
  groups_ =
      counting
          ? std::max(1, std::min(facts.cpu ? units : 4 * units, (chunks + local_ - 1) / local_))
          : (chunks + local_ - 1) / local_;
  source_ = fusedPassSource(stages, in.channels(), local_, blocked_);
  kernel_ = clCall("clCreateKernel(fused_pass " + label_ + ")", [&] {
    return cl::Kernel(cl.programs().buildSource("fused pass " + label_, source_, ""), "fused_pass");
  });
  kernel_.setArg(2, pixels);
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
