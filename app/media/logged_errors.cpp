#include "app/media/logged_errors.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace vf::media {

namespace {

std::mutex gMutex;
std::vector<std::pair<const void*, std::atomic<int>*>> gWatched;

}  // namespace

LoggedErrors::LoggedErrors(const void* object) : object_(object) {
  const std::lock_guard<std::mutex> lock(gMutex);
  gWatched.emplace_back(object_, &count_);
}

LoggedErrors::~LoggedErrors() {
  const std::lock_guard<std::mutex> lock(gMutex);
  gWatched.erase(std::remove_if(gWatched.begin(), gWatched.end(),
                                [&](const auto& w) { return w.second == &count_; }),
                 gWatched.end());
}

void countLoggedError(const void* object) {
  if (!object) return;
  const std::lock_guard<std::mutex> lock(gMutex);
  for (const auto& [watched, count] : gWatched)
    if (watched == object) count->fetch_add(1);
}

}  // namespace vf::media
