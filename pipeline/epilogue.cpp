#include "pipeline/epilogue.hpp"

#include <algorithm>
#include <stdexcept>

#include "pipeline/cl/kernel_source.hpp"
#include "pipeline/stages/histogram_kernel.hpp"

namespace vf {

namespace {
std::string num(long long v) { return std::to_string(v); }
}  // namespace

std::size_t epilogueLocalBytes(std::size_t counters, int copies) {
  return (1 + counters) * HistogramKernel::kBins +
         counters * std::size_t(copies) * HistogramKernel::kBins * sizeof(cl_uint);
}

int epilogueCopies(const std::vector<Stage*>& stages, int preferred, std::size_t localBytes) {
  std::size_t counters = 0;
  int asked = 0;
  for (Stage* st : stages)
    if (HistogramKernel* h = st->histogramCounter()) {
      ++counters;
      asked = std::max(asked, h->requestedCopies());
    }
  int copies = asked > 0 ? asked : preferred;
  while (copies > 1 && epilogueLocalBytes(counters, copies) > localBytes) copies /= 2;
  return epilogueLocalBytes(counters, copies) <= localBytes ? copies : 0;
}

Epilogue makeEpilogue(const std::vector<Stage*>& stages, const FrameDesc& out, int copies) {
  Epilogue e;
  if (stages.empty()) return e;
  if (out.channels() != 1)
    throw std::logic_error("an epilogue on " + out.str() + ": it takes one-channel frames");
  if (copies < 1) throw std::logic_error("an epilogue with " + num(copies) + " sub-histograms");
  e.stages = stages;
  e.copies = copies;
  for (Stage* st : stages)
    if (HistogramKernel* h = st->histogramCounter()) e.counters.push_back(h);
  // epi_pixel gives the byte after every function in out[0] and, in out[1 + k], the byte
  // counter k sees (the functions before it applied): the tables kernels/epilogue.cl looks up.
  const auto seen = [](int h, int v, int channels) {
    if (channels != 1) throw std::logic_error("an epilogue counting a pixel of several channels");
    return "  out[" + num(1 + h) + "] = v" + num(v) + "[0];\n";
  };
  e.fn = pixelFunction(stages, 1, "epi_pixel", 1, seen, "epi_");
  if (e.fn.outChannels != 1) throw std::logic_error("an epilogue that changes the channels");
  return e;
}

std::string Epilogue::header() const {
  if (empty()) return "";
  // The kernel's parameters: the functions' (those of fn.params that are not the counters'
  // local histograms), then each counter's two buffers.
  std::string kdecl;
  for (std::size_t pos = 0; pos < fn.params.size();) {
    const std::size_t next = fn.params.find(", ", pos + 2);
    const std::string part =
        fn.params.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (part.find("__local") == std::string::npos) kdecl += part;
    pos = next == std::string::npos ? fn.params.size() : next;
  }
  const int n = static_cast<int>(counters.size());
  const std::string tables = num(1 + n);
  // At the kernel's start: the tables (epi_pixel on every byte value, by the work-group), the
  // work-group's sub-histograms zeroed, each work-item's copy, the buffers the next frame counts
  // into zeroed; at its end, the sub-histograms added to the frame's histogram (one atomic per
  // bin that counted anything).
  std::string begin =
      " const int epi_lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));"
      " const int epi_lsize = (int)(get_local_size(0) * get_local_size(1));"
      " __local uchar epi_lut[" +
      tables + " * 256];";
  std::string end, decl = ", __local const uchar* epi_lut", pass = ", epi_lut";
  if (n)
    begin +=
        " const int epi_gid = (int)(get_global_id(1) * get_global_size(0) + get_global_id(0));"
        " const int epi_gsize = (int)(get_global_size(0) * get_global_size(1));";
  for (int k = 0; k < n; ++k) {
    const std::string h = num(k);
    kdecl += ", __global uint* epi_hist" + h + ", __global uint* epi_clear" + h;
    decl += ", __local uint* epi_lh" + h;
    pass += ", epi_lh" + h;
    begin += " __local uint epi_lhs" + h + "[EPI_COPIES * 256];" +
             " for (int i = epi_lid; i < EPI_COPIES * 256; i += epi_lsize) epi_lhs" + h +
             "[i] = 0u;" + " for (int i = epi_gid; i < 256; i += epi_gsize) epi_clear" + h +
             "[i] = 0u;" + " __local uint* epi_lh" + h + " = epi_lhs" + h +
             " + epi_lid % EPI_COPIES;";
    // Bin i's copies lie side by side; neighbouring work-items start at different ones.
    end +=
        " for (int i = epi_lid; i < 256; i += epi_lsize) { uint n = 0;"
        " for (int c = 0; c < EPI_COPIES; ++c) n += epi_lhs" +
        h + "[i * EPI_COPIES + (c + i) % EPI_COPIES]; if (n) atomic_add(&epi_hist" + h +
        "[i], n); }";
  }
  begin += " for (int v = epi_lid; v < 256; v += epi_lsize) { uchar i[1], o[" + tables +
           "]; i[0] = (uchar)v; epi_pixel(i, o" + fn.args + "); for (int t = 0; t < " + tables +
           "; ++t) epi_lut[t * 256 + v] = o[t]; } barrier(CLK_LOCAL_MEM_FENCE);";
  if (n) end = " barrier(CLK_LOCAL_MEM_FENCE);" + end;
  // One byte through the tables: each counter counts the byte it sees, the last function's
  // byte is stored. A counter before any function sees the byte itself; with no function
  // at all the byte is stored as it is.
  bool function = false;
  std::string body;
  int k = 0;
  for (Stage* st : stages) {
    if (st->pointFn()) {
      function = true;
      continue;
    }
    const std::string seenByte = function ? "epi_lut[" + num(256 * (1 + k)) + " + b]" : "b";
    body += "  atomic_inc(&epi_lh" + num(k) + "[(uint)" + seenByte + " * EPI_COPIES]);\n";
    ++k;
  }
  body += std::string("  return ") + (function ? "epi_lut[b]" : "b") + ";\n";
  return "#define EPILOGUE 1\n#define EPI_COPIES " + num(copies) + "\n#define EPI_DECL " + decl +
         "\n#define EPI_PASS " + pass + "\n#define EPI_KDECL " + kdecl + "\n#define EPI_BEGIN" +
         begin + "\n#define EPI_END" + end + "\n" + fn.source +
         "inline uint epi_byte(uint b EPI_DECL) {\n" + body + "}\n";
}

void Epilogue::setArgs(cl::Kernel& kernel, cl_uint first) const {
  for (Stage* st : stages)
    if (const PointFn* f = st->pointFn()) {
      st->setPointArgs(kernel, first);
      first += static_cast<cl_uint>(f->params.size());
    }
}

void Epilogue::advance(cl::Kernel& kernel, cl_uint first) const {
  for (Stage* st : stages)
    if (const PointFn* f = st->pointFn()) first += static_cast<cl_uint>(f->params.size());
  for (HistogramKernel* h : counters) {
    const HistogramKernel::Targets t = h->advance();
    kernel.setArg(first, t.count);
    kernel.setArg(first + 1, t.clear);
    first += 2;
  }
}

cl::Program buildThrough(ProgramCache& programs, const std::string& file,
                         const std::string& options, const Prologue& pro, const Epilogue& epi) {
  if (epi.empty()) return pro.build(programs, file, options);
  return programs.buildSource(
      file + (pro.empty() ? "" : " reading through functions") + " storing through functions",
      pro.header() + epi.header() + kernelSource(file), options);
}

}  // namespace vf
