#pragma once
// The log lines' pattern on stderr: spdlog's pattern with %* for the message, whose control
// characters but tabs are shown as \xNN. Messages name paths, inputs and streams as the user or
// a file wrote them; a terminal never receives their escape sequences, and a name with a newline
// cannot start a line that looks like another message. A log message is one line.
#include <string>

namespace vf::app {

// Sets the default logger's pattern ("vidfilter: %^%l%$: %*").
void setLogPattern(const std::string& pattern);

}  // namespace vf::app
