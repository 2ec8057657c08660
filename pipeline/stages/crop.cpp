// crop: a window of the frame (x, y, w, h in pixels), as cv::Mat(frame, cv::Rect(x, y, w, h)).
// Later stages and the outputs take the window's size. The copy is one rectangular buffer copy
// (clEnqueueCopyBufferRect): the driver's own copy engine or blit kernel moves whole rows,
// with no kernel of ours to build.
#include <string>

#include "pipeline/error.hpp"
#include "pipeline/stages/stage_infos.hpp"

namespace vf {
namespace {

class CropStage : public Stage {
 public:
  CropStage() : Stage(cropStageInfo()) {}

  FrameDesc configure(StageContext&, const FrameDesc& in) override {
    const int x = params().integer("x"), y = params().integer("y");
    const int w = params().integer("w") ? params().integer("w") : in.width - x;
    const int h = params().integer("h") ? params().integer("h") : in.height - y;
    const std::string frame = std::to_string(in.width) + "x" + std::to_string(in.height);
    if (x >= in.width || y >= in.height)
      throw UserError("crop: the corner (" + std::to_string(x) + "," + std::to_string(y) +
                      ") lies outside the " + frame + " frame; give x < " +
                      std::to_string(in.width) + " and y < " + std::to_string(in.height));
    if (w <= 0 || h <= 0 || x + w > in.width || y + h > in.height)
      throw UserError("crop: the window " + std::to_string(w) + "x" + std::to_string(h) + " at (" +
                      std::to_string(x) + "," + std::to_string(y) + ") does not fit in the " +
                      std::to_string(in.width) + "x" + std::to_string(in.height) +
                      " frame; give x+w <= width and y+h <= height (w=0, h=0: to the edge)");
    in_ = in;
    out_ = {w, h, in.format};
    x_ = x;
    y_ = y;
    return out_;
  }

  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    std::vector<cl::Event> deps;
    for (const cl::Event& e : wait)
      if (e()) deps.push_back(e);
    const std::size_t cn = std::size_t(in_.channels());
    cl::Event e;
    try {
      q.enqueueCopyBufferRect(in, out, {std::size_t(x_) * cn, std::size_t(y_), 0}, {0, 0, 0},
                              {out_.rowBytes(), std::size_t(out_.height), 1}, in_.rowBytes(), 0,
                              out_.rowBytes(), 0, deps.empty() ? nullptr : &deps, &e);
    } catch (const cl::Error& err) {
      throw ClError(err.err(), "clEnqueueCopyBufferRect(crop)");
    }
    return {e, e};
  }

 private:
  FrameDesc in_, out_;
  int x_ = 0, y_ = 0;
};

}  // namespace

const StageInfo& cropStageInfo() {
  static const StageInfo info{
      "crop",
      "a window of the frame (as cv::Mat(frame, Rect(x, y, w, h))); later stages take its size",
      "gray, bgr, bgra -> same, window size",
      {intParam("x", "0", 0, 65535, "left edge of the window, in pixels"),
       intParam("y", "0", 0, 65535, "top edge of the window, in pixels"),
       intParam("w", "0", 0, 65535, "window width (0: to the right edge)"),
       intParam("h", "0", 0, 65535, "window height (0: to the bottom edge)")},
      [] { return std::make_unique<CropStage>(); }};
  return info;
}

}  // namespace vf
