#pragma once
// Why a network URL could not be opened, in the user's terms: a host name that does not resolve,
// an address another program listens on, or (else) the hint the caller gives.
#include <string>

namespace vf::media {

// The cause of `err` (an FFmpeg error) opening `url`: "the host 'x.invalid' is not known (Name
// or service not known)", "the address is in use (another program listens there)", or
// `otherwise`.
std::string networkCause(const std::string& url, int err, const std::string& otherwise);

}  // namespace vf::media
