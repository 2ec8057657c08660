#include "app/media/network_error.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>

#include "app/media/av.hpp"
#include "pipeline/quote.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/error.h>
}

namespace vf::media {

namespace {

// The host of a URL, as FFmpeg's protocols read it ("" for none).
std::string hostOf(const std::string& url) {
  char proto[64], auth[256], host[1024], path[1024];
  int port = -1;
  av_url_split(proto, sizeof proto, auth, sizeof auth, host, sizeof host, &port, path, sizeof path,
               url.c_str());
  return host;
}

// "the host 'x.invalid' is not known: ..." where `url`'s host name does not resolve, else "".
std::string unknownHost(const std::string& url) {
  const std::string host = hostOf(url);
  if (host.empty()) return "";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* found = nullptr;
  const int got = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found) ::freeaddrinfo(found);
  if (got == 0 || got == EAI_AGAIN || got == EAI_SYSTEM) return "";
  return "the host " + quote(host) + " is not known: " + ::gai_strerror(got);
}

}  // namespace

std::string networkFailure(const std::string& url, int err, const std::string& otherwise) {
  if (err == AVERROR(EADDRINUSE))
    return avError(err) + " (the address is in use (another program listens there))";
  // A name that does not resolve is the whole story; FFmpeg calls it an I/O error.
  if (std::string host = unknownHost(url); !host.empty()) return host;
  return avError(err) + " (" + otherwise + ")";
}

}  // namespace vf::media
