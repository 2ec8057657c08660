#include "app/media/network_error.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>

#include "pipeline/quote.hpp"

extern "C" {
#include <libavutil/error.h>
}

namespace vf::media {

namespace {

// The host of scheme://[user@]host[:port][/path][?query], or "" (none, or a bracketed IPv6
// literal, which needs no lookup).
std::string hostOf(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  std::string rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?"));
  if (const auto at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  if (rest.empty() || rest[0] == '[') return "";
  return rest.substr(0, rest.find(':'));
}

}  // namespace

std::string networkCause(const std::string& url, int err, const std::string& otherwise) {
  if (err == AVERROR(EADDRINUSE)) return "the address is in use (another program listens there)";
  const std::string host = hostOf(url);
  if (!host.empty()) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    addrinfo* found = nullptr;
    const int got = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (found) ::freeaddrinfo(found);
    if (got != 0 && got != EAI_AGAIN && got != EAI_SYSTEM)
      return "the host " + quote(host) + " is not known: " + ::gai_strerror(got);
  }
  return otherwise;
}

}  // namespace vf::media
