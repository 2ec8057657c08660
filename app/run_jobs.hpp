#pragma once
// A run with several inputs (-i repeated, --inputs LIST, -o repeated or a {name}/{index}
// pattern), and `vidfilter batch`: a share of a list, each output written under a temporary
// name and renamed when complete, complete outputs skipped (a re-run or a requeued task of a
// job array redoes only what is missing).
#include "app/options.hpp"

namespace vf::app {

// Returns the exit status: 0 every input done (or skipped), 1 one failed at least (each named
// with its reason), 128 + the signal when stopped. Throws UsageError for what is wrong before
// any input starts (outputs that do not match the inputs, an output over an input).
int runJobs(const CommandLine& cl, const Settings& s);

}  // namespace vf::app
