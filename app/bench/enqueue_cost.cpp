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

}  // namespace

int benchEnqueueCost(ClContext& cl) {
  const cl::Context& ctx = cl.context();
  const cl::Device& dev = cl.device();
  cl::Program program = clCall("clBuildProgram(nop)", [&] {
    cl::Program p(ctx, kNop);
    p.build({dev});
    return p;
  });
  cl::Kernel k = clCall("clCreateKernel(nop)", [&] { return cl::Kernel(program, "nop"); });
  cl::Buffer buf =
      clCall("clCreateBuffer", [&] { return cl::Buffer(ctx, CL_MEM_READ_WRITE, 4096); });
  cl::Buffer other =
      clCall("clCreateBuffer", [&] { return cl::Buffer(ctx, CL_MEM_READ_WRITE, 4096); });
  k.setArg(0, buf);
  k.setArg(1, cl_uint(0xFFFFFFFFu));
  cl::CommandQueue prof(ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  cl::CommandQueue plain(ctx, dev, 0);
  cl::CommandQueue side(ctx, dev, CL_QUEUE_PROFILING_ENABLE);
  const cl::NDRange global(1024), local(256);
  std::vector<unsigned char> host(4096, 1);

  struct Row {
    std::string what;
    Cost c;
  };
  std::vector<Row> rows;
  const auto syncAll = [&] {
    prof.finish();
    plain.finish();
    side.finish();
  };
  cl::Event prev;
  rows.push_back(
      {"kernel, no event, no wait (profiling queue)",
       measure([&](int) { prof.enqueueNDRangeKernel(k, cl::NullRange, global, local); }, syncAll)});
  rows.push_back({"kernel, no event (plain queue)",
                  measure([&](int) { plain.enqueueNDRangeKernel(k, cl::NullRange, global, local); },
                          syncAll)});
  rows.push_back({"kernel + event (profiling queue)",
                  measure(
                      [&](int) {
                        cl::Event e;
                        prof.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &e);
                      },
                      syncAll)});
  rows.push_back({"kernel + event (plain queue)",
                  measure(
                      [&](int) {
                        cl::Event e;
                        plain.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &e);
                      },
                      syncAll)});
  rows.push_back({"kernel + event, waits on previous (same queue)",
                  measure(
                      [&](int) {
                        std::vector<cl::Event> w;
                        if (prev()) w.push_back(prev);
                        cl::Event e;
                        prof.enqueueNDRangeKernel(k, cl::NullRange, global, local,
                                                  w.empty() ? nullptr : &w, &e);
                        prev = e;
                      },
                      syncAll)});
  prev = cl::Event();
  rows.push_back({"kernel + event, waits on other queue's event",
                  measure(
                      [&](int) {
                        cl::Event mark;
                        side.enqueueMarkerWithWaitList(nullptr, &mark);
                        side.flush();
                        const std::vector<cl::Event> w{mark};
                        cl::Event e;
                        prof.enqueueNDRangeKernel(k, cl::NullRange, global, local, &w, &e);
                      },
                      syncAll)});
  rows.push_back({"  (the marker + flush alone, other queue)", measure(
                                                                   [&](int) {
                                                                     cl::Event mark;
                                                                     side.enqueueMarkerWithWaitList(
                                                                         nullptr, &mark);
                                                                     side.flush();
                                                                   },
                                                                   syncAll)});
  rows.push_back({"clSetKernelArg (buffer) x2", measure(
                                                    [&](int i) {
                                                      k.setArg(0, (i & 1) ? buf : other);
                                                      k.setArg(0, buf);
                                                    },
                                                    syncAll)});
  rows.push_back({"kernel, no event + clFlush", measure(
                                                    [&](int) {
                                                      prof.enqueueNDRangeKernel(k, cl::NullRange,
                                                                                global, local);
                                                      prof.flush();
                                                    },
                                                    syncAll)});
  rows.push_back({"clEnqueueFillBuffer 1 KiB + event",
                  measure(
                      [&](int) {
                        cl::Event e;
                        prof.enqueueFillBuffer(buf, cl_uint(0), 0, 1024, nullptr, &e);
                      },
                      syncAll)});
  rows.push_back({"clEnqueueReadBuffer 1 KiB non-blocking + event",
                  measure(
                      [&](int) {
                        cl::Event e;
                        prof.enqueueReadBuffer(buf, CL_FALSE, 0, 1024, host.data(), nullptr, &e);
                      },
                      syncAll)});

  std::printf("enqueue cost on %s (host time per call, us; 2000 calls after 200 warm-up)\n",
              cl.info().name.c_str());
  std::printf("  %-50s %8s %8s\n", "call", "median", "p99");
  for (const Row& r : rows) std::printf("  %-50s %8.2f %8.2f\n", r.what.c_str(), r.c.p50, r.c.p99);
  return 0;
}

}  // namespace vf::bench
