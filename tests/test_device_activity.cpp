// A device's busy time (DeviceActivity): the union of the intervals its commands ran, against
// a direct count of every covered nanosecond, for intervals in any order, overlapping, nested,
// touching and apart; the bounded record of a long run; and two engines on one device recording
// into the device's one record.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "pipeline/cl/device_activity.hpp"
#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;
using namespace std::chrono_literals;

namespace {

// Every nanosecond of [0, span) some interval covers, counted one by one.
std::uint64_t coveredNs(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& intervals,
                        std::size_t span) {
  std::vector<bool> on(span, false);
  for (const auto& [a, b] : intervals)
    for (std::uint64_t t = a; t < b; ++t) on[t] = true;
  std::uint64_t n = 0;
  for (const bool b : on) n += b ? 1 : 0;
  return n;
}

TEST(DeviceActivity, BusyTimeIsTheUnionOfTheIntervals) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    const std::size_t span = 2000;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals;
    DeviceActivity a;
    const int count = 1 + int(rng() % 40);
    for (int k = 0; k < count; ++k) {
      const std::uint64_t start = rng() % span, length = rng() % 200;
      const std::uint64_t end = std::min<std::uint64_t>(span, start + length);
      intervals.emplace_back(start, end);
      a.add(start, end);
    }
    ASSERT_EQ(a.busyNs(), coveredNs(intervals, span)) << "round " << round;
  }
}

TEST(DeviceActivity, TouchingNestedAndEmptyIntervals) {
  DeviceActivity a;
  a.add(10, 20);
  a.add(20, 30);  // touching: one interval of 20
  EXPECT_EQ(a.busyNs(), 20u);
  a.add(12, 18);  // inside
  EXPECT_EQ(a.busyNs(), 20u);
  a.add(5, 5);    // empty
  a.add(40, 35);  // reversed: nothing
  EXPECT_EQ(a.busyNs(), 20u);
  a.add(0, 100);  // covers everything
  EXPECT_EQ(a.busyNs(), 100u);
}

// A long run: far more intervals than the record keeps, held in bounded memory, the total
// exact, and recent ones still merge.
TEST(DeviceActivity, LongRunsStayExactAndBounded) {
  DeviceActivity a;
  const std::uint64_t n = 50000;
  std::size_t most = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    a.add(10 * k, 10 * k + 4);  // 4 busy of every 10
    most = std::max(most, a.held());
  }
  EXPECT_EQ(a.busyNs(), 4 * n);
  EXPECT_LE(most, DeviceActivity::kKeep);
  EXPECT_LT(a.held(), n);
  a.add(10 * (n - 100), 10 * n);  // the last 100 periods wholly busy
  EXPECT_EQ(a.busyNs(), 4 * n + 6 * 100);
  // The first period again, whole, long after its time: the record may have folded it away
  // (then it adds nothing) or merge it (6 more); never more.
  a.add(0, 10);
  EXPECT_GE(a.busyNs(), 4 * n + 6 * 100);
  EXPECT_LE(a.busyNs(), 4 * n + 6 * 100 + 6);
}

// Two engines on one context (two inputs on one device), every frame timed: both record into
// the device's one record, which covers at least the longest frame's commands and never more
// than the wall time of the runs.
TEST(DeviceActivity, TwoEnginesOnOneDeviceRecordIntoOneRecord) {
  const std::shared_ptr<ClContext> cl = sharedContext();
  const std::uint64_t before = cl->activity().busyNs();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> runs;
  double longestMs = 0;
  std::mutex m;
  for (int k = 0; k < 2; ++k)
    runs.emplace_back([&] {
      TestSource source(StreamPlan::uniform(80, kSmall));
      CollectSink sink;
      EngineOptions options = engineOptions(3);
      options.timingEvery = 1;
      Engine engine(cl, Chain::parse(kChain), options);
      engine.run(source, sink);
      std::lock_guard<std::mutex> lock(m);
      for (const auto& f : sink.frames()) {
        double ms = f.stats.uploadMs + f.stats.downloadMs;
        for (const double s : f.stats.stageMs) ms += s;
        longestMs = std::max(longestMs, ms);
      }
    });
  {
    Watchdog dog(120s);
    for (auto& t : runs) t.join();
  }
  const double wallNs =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const double busyNs = double(cl->activity().busyNs() - before);
  EXPECT_GE(busyNs, 0.99 * longestMs * 1e6);
  // The device's clock and the host's may differ in rate by a little.
  EXPECT_LE(busyNs, 1.01 * wallNs);
}

}  // namespace
