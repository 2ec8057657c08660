#pragma once
// SIGINT/SIGTERM: the first one asks for a clean stop (the watcher thread polls
// interruptSignal() and calls Engine::stop(), so nothing but an atomic store happens inside
// the handler); a second one exits at once with _exit(128 + signal).

namespace vf::app {

void installInterruptHandlers();
// The first signal received (SIGINT, SIGTERM), or 0.
int interruptSignal();

}  // namespace vf::app
