#include "app/gst_errors.hpp"

#include <gst/gst.h>

#include <map>
#include <mutex>

namespace vf::app {

namespace {

// The pipelines each watch noted, and the first error posted in each.
struct Registry {
  std::mutex m;
  int nextId = 0;
  std::map<const GstObject*, int> watchOf;  // a pipeline -> its watch
  std::map<int, std::string> errorOf;       // a watch -> its first error
};

Registry& registry() {
  static Registry r;
  return r;
}

thread_local int notingFor = -1;  // the watch noting this thread's new pipelines

// The hooks' signatures (GStreamer's gsttracerutils.h, not installed).
void elementNew(GObject* /*tracer*/, GstClockTime /*ts*/, GstElement* element) {
  if (notingFor < 0 || !GST_IS_PIPELINE(element)) return;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.m);
  r.watchOf[GST_OBJECT(element)] = notingFor;
}

void postMessagePre(GObject* /*tracer*/, GstClockTime /*ts*/, GstElement* element,
                    GstMessage* message) {
  if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ERROR) return;
  GstObject* top = GST_OBJECT(gst_object_ref(element));
  while (GstObject* parent = gst_object_get_parent(top)) {
    gst_object_unref(top);
    top = parent;
  }
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &err, &debug);
  const std::string what = std::string(GST_OBJECT_NAME(element)) + ": " +
                           (err && err->message ? err->message : "an error");
  if (err) g_error_free(err);
  g_free(debug);
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.m);
    const auto it = r.watchOf.find(top);
    if (it != r.watchOf.end()) r.errorOf.emplace(it->second, what);  // the first stays
  }
  gst_object_unref(top);
}

// A tracer of our own, holding the hooks (GstTracer is abstract).
struct WatchTracer {
  GstTracer parent;
};
struct WatchTracerClass {
  GstTracerClass parent;
};

G_DEFINE_TYPE(WatchTracer, watch_tracer, GST_TYPE_TRACER)

void watch_tracer_class_init(WatchTracerClass* /*klass*/) {}

void watch_tracer_init(WatchTracer* self) {
  gst_tracing_register_hook(GST_TRACER(self), "element-new", G_CALLBACK(elementNew));
  gst_tracing_register_hook(GST_TRACER(self), "element-post-message-pre",
                            G_CALLBACK(postMessagePre));
}

void installTracer() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!gst_is_initialized()) gst_init(nullptr, nullptr);
    // Kept for the process: the tracing registry holds its hooks.
    g_object_new(watch_tracer_get_type(), nullptr);
  });
}

}  // namespace

GstErrorWatch::GstErrorWatch() {
  installTracer();
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.m);
  id_ = r.nextId++;
  notingFor = id_;
}

GstErrorWatch::~GstErrorWatch() {
  if (notingFor == id_) notingFor = -1;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.m);
  for (auto it = r.watchOf.begin(); it != r.watchOf.end();)
    it = it->second == id_ ? r.watchOf.erase(it) : std::next(it);
  r.errorOf.erase(id_);
}

void GstErrorWatch::stopNoting() {
  if (notingFor == id_) notingFor = -1;
}

std::string GstErrorWatch::firstError() const {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.m);
  const auto it = r.errorOf.find(id_);
  return it == r.errorOf.end() ? "" : it->second;
}

}  // namespace vf::app
