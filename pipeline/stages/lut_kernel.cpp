#include "pipeline/stages/lut_kernel.hpp"

#include "pipeline/cl/build_options.hpp"
#include "pipeline/error.hpp"

namespace vf {

void FrameHistogram::configure(StageContext& ctx, const FrameDesc& in) {
  upstream_ = nullptr;
  if (ctx.publishedPerFrame) {
    const auto it = ctx.publishedPerFrame->find("histogram");
    if (it != ctx.publishedPerFrame->end()) upstream_ = it->second;
  }
  if (own())
    hist_.configure(ctx.cl, in);
  else
    hist_ = HistogramKernel();
}

StageEvents FrameHistogram::enqueue(cl::CommandQueue& q, const cl::Buffer& frame,
                                    const std::vector<cl::Event>& wait) {
  if (!own()) return {};
  return hist_.enqueue(q, frame, wait);
}

cl::Buffer FrameHistogram::buffer() const { return own() ? hist_.buffer() : upstream_(); }

void LutApply::configure(ClContext& cl, const FrameDesc& in, int tableChannels) {
  in_ = in;
  program_ = cl.programs().build(
      "lut.cl", BuildOptions().define("CN", in.channels()).define("LUT_CN", tableChannels).str());
  kernel_ = clCall("clCreateKernel(lut_apply)", [&] { return cl::Kernel(program_, "lut_apply"); });
  // Every work-group first copies the tables into local memory: groups of 256 on GPUs share
  // that cost; a CPU runs a group as one loop, where 64 keeps the copy small beside the work.
  local_ = cl.facts().cpu ? 64 : 256;
  const std::size_t chunk = in.channels() == 3 ? 48 : 16;
  items_ = (in.bytes() + chunk - 1) / chunk;
}

void LutApply::buildAndApply(cl::CommandQueue& q, cl::Kernel& build, int tables,
                             const cl::Buffer& in, const cl::Buffer& out, const cl::Buffer& lut,
                             const std::vector<cl::Event>& wait, StageEvents& ev) {
  cl::Event table =
      launchKernel(q, build, cl::NDRange(256 * std::size_t(tables)), cl::NDRange(256), wait);
  if (!ev.first()) ev.first = table;
  ev.last =
      enqueue(q, in, out, lut, table() ? std::vector<cl::Event>{table} : std::vector<cl::Event>{});
}

cl::Event LutApply::enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                            const cl::Buffer& lut, const std::vector<cl::Event>& wait) {
  kernel_.setArg(0, in);
  kernel_.setArg(1, out);
  kernel_.setArg(2, static_cast<int>(in_.bytes()));
  kernel_.setArg(3, lut);
  return launchKernel(q, kernel_, cl::NDRange(roundUp(items_, local_)), cl::NDRange(local_), wait);
}

std::string LutApply::schedule() const { return "apply_wg=" + std::to_string(local_); }

std::vector<cl::Event> liveEvents(const std::vector<cl::Event>& wait) {
  std::vector<cl::Event> out;
  for (const cl::Event& e : wait)
    if (e()) out.push_back(e);
  return out;
}

}  // namespace vf
