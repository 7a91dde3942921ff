#pragma once
// The memory view: the budget per rank as stacked bars, beside the exact table.
#include <QWidget>

#include <memory>

#include "core/memory/memory.hpp"
#include "ui/document/evaluator.hpp"

class QTableView;

namespace meshscope::ui {

class MemoryChart;
class MemoryTableModel;

class MemoryPanel final : public QWidget {
  Q_OBJECT

 public:
  // Shows the budget of each of `evaluator`'s evaluations.
  explicit MemoryPanel(Evaluator* evaluator, QWidget* parent = nullptr);

  // null: no budget (an invalid layout).
  void setBudget(const std::shared_ptr<const MemoryBudget>& budget);

 private:
  MemoryChart* chart_ = nullptr;
  MemoryTableModel* model_ = nullptr;
  QTableView* table_ = nullptr;
};

}  // namespace meshscope::ui
