#pragma once
// The memory budget as a table: one row per memory category plus a "Total" row, one column per
// distinct rank. The model holds an immutable snapshot and replaces it whole in a model reset.
#include <QAbstractTableModel>

#include <memory>

#include "core/memory.hpp"

namespace meshscope::ui {

class MemoryTableModel final : public QAbstractTableModel {
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

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  [[nodiscard]] QVariant category_cell(const RankMemory& rank, MemoryCategory category, int role) const;
  [[nodiscard]] QVariant total_cell(const RankMemory& rank, int role) const;

  std::shared_ptr<const MemoryBudget> budget_;
};

}  // namespace meshscope::ui
