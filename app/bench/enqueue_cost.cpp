// `vidfilter bench --enqueue-cost`: host time of the OpenCL calls the engine's submit thread
// makes per frame, each variant measured alone on the selected device. On a fast GPU the engine
// is bound by this host time (docs/PERFORMANCE.md), so this says which calls to avoid: events
// nobody reads, wait lists on the same in-order queue, waits on another queue's events, flushes,
// a profiling queue. Per variant: 2,000 calls after 200 warm-up, the queue finished every 64
// calls outside the timing; median and 99th percentile (nearest rank) of the per-call host time.
#include "app/bench/enqueue_cost.hpp"

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/cl/error.hpp"
#include "pipeline/engine_stats.hpp"

namespace vf::bench {
namespace {

using Clock = std::chrono::steady_clock;

const char* kNop =
    "__kernel void nop(__global uint* p, uint n) { if (get_global_id(0) == n) p[0] = 1u; }\n";

using Cost = EngineStats::Dist;

// Calls body(i) `calls` times after `warm` untimed ones; `sync` runs (untimed) every 64 calls.
Cost measure(const std::function<void(int)>& body, const std::function<void()>& sync,
             int calls = 2000, int warm = 200) {
  std::vector<double> us;
  us.reserve(std::size_t(calls));
  for (int i = 0; i < warm + calls; ++i) {
    if (i % 64 == 0) sync();
    const auto t0 = Clock::now();
    body(i);
    const double t = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (i >= warm) us.push_back(t);
  }
  sync();
  return distribution(std::move(us));
}

struct Row {
  std::string what;
  Cost c;
};

// What every variant calls: the nop kernel on 1024 work items, two small buffers, a profiling
// queue, a plain one and a third queue for cross-queue waits.
struct Rig {
  explicit Rig(ClContext& cl)
      : program(clCall("clBuildProgram(nop)",
                       [&] {
                         cl::Program p(cl.context(), kNop);
                         p.build({cl.device()});
                         return p;
                       })),
        k(clCall("clCreateKernel(nop)", [&] { return cl::Kernel(program, "nop"); })),
        buf(newBuffer(cl)),
        other(newBuffer(cl)),
        prof(cl.context(), cl.device(), CL_QUEUE_PROFILING_ENABLE),
        plain(cl.context(), cl.device(), 0),
        side(cl.context(), cl.device(), CL_QUEUE_PROFILING_ENABLE),
        host(4096, 1) {
    k.setArg(0, buf);
    k.setArg(1, cl_uint(0xFFFFFFFFu));
  }
  static cl::Buffer newBuffer(ClContext& cl) {
    return clCall("clCreateBuffer",
                  [&] { return cl::Buffer(cl.context(), CL_MEM_READ_WRITE, 4096); });
  }
  void syncAll() {
    prof.finish();
    plain.finish();
    side.finish();
  }
  Row row(const std::string& what, const std::function<void(int)>& body) {
    return {what, measure(body, [this] { syncAll(); })};
  }
  void kernel(cl::CommandQueue& q, const std::vector<cl::Event>* wait = nullptr,
              cl::Event* done = nullptr) {
    q.enqueueNDRangeKernel(k, cl::NullRange, global, local, wait, done);
  }

  cl::Program program;
  cl::Kernel k;
  cl::Buffer buf, other;
  cl::CommandQueue prof, plain, side;
  const cl::NDRange global{1024}, local{256};
  std::vector<unsigned char> host;
};

// Kernels with and without events, on a profiling queue and a plain one.
void kernelRows(Rig& r, std::vector<Row>& rows) {
  rows.push_back(
      r.row("kernel, no event, no wait (profiling queue)", [&](int) { r.kernel(r.prof); }));
  rows.push_back(r.row("kernel, no event (plain queue)", [&](int) { r.kernel(r.plain); }));
  rows.push_back(r.row("kernel + event (profiling queue)", [&](int) {
    cl::Event e;
    r.kernel(r.prof, nullptr, &e);
  }));
  rows.push_back(r.row("kernel + event (plain queue)", [&](int) {
    cl::Event e;
    r.kernel(r.plain, nullptr, &e);
  }));
}

// Wait lists: on the same in-order queue, and on another queue's marker.
void waitRows(Rig& r, std::vector<Row>& rows) {
  cl::Event prev;
  rows.push_back(r.row("kernel + event, waits on previous (same queue)", [&](int) {
    std::vector<cl::Event> w;
    if (prev()) w.push_back(prev);
    cl::Event e;
    r.kernel(r.prof, w.empty() ? nullptr : &w, &e);
    prev = e;
  }));
  rows.push_back(r.row("kernel + event, waits on other queue's event", [&](int) {
    cl::Event mark;
    r.side.enqueueMarkerWithWaitList(nullptr, &mark);
    r.side.flush();
    const std::vector<cl::Event> w{mark};
    cl::Event e;
    r.kernel(r.prof, &w, &e);
  }));
  rows.push_back(r.row("  (the marker + flush alone, other queue)", [&](int) {
    cl::Event mark;
    r.side.enqueueMarkerWithWaitList(nullptr, &mark);
    r.side.flush();
  }));
}

// Arguments, flushes and the small transfers of a frame's side outputs.
void otherRows(Rig& r, std::vector<Row>& rows) {
  rows.push_back(r.row("clSetKernelArg (buffer) x2", [&](int i) {
    r.k.setArg(0, (i & 1) ? r.buf : r.other);
    r.k.setArg(0, r.buf);
  }));
  rows.push_back(r.row("kernel, no event + clFlush", [&](int) {
    r.kernel(r.prof);
    r.prof.flush();
  }));
  rows.push_back(r.row("clEnqueueFillBuffer 1 KiB + event", [&](int) {
    cl::Event e;
    r.prof.enqueueFillBuffer(r.buf, cl_uint(0), 0, 1024, nullptr, &e);
  }));
  rows.push_back(r.row("clEnqueueReadBuffer 1 KiB non-blocking + event", [&](int) {
    cl::Event e;
    r.prof.enqueueReadBuffer(r.buf, CL_FALSE, 0, 1024, r.host.data(), nullptr, &e);
  }));
}

}  // namespace

int benchEnqueueCost(ClContext& cl) {
  Rig rig(cl);
  std::vector<Row> rows;
  kernelRows(rig, rows);
  waitRows(rig, rows);
  otherRows(rig, rows);
  std::printf("enqueue cost on %s (host time per call, us; 2000 calls after 200 warm-up)\n",
              cl.info().name.c_str());
  std::printf("  %-50s %8s %8s\n", "call", "median", "p99");
  for (const Row& r : rows) std::printf("  %-50s %8.2f %8.2f\n", r.what.c_str(), r.c.p50, r.c.p99);
  return 0;
}

}  // namespace vf::bench
