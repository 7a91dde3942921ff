#pragma once
// The communication plan as a table: one row per planned collective of every mesh axis (the
// table of the communication map view). Holds an immutable snapshot replaced whole in a model
// reset. The tooltip of a row names the formula's source.
#include <QAbstractTableModel>

#include <memory>
#include <vector>

#include "core/comm/comm_plan.hpp"

namespace meshscope::ui {

class CommTableModel final : public QAbstractTableModel {
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

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    const AxisComm* axis;
    const PlannedCollective* collective;
  };
  std::shared_ptr<const CommPlan> plan_;
  std::vector<Row> rows_;
};

}  // namespace meshscope::ui
