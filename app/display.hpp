#pragma once
// Whether a preview window can open, found out without touching Qt: Qt aborts the process
// (SIGABRT) when its platform plugin cannot connect, as with a DISPLAY left over from an ssh
// session whose server is gone. The probe connects to the display server itself (X11 through
// xcb, as Qt's xcb plugin does; Wayland through its socket) and hangs up.
#include <optional>
#include <string>

namespace vf::app {

struct DisplayStatus {
  bool usable = false;
  std::string platform;  // the Qt platform the window would use: "xcb", "wayland", "offscreen"
  std::string name;      // ":0", "wayland-0" ("" when none is set)
  std::string reason;    // why it is not usable, for the user ("" when usable)
};

// True when DISPLAY or WAYLAND_DISPLAY is set (nothing is contacted).
bool displayVariablesSet();

// Decides the platform from QT_QPA_PLATFORM (Qt 5's default: xcb), checks that Qt has its
// plugin, and for xcb and wayland connects to the server named by DISPLAY / WAYLAND_DISPLAY.
// A platform that needs no server (offscreen, vnc, ...) is taken as usable.
DisplayStatus probeDisplay();

// Whether the run shows the preview: `asked` is --preview / --no-preview (unset: the default,
// a preview when nothing is written and a display answers). Asked for without a usable
// display: UsageError naming why. Not asked for: a dead display means no preview (logged), and
// with something to write, or --no-preview, the display is not even probed.
bool decidePreview(std::optional<bool> asked, bool writesSomething);

}  // namespace vf::app
