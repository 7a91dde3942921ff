#pragma once
// The communication plan as a table: one row per planned collective of every mesh axis (the
// table of the communication map view). Holds an immutable snapshot replaced whole in a model
// reset. The tooltip of a row names the formula's source.
#include <memory>

#include "core/comm/comm_plan.hpp"
#include "ui/kit/snapshot_table_model.hpp"

namespace meshscope::ui {

// A row: one collective of one axis of the plan the model holds.
struct CommTableRow {
  const AxisComm* axis;
  const PlannedCollective* collective;
};

class CommTableModel final : public SnapshotTableModel<CommTableRow> {
  Q_OBJECT

 public:
  enum Column { kAxis, kCollective, kOp, kGroup, kTier, kBytesPerCall, kCallsPerStep, kBytesPerStep, kTimePerStep };
  static constexpr int kColumnCount = kTimePerStep + 1;
  enum Role {
    ValueRole = Qt::UserRole + 1,  // the cell's raw value (bytes, seconds, count) as a double, for sorting and tests
  };

  explicit CommTableModel(QObject* parent = nullptr);

  // Replaces the snapshot; nullptr empties the table.
  void setPlan(std::shared_ptr<const CommPlan> plan);

 private:
  std::shared_ptr<const CommPlan> plan_;
};

}  // namespace meshscope::ui
