#include "pipeline/border.hpp"

#include <stdexcept>

namespace vf {

const std::vector<std::string>& borderNames() {
  static const std::vector<std::string> names = {"constant", "replicate", "reflect", "wrap",
                                                 "reflect101"};
  return names;
}

const char* borderName(BorderMode b) { return borderNames()[static_cast<int>(b)].c_str(); }

const char* borderDefine(BorderMode b) {
  switch (b) {
    case BorderMode::Constant:
      return "BORDER_CONSTANT";
    case BorderMode::Replicate:
      return "BORDER_REPLICATE";
    case BorderMode::Reflect:
      return "BORDER_REFLECT";
    case BorderMode::Wrap:
      return "BORDER_WRAP";
    case BorderMode::Reflect101:
      return "BORDER_REFLECT101";
  }
  return "BORDER_REFLECT101";
}

BorderMode parseBorder(const std::string& name) {
  const auto& names = borderNames();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<BorderMode>(i);
  if (name == "reflect_101" || name == "default") return BorderMode::Reflect101;
  if (name == "zero") return BorderMode::Constant;
  throw std::invalid_argument("unknown border mode " + name);
}

int cvBorderType(BorderMode b) { return static_cast<int>(b); }

}  // namespace vf
