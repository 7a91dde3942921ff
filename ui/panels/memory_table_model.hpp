#pragma once
// The memory budget as a table: one row per memory category plus a "Total" row, one column per
// distinct rank. The model holds an immutable snapshot and replaces it whole in a model reset.
#include <memory>

#include "core/memory/memory.hpp"
#include "ui/kit/snapshot_table_model.hpp"

namespace meshscope::ui {

// A row: a memory category's index, or MemoryTableModel::kTotalRow.
class MemoryTableModel final : public SnapshotTableModel<int> {
  Q_OBJECT

 public:
  enum Role {
    BytesRole = Qt::UserRole + 1,  // the cell's bytes as a double (exact, for tests and sorting)
  };
  static constexpr int kTotalRow = kMemoryCategoryCount;

  explicit MemoryTableModel(QObject* parent = nullptr);

  // Replaces the snapshot; nullptr empties the table.
  void setBudget(std::shared_ptr<const MemoryBudget> budget);
  [[nodiscard]] const std::shared_ptr<const MemoryBudget>& budget() const { return budget_; }

 private:
  // One column per rank of `budget`: its header from `budget`, its cells read budget_->ranks[rank]
  // (budget_ is `budget` once the reset is done).
  [[nodiscard]] Column rankColumn(const MemoryBudget& budget, size_t rank) const;

  std::shared_ptr<const MemoryBudget> budget_;
};

}  // namespace meshscope::ui
