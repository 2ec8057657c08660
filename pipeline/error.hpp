#pragma once
// The errors of the pipeline library, one hierarchy, and the one way OpenCL failures become
// them.
//
//   UserError   something the user wrote is wrong, and fixing the command fixes it: a bad chain,
//               parameter, device selector, a frame or work-group the device cannot take (the
//               app adds options, config files, paths that do not exist or may not be used).
//               The program prints what() alone and exits 2.
//     ParamError  one parameter's value (the chain parser adds the stage and a caret).
//   RuntimeError the command was fine but the run could not go on: the OS refused a read or a
//               write (disk full, file too large, I/O error: osError() adds its reason), the
//               machine has no usable OpenCL device. Exit status 1, as for every error below.
//   ClError     an OpenCL call failed: the call, what it was doing and the error's name
//               ("clEnqueueNDRangeKernel(blur_rows): CL_OUT_OF_RESOURCES"); code() is the status.
//   (KernelBuildError, pipeline/cl/program_cache.hpp: a kernel that does not compile, with its
//   build log.)
//
// OpenCL is called through CLHPP with exceptions on (CL_HPP_ENABLE_EXCEPTIONS): a failed call
// throws cl::Error, and no pipeline code checks a status code. A cl::Error becomes a ClError
// before it leaves the library: at the call, through clCall(what, f), where the caller can say
// what it was doing; otherwise where the chain calls a stage (naming the stage) and where
// Engine::run rethrows an error of its threads. Where a failure is expected and harmless (an
// optional device query, profiling a driver does not report), the code catches cl::Error there
// and says why.
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "pipeline/cl/opencl.hpp"

namespace vf {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parameter value a user wrote that is wrong: the message is complete without the stage name
// ("sigma must be in (0, 50], got -1"); the chain parser adds "blur: " and points at the token.
class ParamError : public UserError {
 public:
  ParamError(std::string param, const std::string& msg)
      : UserError(msg), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

class RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& what, int errnum = 0)
      : std::runtime_error(what), errnum_(errnum) {}
  // The OS's error number behind it (osError), else 0. EINTR: a blocking call a signal ended
  // (opening a FIFO nobody reads), which the program reports as the stop it is.
  int errnum() const { return errnum_; }

 private:
  int errnum_;
};

// "<what>: <the OS's reason for errnum>", e.g. "cannot write the stats file 's.jsonl': No
// space left on device".
RuntimeError osError(const std::string& what, int errnum);

// Name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or "CL_ERROR(<n>)" if unknown.
std::string clErrorName(int code);

class ClError : public std::runtime_error {
 public:
  ClError(int code, const std::string& call);
  int code() const { return code_; }

 private:
  int code_;
};

// Runs `f` (CLHPP calls) and rethrows a cl::Error as a ClError saying `what` was being done:
//   buf = clCall("clCreateBuffer(slot)", [&] { return cl::Buffer(...); });
template <typename F>
auto clCall(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cl::Error& e) {
    throw ClError(e.err(), what.empty() ? std::string(e.what()) : what + " [" + e.what() + "]");
  }
}

// Rethrows `e`; a cl::Error as the ClError naming its call.
[[noreturn]] void rethrowAsLibraryError(std::exception_ptr e);

}  // namespace vf
