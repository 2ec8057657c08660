#pragma once
// Why a network URL could not be opened, in the user's terms: a host name that does not resolve,
// an address another program listens on, or (else) the hint the caller gives.
#include <string>

namespace vf::media {

// What failed opening `url` (`err`, an FFmpeg error), for a message: "the host 'x.invalid' is
// not known: Name or service not known" alone; else FFmpeg's error and its cause in brackets,
// an address in use named as such, any other the caller's hint (`otherwise`): "Connection
// refused (nothing listens there, or a wrong address)".
std::string networkFailure(const std::string& url, int err, const std::string& otherwise);

}  // namespace vf::media
