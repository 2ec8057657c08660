#pragma once
// Errors GStreamer's elements post on their pipelines' buses. OpenCV's capture does not pass
// them on: a pipeline that fails mid-stream (a source that loses its device, a decoder that
// meets damage, any element's error) ends its reads as one that reached its end does. A tracer
// hook sees every message an element posts; the errors of the pipelines a thread made while a
// watch was noting are kept for that watch.
#include <string>

namespace vf::app {

class GstErrorWatch {
 public:
  // Notes the pipelines this thread makes until stopNoting() (GStreamer initialised).
  GstErrorWatch();
  ~GstErrorWatch();
  GstErrorWatch(const GstErrorWatch&) = delete;
  GstErrorWatch& operator=(const GstErrorWatch&) = delete;

  void stopNoting();
  // The first error an element of those pipelines posted: "<element>: <message>", "" if none.
  std::string firstError() const;

 private:
  int id_;
};

}  // namespace vf::app
