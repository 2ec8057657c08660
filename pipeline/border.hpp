#pragma once
#include <string>
#include <vector>

namespace vf {

// How a stage reads pixels outside the frame. One enum for every stage; the kernels get it as
// -DBORDER_<MODE> and use kernels/border.cl. With the frame "abcdefgh":
//
//   replicate    aaaaaa|abcdefgh|hhhhhhh
//   reflect      fedcba|abcdefgh|hgfedcb
//   reflect101   gfedcb|abcdefgh|gfedcba   (default, as OpenCV's BORDER_DEFAULT)
//   constant     iiiiii|abcdefgh|iiiiiii   (i = the stage's `value`)
//   wrap         cdefgh|abcdefgh|abcdefg
//
// The values match OpenCV's cv::BorderTypes so tests pass them straight to the reference.
enum class BorderMode { Constant = 0, Replicate = 1, Reflect = 2, Wrap = 3, Reflect101 = 4 };

const char* borderName(BorderMode b);
const char* borderDefine(BorderMode b);           // "BORDER_REFLECT101" for -D
BorderMode parseBorder(const std::string& name);  // throws std::invalid_argument
const std::vector<std::string>& borderNames();    // in the order of the enum values above
int cvBorderType(BorderMode b);

}  // namespace vf
