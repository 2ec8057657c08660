#include "pipeline/point_source.hpp"

#include <cctype>
#include <stdexcept>

#include "pipeline/cl/kernel_source.hpp"

namespace vf {

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

namespace {

// The type macros a PointFn's source computes with (VF_PX, VF_PX_FLOAT, VF_PX_U32, VF_PX_F32,
// VF_PX_BITS, VF_PX_BYTE; see PointFn) for `lanes` pixels at once, 1 or 16, and the text that
// undefines them.
std::string laneTypes(int lanes) {
  if (lanes != 1 && lanes != 16)
    throw std::logic_error("point functions come for 1 or 16 lanes, not " + std::to_string(lanes));
  const std::string n = lanes == 1 ? "" : "16";
  return "#define VF_PX uchar" + n + "\n#define VF_PX_FLOAT float" + n +
         "\n#define VF_PX_U32(x) convert_uint" + n + "(x)\n#define VF_PX_F32(x) convert_float" + n +
         "(x)\n#define VF_PX_BITS(x) as_int" + n + "(x)\n#define VF_PX_BYTE(x) convert_uchar" + n +
         "(x)\n";
}

std::string laneTypesEnd() {
  return "#undef VF_PX\n#undef VF_PX_FLOAT\n#undef VF_PX_U32\n#undef VF_PX_F32\n#undef VF_PX_BITS\n"
         "#undef VF_PX_BYTE\n";
}

// One function as the caller sees it, for `lanes` pixels at once: its definition renamed
// fused_fn<index> (fused_fn<index>_x16 for 16 lanes), its parameters declared for the caller
// (", float a<index>_0, ..."), and the arguments passing them on. The definition expects the
// lanes' type macros (laneTypes) defined around it.
struct PointCall {
  std::string definition, params, args, name;
};
PointCall pointCall(const PointFn& f, int index, int lanes, const std::string& prefix) {
  PointCall c;
  c.name = prefix + "fused_fn" + std::to_string(index) +
           (lanes == 1 ? "" : "_x" + std::to_string(lanes));
  c.definition = "#define POINT_FN " + c.name + "\n" + f.source + "#undef POINT_FN\n";
  for (std::size_t j = 0; j < f.params.size(); ++j) {
    const std::string a = prefix + "a" + std::to_string(index) + "_" + std::to_string(j);
    c.params += ", " + declType(f.params[j]) + " " + a;
    c.args += ", " + a;
  }
  return c;
}

}  // namespace

PixelFunction pixelFunction(const std::vector<Stage*>& stages, int inChannels,
                            const std::string& name, int lanes, const CountLines& count,
                            const std::string& prefix) {
  PixelFunction out;
  std::string defs, body = "  VF_PX v0[4];\n";
  for (int c = 0; c < inChannels; ++c)
    body += "  v0[" + std::to_string(c) + "] = in[" + std::to_string(c) + "];\n";
  int ch = inChannels, k = 0;
  for (Stage* st : stages) {
    const PointFn* f = st->pointFn();
    if (!f && count && st->histogramCounter()) {
      const int h = static_cast<int>(out.counterChannels.size());
      out.params += ", __local uint* " + prefix + "lh" + std::to_string(h);
      out.args += ", " + prefix + "lh" + std::to_string(h);
      body += count(h, k, ch);
      out.counterChannels.push_back(ch);
      continue;
    }
    if (!f)
      throw std::logic_error(st->name() + (count ? " is neither point-wise nor a counter"
                                                 : " has no point-wise function"));
    if (f->inChannels != ch)
      throw std::logic_error(st->name() + ": its function takes " + std::to_string(f->inChannels) +
                             " channels, the pixel has " + std::to_string(ch));
    const PointCall c = pointCall(*f, k, lanes, prefix);
    defs += c.definition;
    out.params += c.params;
    out.args += c.args;
    const std::string from = "v" + std::to_string(k), to = "v" + std::to_string(k + 1);
    body += "  VF_PX " + to + "[4];\n  " + c.name + "(" + from + ", " + to + c.args + ");\n";
    ch = f->outChannels;
    ++k;
  }
  for (int c = 0; c < ch; ++c)
    body += "  out[" + std::to_string(c) + "] = v" + std::to_string(k) + "[" + std::to_string(c) +
            "];\n";
  out.outChannels = ch;
  out.source = laneTypes(lanes) + defs + "inline void " + name + "(const VF_PX* in, VF_PX* out" +
               out.params + ") {\n" + body + "}\n" + laneTypesEnd();
  return out;
}

std::string Prologue::header() const {
  if (empty()) return "";
  return "#define PROLOGUE 1\n#define PRO_CH " + std::to_string(in.channels()) +
         "\n#define PRO_OUT " + std::to_string(fn.outChannels) + "\n#define PRO_DECL " + fn.params +
         "\n#define PRO_PASS " + fn.args + "\n" + fn.source;
}

cl::Program Prologue::build(ProgramCache& programs, const std::string& file,
                            const std::string& options) const {
  if (empty()) return programs.build(file, options);
  return programs.buildSource(file + " reading through functions", header() + kernelSource(file),
                              options);
}

cl_uint Prologue::args() const {
  cl_uint n = 0;
  for (Stage* f : fns) n += static_cast<cl_uint>(f->pointFn()->params.size());
  return n;
}

void Prologue::setArgs(cl::Kernel& kernel, cl_uint first) const {
  for (Stage* f : fns) {
    f->setPointArgs(kernel, first);
    first += static_cast<cl_uint>(f->pointFn()->params.size());
  }
}

StageEvents Prologue::enqueuePrelude(cl::CommandQueue& queue, const cl::Buffer& src,
                                     std::vector<cl::Event>& deps) const {
  if (fns.empty() || !fns.front()->pointFn()->startsPass) return {};
  const StageEvents pre = fns.front()->enqueuePrelude(queue, src, deps);
  if (pre.last()) deps.assign(1, pre.last);
  return pre;
}

// H200, gray,blur and gray,sobel read through against two passes in the same run (the tables in
// blur_slab_plan.cpp and sobel_plan.cpp): faster on BGR sources up to 2560x1440 (11 MB), slower at
// 3840x2160 BGR (25 MB) and 4001x2003, a tie or a loss on 2560x1440 BGRA (15 MB). Gray sources
// (brightness,blur and brightness,sobel) read through were faster at 1920x1080, 2560x1440 and
// 3840x2160 (8.3 MB; docs/PERFORMANCE.md, "Fused passes"). The cost grows with the bytes loaded
// and converted, so a source within the bytes of the measured wins folds.
bool prologueSourceFits(const FrameDesc& source) {
  return source.bytes() <= FrameDesc{2560, 1440, PixelFormat::BGR8}.bytes();
}

Prologue makePrologue(const std::vector<Stage*>& fns, const FrameDesc& in, const FrameDesc& out) {
  Prologue p;
  if (fns.empty()) return p;
  p.fns = fns;
  p.in = in;
  p.fn = pixelFunction(fns, in.channels(), "pro_pixel", 1, {}, "pro_");
  if (p.fn.outChannels != out.channels() || in.width != out.width || in.height != out.height)
    throw std::logic_error("a prologue that does not make " + out.str() + " of " + in.str());
  return p;
}

}  // namespace vf
