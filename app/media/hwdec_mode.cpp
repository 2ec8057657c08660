#include "app/media/hwdec_mode.hpp"

#include "pipeline/quote.hpp"

namespace vf::media {

std::string checkHwdecMode(const std::string& mode) {
  for (const char* ok : {"auto", "none", "cuvid", "cuda", "vaapi"})
    if (mode == ok) return "";
  return "must be auto, none, cuvid, cuda or vaapi; got " + quote(mode);
}

}  // namespace vf::media
