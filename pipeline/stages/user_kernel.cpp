// kernel: a user's OpenCL C function as a stage, as FFmpeg's program_opencl. The file defines
// point() or neighbourhood() (kernels/user_prelude.cl states the contract); the stage wraps it
// in a kernel of ours (kernels/user_main.cl), builds it through the program cache like every
// kernel (binary cached on disk, keyed by the source), and passes p0..p7 as live arguments.
// A build error shows the compiler's log, whose lines name the user's file, line and column
// (the source carries a #line directive).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <regex>
#include <string>

#include "pipeline/border.hpp"
#include "pipeline/cl/build_options.hpp"
#include "pipeline/cl/kernel_source.hpp"
#include "pipeline/cl/program_cache.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

// The file's text; UserError naming it when it cannot be read, is a directory, or holds more
// than any kernel source (1 MiB: /dev/zero is read no further). A pipe (<(...)) is read too.
std::string readUserFile(const std::string& path) {
  constexpr std::size_t kMostBytes = 1 << 20;
  const std::string hint = "; give the path of an OpenCL C file (samples/kernels/ has examples)";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError("kernel: " + quote(path) + " is a directory" + hint);
  // Plain reads: a signal ends a wait on a FIFO's writer (a stream would retry the read).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const auto failed = [&](int err) {
    return UserError("kernel: " + (err == EINTR ? "reading " + quote(path) + " was interrupted"
                                                : "cannot read " + quote(path) + hint));
  };
  if (fd < 0) throw failed(errno);
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw failed(err);
    }
    if (n == 0) break;
    text.append(buf, std::size_t(n));
    if (text.size() > kMostBytes) {
      ::close(fd);
      throw UserError("kernel: " + quote(path) + " is larger than 1 MiB, no kernel source" + hint);
    }
  }
  ::close(fd);
  return text;
}

// A compiler that ignores #line (NVIDIA's says "<kernel>:LINE:COL") names lines of the whole
// source: those in the user's part, [first, first + lines), become "path:LINE:COL" of the file.
std::string userLines(const std::string& log, const std::string& path, long first, long lines) {
  static const std::regex where("<kernel>:([0-9]+):([0-9]+)");
  std::string out;
  auto from = log.cbegin();
  for (std::sregex_iterator it(log.begin(), log.end(), where), end; it != end; ++it) {
    const long line = std::stol((*it)[1].str());
    out.append(from, (*it)[0].first);
    if (line >= first && line < first + lines)
      out += path + ":" + std::to_string(line - first + 1) + ":" + (*it)[2].str();
    else
      out += (*it)[0].str();
    from = (*it)[0].second;
  }
  out.append(from, log.cend());
  return out;
}

// `path` as a C string literal's contents, for the #line directive.
std::string lineFileName(const std::string& path) {
  std::string s;
  for (char c : path) {
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) s += c;
  }
  return s;
}

enum class Form { Point, Neighbourhood };

Form formOf(const std::string& path, const std::string& source) {
  static const std::regex point(R"(\bpoint\s*\()"), hood(R"(\bneighbourhood\s*\()");
  const bool p = std::regex_search(source, point), n = std::regex_search(source, hood);
  if (p == n)
    throw UserError("kernel: " + quote(path) +
                    (p ? " defines both point() and neighbourhood()"
                       : " defines neither point() nor neighbourhood()") +
                    "; define one: uchar4 point(uchar4 px, int2 pos, int2 size, float8 p) or "
                    "uchar4 neighbourhood(vf_image img, int2 pos, float8 p)");
  return p ? Form::Point : Form::Neighbourhood;
}

class UserKernelStage : public Stage {
 public:
  UserKernelStage() : Stage(userKernelStageInfo()) {}

  void validate() const override {
    if (params().text("file").empty())
      throw ParamError("file", "give the kernel's file: kernel=path/to/file.cl");
  }

  std::vector<std::string> filesRead() const override { return {params().text("file")}; }

