#pragma once
// The outputs open for writing, counted, so that a process that must end early (a library that
// exits from one of its threads: Qt when the preview's X display goes away) can first stop the
// run and let them close with the frames done.
#include <chrono>

namespace vf::media {

void outputOpened();
void outputClosed();
int outputsOpen();
// Waits up to `limit` for every output to be closed; true when none is open.
bool waitForOutputsClosed(std::chrono::milliseconds limit);

}  // namespace vf::media
