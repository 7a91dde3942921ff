#pragma once
// The profile view's tables (immutable snapshots, replaced whole in a model reset): every ProfilerStep of every
// rank, every collective of every rank, and measured vs predicted (core/calibration/trace_compare.hpp).
#include <QColor>

#include <memory>

#include "core/calibration/log_compare.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/importers/kineto.hpp"
#include "ui/kit/snapshot_table_model.hpp"

namespace meshscope::ui {

// The red of a large error in the comparison and of a failed import.
[[nodiscard]] QColor profile_error_colour();

// A row of the step and collective tables: one entry of one rank of the run the model holds.
template <typename Entry>
struct ProfileRankRow {
  const KinetoRankAnalysis* rank;
  const Entry* entry;
};

// One row per ProfilerStep of every rank, ranks in order.
class ProfileStepModel final : public SnapshotTableModel<ProfileRankRow<KinetoStepBreakdown>> {
  Q_OBJECT

 public:
  enum Column { kRank, kStep, kStepTime, kCompute, kCommunication, kExposed, kIdle, kGpuEvents };
  static constexpr int kColumnCount = kGpuEvents + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: seconds, or a count

  explicit ProfileStepModel(QObject* parent = nullptr);
  void setRun(std::shared_ptr<const KinetoRunAnalysis> run);  // nullptr empties the table

 private:
  std::shared_ptr<const KinetoRunAnalysis> run_;
};

// One row per collective (op × process group) of every rank.
class ProfileCollectiveModel final : public SnapshotTableModel<ProfileRankRow<KinetoCollectiveSummary>> {
  Q_OBJECT

 public:
  enum Column { kRank, kOp, kGroup, kCount, kBytes, kTime, kAlgbw, kBusbw };
  static constexpr int kColumnCount = kBusbw + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: bytes, seconds, bytes/s (NaN when unknown), a count

  explicit ProfileCollectiveModel(QObject* parent = nullptr);
  void setRun(std::shared_ptr<const KinetoRunAnalysis> run);

 private:
  std::shared_ptr<const KinetoRunAnalysis> run_;
};

// The rows of a TraceComparison: quantity, measured (mean, and min–max over ranks), predicted, error, how the numbers
// were obtained.
class TraceComparisonModel final : public SnapshotTableModel<TraceCompareRow> {
  Q_OBJECT

 public:
  enum Column { kQuantity, kMeasured, kRange, kPredicted, kError, kNote };
  static constexpr int kColumnCount = kNote + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: seconds or bytes/s; the error as a fraction; NaN: none

  explicit TraceComparisonModel(QObject* parent = nullptr);
  void setComparison(std::shared_ptr<const TraceComparison> comparison);

 private:
  std::shared_ptr<const TraceComparison> comparison_;
};

// A training log against the prediction (core/calibration/log_compare.hpp): one row per quantity
// (step time, tokens/s per GPU, TFLOP/s per GPU, MFU, peak memory with the quantity it is).
class LogComparisonModel final : public SnapshotTableModel<LogCompareRow> {
  Q_OBJECT

 public:
  enum Column { kQuantity, kMeasured, kRange, kPredicted, kError, kNote };
  static constexpr int kColumnCount = kNote + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value in the row's unit; the error as a fraction; NaN: none

  explicit LogComparisonModel(QObject* parent = nullptr);
  void setComparison(std::shared_ptr<const LogComparison> comparison);

 private:
  std::shared_ptr<const LogComparison> comparison_;
};

}  // namespace meshscope::ui
