#pragma once
// The preview's colours (BGR, as OpenCV draws) and sizes. The tests look for these colours in
// screenshots, so each one means one thing.
#include <opencv2/core.hpp>

namespace vf::app::theme {

inline const cv::Scalar kPanel(34, 30, 28);        // the panel's own background
inline const cv::Scalar kSection(46, 41, 38);      // a section's plot area inside it
inline const cv::Scalar kRule(70, 64, 60);         // grid lines, separators, bar troughs
inline const cv::Scalar kText(236, 236, 236);      // values
inline const cv::Scalar kDim(160, 154, 150);       // labels, units, disabled stages
inline const cv::Scalar kTitle(230, 200, 110);     // section titles (light blue)
inline const cv::Scalar kSelected(80, 215, 255);   // the stage +/- acts on (amber)
inline const cv::Scalar kDevice(150, 200, 60);     // device time: graph area and stage bars
inline const cv::Scalar kLatency(60, 150, 255);    // capture-to-screen latency line (orange)
inline const cv::Scalar kBudget(90, 90, 240);      // the frame budget line and overruns (red)
inline const cv::Scalar kP99(245, 245, 245);       // the p99 tick on a stage bar
inline const cv::Scalar kProgress(230, 170, 70);   // the position bar of a file (blue)
inline const cv::Scalar kMessage(120, 230, 255);   // transient messages (yellow)
inline const cv::Scalar kLetterbox(18, 16, 15);    // around the pictures
inline const cv::Scalar kFailed(70, 70, 250);      // a tile's input that failed (red)
inline const cv::Scalar kHistGray(215, 215, 215);  // histogram of a gray frame
inline const cv::Scalar kHistBlue(255, 140, 60);
inline const cv::Scalar kHistGreen(90, 220, 90);
inline const cv::Scalar kHistRed(80, 80, 255);

// Font size in pixels for a canvas: 14 up to 1000 pixels tall, then growing with it.
inline int fontPx(cv::Size canvas) {
  return canvas.height < 1000 ? 14 : canvas.height < 1500 ? 16 : canvas.height < 2000 ? 20 : 24;
}

// The panel's width for a font size: room for the stage table's columns.
inline int panelWidth(int px) { return px * 27; }

}  // namespace vf::app::theme
