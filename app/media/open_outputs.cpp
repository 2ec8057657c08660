#include "app/media/open_outputs.hpp"

#include <condition_variable>
#include <mutex>

namespace vf::media {

namespace {
std::mutex gMutex;
std::condition_variable gClosed;
int gOpen = 0;
}  // namespace

void outputOpened() {
  std::lock_guard<std::mutex> lock(gMutex);
  ++gOpen;
}

void outputClosed() {
  {
    std::lock_guard<std::mutex> lock(gMutex);
    --gOpen;
  }
  gClosed.notify_all();
}

int outputsOpen() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gOpen;
}

bool waitForOutputsClosed(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(gMutex);
  return gClosed.wait_for(lock, limit, [] { return gOpen <= 0; });
}

}  // namespace vf::media
