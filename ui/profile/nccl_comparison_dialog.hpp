#pragma once
// The window Edit → Calibrate from nccl-tests logs opens: the fit's summary, then every row of the
// logs, measured against predicted before and after the fit.
#include <QString>

#include <vector>

#include "ui/kit/snapshot_table_model.hpp"

class QWidget;

namespace meshscope::ui {

// One out-of-place row of an nccl-tests log.
struct NcclComparisonRow {
  QString collective;
  double bytes = 0;
  double measured_time_s = 0, before_time_s = 0, after_time_s = 0;
  double measured_busbw = 0, after_busbw = 0;
};

// The rows as a table: collective, size, measured, predicted before and after, busbw measured and
// predicted, the error after the fit.
class NcclComparisonModel final : public SnapshotTableModel<NcclComparisonRow> {
  Q_OBJECT

 public:
  enum Column { kCollective, kSize, kMeasured, kBefore, kAfter, kMeasuredBusbw, kPredictedBusbw, kErrorAfter };
  static constexpr int kColumnCount = kErrorAfter + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: bytes, seconds, bytes/s, the error as a fraction

  explicit NcclComparisonModel(QObject* parent = nullptr);
  void setComparison(std::vector<NcclComparisonRow> rows);
};

// Opens the window (non-modal, deleted when closed) over `parent`.
void show_nccl_comparison(QWidget* parent, const QString& summary, const std::vector<NcclComparisonRow>& rows);

}  // namespace meshscope::ui
