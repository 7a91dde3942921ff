#pragma once
// The window Edit → Calibrate from nccl-tests logs opens: the fit's summary, then every row of the
// logs, measured against predicted before and after the fit.
#include <QString>

#include <vector>

class QWidget;

namespace meshscope::ui {

// One out-of-place row of an nccl-tests log.
struct NcclComparisonRow {
  QString collective;
  double bytes = 0;
  double measured_time_s = 0, before_time_s = 0, after_time_s = 0;
  double measured_busbw = 0, after_busbw = 0;
};

// Opens the window (non-modal, deleted when closed) over `parent`.
void show_nccl_comparison(QWidget* parent, const QString& summary, const std::vector<NcclComparisonRow>& rows);

}  // namespace meshscope::ui
