#include "app/log_pattern.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace vf::app {

namespace {

class EscapedMessage : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*time*/,
              spdlog::memory_buf_t& dest) override {
    static const char hex[] = "0123456789abcdef";
    for (const char c : msg.payload) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) {
        const char escaped[] = {'\\', 'x', hex[u >> 4], hex[u & 15]};
        dest.append(escaped, escaped + 4);
      } else {
        dest.push_back(c);
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<EscapedMessage>();
  }
};

}  // namespace

void setLogPattern(const std::string& pattern) {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<EscapedMessage>('*').set_pattern(pattern);
  spdlog::set_formatter(std::move(f));
}

}  // namespace vf::app
