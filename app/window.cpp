#include "app/window.hpp"

#include <spdlog/spdlog.h>
#include <xcb/xcb.h>

#include <QAbstractNativeEventFilter>
#include <QGuiApplication>
#include <QImage>
#include <QKeyEvent>
#include <QPainter>
#include <QRasterWindow>
#include <QScreen>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <clocale>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "app/interrupt.hpp"
#include "app/media/open_outputs.hpp"

namespace vf::app {

namespace {

std::mutex gQtSaidMutex;
std::string gQtSaid;  // Qt's last warning: why it may end the process

std::atomic<std::thread::id> gWindowThread{};

// The preview's display went away (Qt says "The X11 connection broke" on the window's thread,
// then calls exit(1) there). The run is stopped first, as a hang-up stops it, and the process
// ends once every output is closed with the frames done.
[[noreturn]] void displayGone(const std::string& said) {
  const int open = media::outputsOpen();
  spdlog::error("the preview's display went away{}{}", said.empty() ? "" : " (Qt: " + said + ")",
                open ? "; stopping, and closing the outputs with the frames done" : "");
  requestStop(SIGHUP);
  if (open && !media::waitForOutputsClosed(std::chrono::seconds(20)))
    spdlog::error("the outputs did not close within 20 s; they may not play");
  else if (open)
    spdlog::warn("every output is closed with the frames done");
  std::fflush(stderr);
  std::_Exit(1);
}

// Qt's own messages ("XDG_RUNTIME_DIR not set") are noise to a user: debug level. A broken
// connection to the display is acted on here, before Qt's exit(1) runs any destructor.
void qtMessage(QtMsgType type, const QMessageLogContext&, const QString& msg) {
  const std::string text = msg.toStdString();
  if (type == QtFatalMsg) {
    spdlog::error("Qt: {}", text);
    return;
  }
  spdlog::debug("Qt: {}", text);
  if (type == QtWarningMsg || type == QtCriticalMsg) {
    std::lock_guard<std::mutex> lock(gQtSaidMutex);
    gQtSaid = text;
  }
  if (type == QtWarningMsg && text.find("connection broke") != std::string::npos &&
      std::this_thread::get_id() == gWindowThread.load())
    displayGone(text);
}

// Any other exit() from the window's thread while the program runs: the same stop.
void onExitFromTheWindow() {
  if (std::this_thread::get_id() != gWindowThread.load()) return;  // the program's own end
  std::string said;
  {
    std::lock_guard<std::mutex> lock(gQtSaidMutex);
    said = gQtSaid;
  }
  displayGone(said);
}

int mapKey(const QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Left:
      return key::kLeft;
    case Qt::Key_Right:
      return key::kRight;
    case Qt::Key_Up:
      return key::kUp;
    case Qt::Key_Down:
      return key::kDown;
    case Qt::Key_Home:
      return key::kHome;
    case Qt::Key_End:
      return key::kEnd;
    case Qt::Key_PageUp:
      return key::kPageUp;
    case Qt::Key_PageDown:
      return key::kPageDown;
    case Qt::Key_F11:
      return key::kF11;
    case Qt::Key_Escape:
      return key::kEscape;
    case Qt::Key_Tab:
      return '\t';
    case Qt::Key_Backtab:
      return '[';
    case Qt::Key_Return:
    case Qt::Key_Enter:
      return '\r';
    default:
      break;
  }
  const QString t = e->text();
  if (t.size() == 1 && t[0].unicode() >= 32 && t[0].unicode() < 127) return t[0].unicode();
  return -1;  // a modifier alone, or a key the preview has no use for
}

}  // namespace

struct PreviewWindow::Gui {
  Handlers handlers;
  std::string title;
  std::thread thread;

  std::mutex mu;  // guards everything below
  std::condition_variable cv;
  bool ready = false;
  std::string error;
  QRasterWindow* window = nullptr;  // lives on the GUI thread; null once it is gone
  QRect normal;                     // the window's place before full screen (GUI thread)
  cv::Mat shown;
  cv::Size size;
  // What other threads ask of the GUI thread, done when it wakes (wake()).
  std::atomic<bool> refreshPending{false}, quitWanted{false};
  bool closeSeen = false;                 // the GUI thread's: the window got its close event
  std::atomic<int> fullScreenWanted{-1};  // 1 full screen, 0 back, -1 nothing asked