  FrameDesc configure(StageContext& ctx, const FrameDesc& in) override {
    const std::string path = params().text("file");
    const std::string user = readUserFile(path);  // read again at each configure: edits count
    form_ = formOf(path, user);
    const BorderMode border = parseBorder(params().text("border"));
    const std::string prelude =
        kernelSource("user_prelude.cl") + "\n#line 1 \"" + lineFileName(path) + "\"\n";
    const std::string source =
        prelude + user + "\n#line 1 \"vidfilter/user_main.cl\"\n" + kernelSource("user_main.cl");
    const std::string opts = BuildOptions()
                                 .define("CN", in.channels())
                                 .define(borderDefine(border))
                                 .defineIf(form_ == Form::Neighbourhood, "VF_NEIGHBOURHOOD")
                                 .str();
    cl::Program program;
    try {
      program = ctx.cl.programs().buildSource(path, source, opts);
    } catch (const KernelBuildError& e) {
      const auto first = static_cast<long>(std::count(prelude.begin(), prelude.end(), '\n')) + 1;
      const auto lines = static_cast<long>(std::count(user.begin(), user.end(), '\n')) + 1;
      std::string log = userLines(e.log(), path, first, lines);
      // An error in vidfilter's caller of the user's function: its declaration does not fit.
      if (log.find("user_main.cl:") != std::string::npos)
        log += std::string("\nuser_main.cl is vidfilter's caller of the function in ") +
               printable(path) + ", which must be declared as " +
               (form_ == Form::Point ? "uchar4 point(uchar4 px, int2 pos, int2 size, float8 p)"
                                     : "uchar4 neighbourhood(vf_image img, int2 pos, float8 p)") +
               "\n";
      throw KernelBuildError(path, opts, log);
    }
    kernel_ = clCall("clCreateKernel(vf_user)", [&] { return cl::Kernel(program, "vf_user"); });
    const bool cpu = ctx.cl.facts().cpu;
    wg_ = cpu ? cl::NDRange(64, 1) : cl::NDRange(32, 8);
    in_ = in;
    update();
    return in;
  }

  void update() override {
    if (!kernel_()) return;
    cl_float8 p;
    for (int i = 0; i < 8; ++i)
      p.s[i] = static_cast<float>(params().number("p" + std::to_string(i)));
    const cl_uchar v = static_cast<cl_uchar>(params().integer("value"));
    kernel_.setArg(4, p);
    kernel_.setArg(5, cl_uchar4{{v, v, v, 255}});
  }

  std::string schedule() const override {
    return std::string("form=") + (form_ == Form::Point ? "point" : "neighbourhood");
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    kernel_.setArg(0, in);
    kernel_.setArg(1, out);
    kernel_.setArg(2, in_.width);
    kernel_.setArg(3, in_.height);
    const cl::NDRange global(roundUp(in_.width, wg_[0]), roundUp(in_.height, wg_[1]));
    cl::Event e = launchKernel(q, kernel_, global, wg_, wait);
    return {e, e};
  }

 private:
  FrameDesc in_;
  Form form_ = Form::Point;
  cl::NDRange wg_;
  cl::Kernel kernel_;
};

std::vector<ParamSpec> userKernelParams() {
  std::vector<ParamSpec> specs = {
      textParam("file", "", "the OpenCL C file (defines point() or neighbourhood())")};
  for (int i = 0; i < 8; ++i)
    specs.push_back(
        floatParam("p" + std::to_string(i), "0", -1e6, 1e6, "the kernel's p.s" + std::to_string(i))
            .asLive());
  specs.push_back(
      enumParam("border", "reflect101", borderNames(), "what vf_read() returns outside the frame"));
  specs.push_back(intParam("value", "0", 0, 255, "the constant of border=constant").asLive());
  return specs;
}

}  // namespace

const StageInfo& userKernelStageInfo() {
  static const StageInfo info{"kernel",
                              "your own OpenCL C function as a stage (as FFmpeg's program_opencl)",
                              "gray, bgr, bgra -> same", userKernelParams(),
                              [] { return std::make_unique<UserKernelStage>(); }};
  return info;
}

}  // namespace vf
