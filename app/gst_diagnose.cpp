#include "app/gst_diagnose.hpp"

#include <gst/gst.h>

#include <sys/stat.h>

#include <memory>
#include <utility>

namespace vf::app {

namespace {

struct GstUnref {
  void operator()(GstElement* e) const {
    gst_element_set_state(e, GST_STATE_NULL);
    gst_object_unref(e);
  }
  void operator()(GstBus* b) const { gst_object_unref(b); }
  void operator()(GstMessage* m) const { gst_message_unref(m); }
};

// GError's text, freed.
std::string take(GError* err) {
  std::string text = err && err->message ? err->message : "";
  if (err) g_error_free(err);
  return text;
}

// The last line of an error's debug text: where GStreamer says what it could not open (the lines
// before it name the source file and the element's path).
std::string detail(gchar* debug) {
  std::string text = debug ? debug : "";
  g_free(debug);
  const auto nl = text.find_last_of('\n');
  return nl == std::string::npos ? "" : text.substr(nl + 1);
}

// The pipeline's appsinks keep one buffer, dropping the others: nobody pulls them here.
void boundSinks(GstElement* pipeline) {
  if (!GST_IS_BIN(pipeline)) return;
  GstIterator* it = gst_bin_iterate_sinks(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    GObject* sink = G_OBJECT(g_value_get_object(&item));
    if (g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "max-buffers"))
      g_object_set(sink, "max-buffers", 1U, "drop", TRUE, nullptr);
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
}

// `pipeline` parsed, or null and *error set: GStreamer not starting, or any error of the parse
// (no such element, a property it has not, a bad link: GStreamer hands back what it could make
// of the rest, a pipeline without its source or an appsink alone, which OpenCV then waits on
// forever or cannot open).
std::unique_ptr<GstElement, GstUnref> parsed(const std::string& pipeline, std::string* error) {
  GError* err = nullptr;
  if (!gst_init_check(nullptr, nullptr, &err)) {
    *error = "GStreamer could not start: " + take(err);
    return nullptr;
  }
  std::unique_ptr<GstElement, GstUnref> p(gst_parse_launch(pipeline.c_str(), &err));
  if (err) {
    *error = take(err);
    return nullptr;
  }
  return p;
}

// Calls `f` with each element of `pipeline`, inner bins' included.
template <typename F>
void forEachElement(GstElement* pipeline, F f) {
  if (!GST_IS_BIN(pipeline)) {
    f(pipeline);
    return;
  }
  GstIterator* it = gst_bin_iterate_recurse(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    f(GST_ELEMENT(g_value_get_object(&item)));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
}

// What an element is ("v4l2src"), not its name in the pipeline ("v4l2src0", numbered by every
// parse of the process).
std::string elementKind(GstElement* e) {
  GstElementFactory* factory = gst_element_get_factory(e);
  return factory ? GST_OBJECT_NAME(factory) : GST_OBJECT_NAME(e);
}

// A source element's readable string property `name`, or "" where it has none.
std::string sourceText(GstElement* e, const char* name) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), name);
  if (!spec || spec->value_type != G_TYPE_STRING || !(spec->flags & G_PARAM_READABLE) ||
      !GST_OBJECT_FLAG_IS_SET(e, GST_ELEMENT_FLAG_SOURCE))
    return "";
  gchar* value = nullptr;
  g_object_get(e, name, &value, nullptr);
  std::string text = value ? value : "";
  g_free(value);
  return text;
}

// A source element's device property naming a path that does not exist (v4l2src device=...).
std::string missingDevice(GstElement* pipeline) {
  std::string missing;
  forEachElement(pipeline, [&](GstElement* e) {
    const std::string device = sourceText(e, "device");
    struct stat st {};
    if (missing.empty() && !device.empty() && device[0] == '/' && ::stat(device.c_str(), &st) != 0)
      missing = elementKind(e) + ": device '" + device + "' does not exist";
  });
  return missing;
}

// What reaches the pipeline's appsink when it is not raw video: "audio/x-raw", "image/png"; ""
// when it is raw video or nothing got there.
std::string appsinkMediaType(GstElement* pipeline) {
  std::string type;
  forEachElement(pipeline, [&](GstElement* e) {
    if (!type.empty() || elementKind(e) != "appsink") return;
    GstPad* pad = gst_element_get_static_pad(e, "sink");
    if (!pad) return;
    if (GstCaps* caps = gst_pad_get_current_caps(pad)) {
      if (gst_caps_get_size(caps) > 0)
        type = gst_structure_get_name(gst_caps_get_structure(caps, 0));
      gst_caps_unref(caps);
    }
    gst_object_unref(pad);
  });
  return type == "video/x-raw" ? "" : type;
}

}  // namespace

std::string gstreamerParseError(const std::string& pipeline, bool* camera) {
  *camera = false;
  std::string error;
  const auto p = parsed(pipeline, &error);
  if (!p) return error.empty() ? "GStreamer made no pipeline of it" : error;
  const std::string missing = missingDevice(p.get());
  *camera = missing.find("'/dev/video") != std::string::npos;
  return missing;
}

std::vector<GstFileRead> gstreamerFilesRead(const std::string& pipeline) {
  std::string error;
  const auto p = parsed(pipeline, &error);
  std::vector<GstFileRead> files;
  if (p)
    forEachElement(p.get(), [&](GstElement* e) {
      GstFileRead f;
      f.location = sourceText(e, "location");
      if (f.location.empty()) return;
      const std::string kind = elementKind(e);
      if (kind == "multifilesrc") f.kind = GstFileRead::Kind::FramePattern;
      if (kind == "splitmuxsrc") f.kind = GstFileRead::Kind::Glob;
      files.push_back(std::move(f));
    });
  return files;
}

std::string gstreamerStartError(const std::string& pipeline) {
  std::string why;
  const auto p = parsed(pipeline, &why);
  if (!p) return why;
  boundSinks(p.get());
  std::unique_ptr<GstBus, GstUnref> bus(gst_element_get_bus(p.get()));
  gst_element_set_state(p.get(), GST_STATE_PLAYING);
  std::unique_ptr<GstMessage, GstUnref> m(gst_bus_timed_pop_filtered(
      bus.get(), 2 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS)));
  if (!m || GST_MESSAGE_TYPE(m.get()) != GST_MESSAGE_ERROR) {
    const std::string type = appsinkMediaType(p.get());
    if (type.empty()) return "";
    return "appsink receives " + type + ", not raw video (video/x-raw)" +
           (type.rfind("audio/", 0) == 0
                ? "; give appsink a video source's frames ('videotestsrc ! videoconvert ! appsink')"
                : "; decode it before appsink ('... ! decodebin ! videoconvert ! appsink')");
  }
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(m.get(), &error, &debug);
  const std::string where =
      GST_MESSAGE_SRC(m.get()) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(m.get())) : "";
  const std::string what = take(error), more = detail(debug);
  return (where.empty() ? "" : where + ": ") + what + (more.empty() ? "" : " (" + more + ")");
}

}  // namespace vf::app
