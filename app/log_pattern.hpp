#pragma once
// The log lines' pattern on stderr: spdlog's pattern with %* for the message, whose control
// characters but newlines and tabs are shown as \xNN. Messages name paths, inputs and streams as
// the user or a file wrote them; a terminal never receives their escape sequences.
#include <string>

namespace vf::app {

// Sets the default logger's pattern ("vidfilter: %^%l%$: %*").
void setLogPattern(const std::string& pattern);

}  // namespace vf::app
