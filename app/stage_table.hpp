#pragma once
// The chain as a table: one row per stage with its live parameter, the values it applied
// (brightness=auto's gain and bias), a bar of its median device time against the frame budget
// with a tick at its 99th percentile, and the two numbers; then the transfers and the total.
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "app/text.hpp"

namespace vf::app {

struct StageRow {
  std::string name;     // "blur"
  std::string param;    // "sigma 1.5" ("" when the stage has no live parameter)
  std::string applied;  // what the device computed this frame ("gain 1.42  bias -23"), or ""
  bool enabled = true;
  bool selected = false;    // +/- acts on it
  bool timed = false;       // p50/p99 known
  double p50 = 0, p99 = 0;  // device time (ms) over the engine's recent frames
};

struct StageTable {
  std::vector<StageRow> stages;
  double uploadP50 = 0, uploadP99 = 0, downloadP50 = 0, downloadP99 = 0;
  double budgetMs = 0;  // the bars' full length; 0: scaled to the slowest row instead
};

// Height the table needs with these fonts.
int stageTableHeight(const StageTable& t, const Text& font, const Text& small);

// Draws it into `r` (no background of its own: the panel's). Returns the bar column's
// rectangle (the tests look for bar colours there).
cv::Rect drawStageTable(cv::Mat& bgr, cv::Rect r, const StageTable& t, const Text& font,
                        const Text& small);

// "1.49", "0.061", "12.3": three significant digits, at least one decimal.
std::string formatMs(double ms);

}  // namespace vf::app