  // Wakes the GUI thread to look at what was asked (dropped when the GUI is gone). An event,
  // which Qt owns once posted, rather than a posted functor.
  void wake() {
    std::lock_guard<std::mutex> lock(mu);
    if (window) QCoreApplication::postEvent(window, new QEvent(kWake));
  }
  void onWake();  // GUI thread
  void run();

  static constexpr QEvent::Type kWake = static_cast<QEvent::Type>(QEvent::User + 1);
};

namespace {

class Window : public QRasterWindow {
 public:
  explicit Window(PreviewWindow::Gui& gui) : gui_(gui) {}

 protected:
  void paintEvent(QPaintEvent*) override {
    gui_.refreshPending = false;
    const qreal dpr = devicePixelRatio();
    const cv::Size size(int(width() * dpr), int(height() * dpr));
    if (size.width <= 0 || size.height <= 0) return;
    cv::Mat img;
    try {
      img = gui_.handlers.render(size);
    } catch (const std::exception& e) {  // a picture not drawn is no reason to end the run
      spdlog::warn("preview: could not draw a {}x{} picture: {}", size.width, size.height,
                   e.what());
    }
    QPainter p(this);
    if (img.type() != CV_8UC3 || img.size() != size) {
      p.fillRect(QRect(0, 0, width(), height()), Qt::black);
      return;
    }
    QImage q(img.data, img.cols, img.rows, int(img.step), QImage::Format_BGR888);
    q.setDevicePixelRatio(dpr);
    p.drawImage(0, 0, q);
    std::lock_guard<std::mutex> lock(gui_.mu);
    gui_.shown = img;
    gui_.size = size;
  }
  void keyPressEvent(QKeyEvent* e) override {
    const int k = mapKey(e);
    if (k >= 0) gui_.handlers.key(k);
  }
  bool event(QEvent* e) override {
    if (e->type() == PreviewWindow::Gui::kWake) {
      gui_.onWake();
      return true;
    }
    if (e->type() == QEvent::Close && gui_.handlers.closed) {
      gui_.closeSeen = true;  // its window is destroyed next: that is no other program's doing
      gui_.handlers.closed();
    }
    return QRasterWindow::event(e);
  }

 private:
  PreviewWindow::Gui& gui_;
};

// The window destroyed by another program (xdotool windowclose, a window manager's "destroy"):
// X tells its owner by DestroyNotify, which Qt passes by; without this the run would wait for
// a q that no window can take. Taken as the window closed.
class DestroyWatch : public QAbstractNativeEventFilter {
 public:
  DestroyWatch(WId id, const bool& closeSeen, std::function<void()> closed)
      : id_(id), closeSeen_(closeSeen), closed_(std::move(closed)) {}
  bool nativeEventFilter(const QByteArray& type, void* message, long*) override {
    if (type != "xcb_generic_event_t" || !closed_) return false;
    const auto* e = static_cast<const xcb_generic_event_t*>(message);
    if ((e->response_type & 0x7F) == XCB_DESTROY_NOTIFY &&
        reinterpret_cast<const xcb_destroy_notify_event_t*>(e)->window == id_) {
      if (!closeSeen_)
        spdlog::info("preview: the window was destroyed by another program; stopping");
      closed_();
      closed_ = nullptr;  // once
    }
    return false;
  }

 private:
  WId id_;
  const bool& closeSeen_;  // the window was closed (its close button): not destroyed by another
  std::function<void()> closed_;
};

}  // namespace

