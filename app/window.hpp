#pragma once
// The preview's window: a plain Qt window on a GUI thread of its own, which paints whatever
// picture the preview renders for the window's current size, and hands over every key press as
// it comes (none is lost between two frames), a resize or a close. The preview's other threads
// only ask for a repaint. Open it only after probeDisplay() said yes: Qt aborts the process
// when it cannot reach the display.
#include <atomic>
#include <functional>
#include <memory>
#include <opencv2/core.hpp>
#include <string>

namespace vf::app {

// Key codes handed to Handlers::key: printable keys as their character ('q', '+', ' '), Escape
// 27, Tab '\t', Return '\r', and these for the rest.
namespace key {
constexpr int kLeft = 0x110000, kRight = 0x110001, kUp = 0x110002, kDown = 0x110003;
constexpr int kHome = 0x110004, kEnd = 0x110005, kPageUp = 0x110006, kPageDown = 0x110007;
constexpr int kF11 = 0x110008, kEscape = 27;
}  // namespace key

class PreviewWindow {
 public:
  struct Handlers {
    // The window's first size (inside), given the screen's work area less the window frame.
    std::function<cv::Size(cv::Size workArea)> firstSize;
    // The picture to show, exactly `size` (device pixels). Called on the GUI thread.
    std::function<cv::Mat(cv::Size size)> render;
    std::function<void(int key)> key;  // GUI thread, once per key press
    std::function<void()> closed;      // GUI thread: the user closed the window
  };

  // Starts the GUI thread and returns once the window is on the screen. Throws
  // std::runtime_error when Qt has no screen.
  PreviewWindow(const std::string& title, Handlers handlers);
  ~PreviewWindow();  // closes the window and ends the GUI thread
  PreviewWindow(const PreviewWindow&) = delete;
  PreviewWindow& operator=(const PreviewWindow&) = delete;

  void refresh();           // any thread: paint again soon (coalesced)
  void toggleFullScreen();  // any thread
  bool fullScreen() const { return fullScreen_; }
  cv::Size size() const;      // the inside's size at the last paint (device pixels)
  cv::Mat lastShown() const;  // the picture last painted

  struct Gui;  // the GUI thread's side (window.cpp)

 private:
  std::shared_ptr<Gui> gui_;
  std::atomic<bool> fullScreen_{false};
};

}  // namespace vf::app
