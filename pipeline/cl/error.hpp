#pragma once
#include <stdexcept>
#include <string>

namespace vf {

// Name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or "CL_ERROR(<n>)" if unknown.
std::string clErrorName(int code);

// Every failure at the OpenCL boundary becomes one of these: the call that failed and the
// error's name, so a user reads "clEnqueueNDRangeKernel(blur_rows): CL_OUT_OF_RESOURCES".
class ClError : public std::runtime_error {
 public:
  ClError(int code, const std::string& call);
  int code() const { return code_; }

 private:
  int code_;
};

// Base for errors a user can fix (bad chain, bad parameter, no device): main prints what() alone.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ClError when code != CL_SUCCESS.
void checkCl(int code, const char* call);

// Runs a CLHPP call and rethrows cl::Error as ClError with the given context.
// Usage: clCall("clCreateBuffer(slot)", [&] { buf = cl::Buffer(...); });
template <typename F>
auto clCall(const std::string& what, F&& f) -> decltype(f());

}  // namespace vf

#include "pipeline/cl/opencl.hpp"

namespace vf {
template <typename F>
auto clCall(const std::string& what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cl::Error& e) {
    throw ClError(e.err(), what.empty() ? std::string(e.what()) : what + " [" + e.what() + "]");
  }
}
}  // namespace vf
