#include "app/media/logged_errors.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace vf::media {

namespace {

std::mutex gMutex;
std::vector<LoggedErrors*> gWatched;

}  // namespace

LoggedErrors::LoggedErrors(const void* object) : object_(object) {
  const std::lock_guard<std::mutex> lock(gMutex);
  gWatched.push_back(this);
}

LoggedErrors::~LoggedErrors() {
  const std::lock_guard<std::mutex> lock(gMutex);
  gWatched.erase(std::remove(gWatched.begin(), gWatched.end(), this), gWatched.end());
}

std::string LoggedErrors::last() const {
  const std::lock_guard<std::mutex> lock(textMutex_);
  return last_;
}

void noteLoggedError(const void* object, const std::string& text) {
  if (!object) return;
  const std::lock_guard<std::mutex> lock(gMutex);
  for (LoggedErrors* w : gWatched) {
    if (w->object_ != object) continue;
    w->count_.fetch_add(1);
    const std::lock_guard<std::mutex> textLock(w->textMutex_);
    if (!text.empty()) w->last_ = text;
  }
}

}  // namespace vf::media