void PreviewWindow::Gui::run() {
  static int argc = 1;
  static char name[] = "vidfilter";
  static char* argv[] = {name, nullptr};
  qInstallMessageHandler(qtMessage);
  gWindowThread = std::this_thread::get_id();
  static const bool exitHandled = std::atexit(onExitFromTheWindow) == 0;
  (void)exitHandled;
  QGuiApplication qapp(argc, argv);
  std::setlocale(LC_NUMERIC, "C");  // Qt set the user's locale; numbers stay "1.5"
  QGuiApplication::setQuitOnLastWindowClosed(false);
  QScreen* screen = QGuiApplication::primaryScreen();
  if (!screen) {
    gWindowThread = std::thread::id();
    std::lock_guard<std::mutex> lock(mu);
    error = "the display has no screen";
    ready = true;
    cv.notify_all();
    return;
  }
  // The work area less a window frame's usual size (title bar, borders).
  const QRect avail = screen->availableGeometry();
  const qreal dpr = screen->devicePixelRatio();
  const cv::Size work(std::max(160, int((avail.width() - 16) * dpr)),
                      std::max(120, int((avail.height() - 40) * dpr)));
  cv::Size first = handlers.firstSize(work);
  if (first.width > work.width || first.height > work.height) {  // --window past the screen
    const cv::Size asked = first;
    first = {std::min(first.width, work.width), std::min(first.height, work.height)};
    spdlog::info("preview: {}x{} does not fit the screen's work area; the window opens at {}x{}",
                 asked.width, asked.height, first.width, first.height);
  }
  Window w(*this);
  w.setTitle(QString::fromStdString(title));
  w.setMinimumSize(QSize(240, 160));
  const QSize logical(int(first.width / dpr), int(first.height / dpr));
  w.resize(logical);
  w.setPosition(avail.x() + std::max(0, (avail.width() - logical.width()) / 2),
                avail.y() + std::max(0, (avail.height() - logical.height() - 24) / 2));
  w.show();
  DestroyWatch watch(w.winId(), closeSeen, handlers.closed);
  if (QGuiApplication::platformName() == "xcb") qapp.installNativeEventFilter(&watch);
  {
    std::lock_guard<std::mutex> lock(mu);
    window = &w;
    ready = true;
  }
  cv.notify_all();
  qapp.exec();
  gWindowThread = std::thread::id();
  std::lock_guard<std::mutex> lock(mu);
  window = nullptr;
}

PreviewWindow::PreviewWindow(const std::string& title, Handlers handlers)
    : gui_(std::make_shared<Gui>()) {
  gui_->handlers = std::move(handlers);
  gui_->title = title;
  gui_->thread = std::thread([g = gui_] { g->run(); });
  std::unique_lock<std::mutex> lock(gui_->mu);
  gui_->cv.wait(lock, [&] { return gui_->ready; });
  if (!gui_->error.empty()) {
    const std::string why = gui_->error;
    lock.unlock();
    gui_->thread.join();
    throw std::runtime_error("preview window: " + why);
  }
}

void PreviewWindow::Gui::onWake() {
  if (quitWanted) {
    QGuiApplication::quit();
    return;
  }
  const int full = fullScreenWanted.exchange(-1);
  if (full >= 0 && window) {
    // The geometry too: without a window manager (or with one that ignores the request) the
    // fullscreen state alone changes nothing.
    if (full) {
      normal = window->geometry();
      window->showFullScreen();
      if (QScreen* s = window->screen()) window->setGeometry(s->geometry());
    } else {
      window->showNormal();
      if (normal.isValid()) window->setGeometry(normal);
    }
  }
  if (refreshPending && window) window->update();
}

PreviewWindow::~PreviewWindow() {
  gui_->quitWanted = true;
  gui_->wake();
  if (gui_->thread.joinable()) gui_->thread.join();
}

void PreviewWindow::refresh() {
  if (gui_->refreshPending.exchange(true)) return;  // one already on its way
  gui_->wake();
}

void PreviewWindow::toggleFullScreen() {
  const bool full = !fullScreen_;
  fullScreen_ = full;
  gui_->fullScreenWanted = full ? 1 : 0;
  gui_->wake();
}

cv::Size PreviewWindow::size() const {
  std::lock_guard<std::mutex> lock(gui_->mu);
  return gui_->size;
}

cv::Mat PreviewWindow::lastShown() const {
  std::lock_guard<std::mutex> lock(gui_->mu);
  return gui_->shown;
}

}  // namespace vf::app
