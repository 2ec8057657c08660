#include "app/display.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include <spdlog/spdlog.h>

#include <QLibraryInfo>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "app/options.hpp"

namespace vf::app {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Why xcb_connect failed, in a user's words.
std::string xcbReason(int error) {
  switch (error) {
    case XCB_CONN_CLOSED_PARSE_ERR:
      return "it is not a valid display name (host:display.screen, e.g. :0)";
    case XCB_CONN_CLOSED_INVALID_SCREEN:
      return "the server has no such screen";
    case XCB_CONN_CLOSED_MEM_INSUFFICIENT:
      return "out of memory while connecting";
    default:
      return "no X server answers there, or it refused the connection (over ssh: the "
             "forwarded display is gone; log in again with ssh -X, or unset DISPLAY)";
  }
}

DisplayStatus probeX11(DisplayStatus st) {
  st.name = env("DISPLAY");
  if (st.name.empty()) {
    st.reason = env("WAYLAND_DISPLAY").empty()
                    ? "neither DISPLAY nor WAYLAND_DISPLAY is set"
                    : "WAYLAND_DISPLAY is set but DISPLAY is not, and the window uses X11 "
                      "(XWayland); set DISPLAY, or QT_QPA_PLATFORM=wayland with Qt's Wayland "
                      "plugin installed (Debian: qtwayland5)";
    return st;
  }
  int screen = 0;
  xcb_connection_t* c = xcb_connect(nullptr, &screen);
  const int error = xcb_connection_has_error(c);
  xcb_disconnect(c);  // also frees a connection in the error state
  if (error) {
    st.reason = "the X display '" + st.name + "' (DISPLAY) cannot be used: " + xcbReason(error);
    return st;
  }
  st.usable = true;
  return st;
}

DisplayStatus probeWayland(DisplayStatus st) {
  st.name = env("WAYLAND_DISPLAY");
  if (st.name.empty()) st.name = "wayland-0";  // libwayland's default
  std::string path = st.name;
  if (path[0] != '/') {
    const std::string runtime = env("XDG_RUNTIME_DIR");
    if (runtime.empty()) {
      st.reason =
          "XDG_RUNTIME_DIR is not set, so the Wayland socket '" + st.name + "' cannot be found";
      return st;
    }
    path = runtime + "/" + path;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    st.reason = "the Wayland socket path '" + path + "' is too long";
    return st;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) {
    st.reason = "the Wayland display '" + st.name + "' (" + path +
                ") does not answer: " + std::strerror(err);
    return st;
  }
  st.usable = true;
  return st;
}

// Qt loads platform plugins from <plugins>/platforms/libq<name>.so; a missing one aborts too.
// Only checked where Qt looks by default (a user who sets a plugin path knows better).
bool pluginMissing(const std::string& platform) {
  if (!env("QT_QPA_PLATFORM_PLUGIN_PATH").empty() || !env("QT_PLUGIN_PATH").empty()) return false;
  const std::string dir = QLibraryInfo::location(QLibraryInfo::PluginsPath).toStdString();
  std::error_code ec;
  return !dir.empty() && std::filesystem::is_directory(dir + "/platforms", ec) &&
         !std::filesystem::exists(dir + "/platforms/libq" + platform + ".so", ec);
}

}  // namespace

bool displayVariablesSet() { return !env("DISPLAY").empty() || !env("WAYLAND_DISPLAY").empty(); }

DisplayStatus probeDisplay() {
  DisplayStatus st;
  // QT_QPA_PLATFORM: "name" or "name:options"; Qt 5 takes the first entry of a ';' list.
  std::string platform = env("QT_QPA_PLATFORM");
  platform = platform.substr(0, platform.find_first_of(":;"));
  st.platform = platform.empty() ? "xcb" : platform;
  if (pluginMissing(st.platform)) {
    st.reason = "Qt has no '" + st.platform + "' platform plugin" +
                (platform.empty() ? "" : " (QT_QPA_PLATFORM=" + platform + ")");
    return st;
  }
  if (st.platform == "xcb") return probeX11(st);
  if (st.platform.rfind("wayland", 0) == 0) return probeWayland(st);
  st.usable = true;  // offscreen, vnc, eglfs, ...: the user chose a platform without a server
  return st;
}

bool decidePreview(std::optional<bool> asked, bool writesSomething) {
  if (asked == false) return false;
  if (!asked && (writesSomething || !displayVariablesSet())) return false;
  const DisplayStatus st = probeDisplay();
  if (st.usable) return true;
  if (asked)
    throw UsageError("--preview needs a display, but " + st.reason +
                     "; write a file with -o instead, or run under xvfb-run");
  spdlog::info("no preview: {}", st.reason);
  return false;
}

}  // namespace vf::app
