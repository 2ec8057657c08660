#pragma once
// The -D options of a kernel build, written in the order given:
//   BuildOptions().define("RADIUS", 5).define("ROW_T", "float").define("BORDER_WRAP").str()
//   == "-DRADIUS=5 -DROW_T=float -DBORDER_WRAP"
// A bool is written as 1 or 0, the way the kernels test their flags (#if ALIGNED).
#include <string>
#include <string_view>
#include <type_traits>

namespace vf {

class BuildOptions {
 public:
  // -DNAME
  BuildOptions& define(std::string_view name) { return append(name, {}); }
  // -DNAME=value
  BuildOptions& define(std::string_view name, std::string_view value) {
    return append(name, value);
  }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  BuildOptions& define(std::string_view name, T value) {
    if constexpr (std::is_same_v<T, bool>)
      return append(name, value ? "1" : "0");
    else
      return append(name, std::to_string(value));
  }
  // -DNAME only when `on`.
  BuildOptions& defineIf(bool on, std::string_view name) { return on ? define(name) : *this; }

  const std::string& str() const { return text_; }

 private:
  BuildOptions& append(std::string_view name, std::string_view value) {
    if (!text_.empty()) text_ += ' ';
    text_ += "-D";
    text_ += name;
    if (!value.empty()) {
      text_ += '=';
      text_ += value;
    }
    return *this;
  }
  std::string text_;
};

}  // namespace vf
