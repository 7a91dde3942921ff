#include "ui/panels/memory_table_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <utility>
#include <vector>

#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

const MemoryItem* find_item(const RankMemory& rank, MemoryCategory category) {
  const auto found = std::find_if(rank.items.begin(), rank.items.end(),
                                  [category](const MemoryItem& item) { return item.category == category; });
  return found == rank.items.end() ? nullptr : &*found;
}

QFont bold_font() {
  QFont font;
  font.setBold(true);
  return font;
}

constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;
// A light red that keeps dark text readable; marks a rank whose total exceeds the usable memory.
const QColor kOverBudgetBackground{255, 205, 205};
const QColor kOverBudgetText{110, 0, 0};

}  // namespace

MemoryTableModel::MemoryTableModel(QObject* parent) : SnapshotTableModel(BytesRole, {}, parent) {
  setRowHeader([](const int& row, int, int role) -> QVariant {
    const bool total = row == kTotalRow;
    switch (role) {
      case Qt::DisplayRole:
        return total ? tr("Total") : category_label(static_cast<MemoryCategory>(row));
      case Qt::FontRole:
        return total ? QVariant(bold_font()) : QVariant();
      default:
        return {};
    }
  });
}

void MemoryTableModel::setBudget(std::shared_ptr<const MemoryBudget> budget) {
  std::vector<int> rows;
  std::vector<Column> columns;
  if (budget) {
    for (int row = 0; row <= kTotalRow; ++row) rows.push_back(row);
    for (size_t rank = 0; rank < budget->ranks.size(); ++rank) columns.push_back(rankColumn(*budget, rank));
  }
  setRowsAndColumns(std::move(rows), std::move(columns), [&] { budget_ = std::move(budget); });
}

MemoryTableModel::Column MemoryTableModel::rankColumn(const MemoryBudget& budget, size_t rank_index) const {
  // The cells of a category: its bytes (an en dash for a category this workload does not have, KV
  // cache in training) and the formula. The total's: the sum against the usable memory, bold, red
  // when over budget.
  const auto rank = [this, rank_index]() -> const RankMemory& { return budget_->ranks[rank_index]; };
  const auto bytes = [rank](int row) {
    if (row == kTotalRow) return rank().total_bytes();
    const MemoryItem* item = find_item(rank(), static_cast<MemoryCategory>(row));
    return item ? item->bytes : 0.0;
  };
  const auto over_budget = [this, rank](int row) {
    return row == kTotalRow && rank().total_bytes() > budget_->usable_bytes;
  };
  const RankMemory& header_rank = budget.ranks[rank_index];
  Column column;
  column.header = rank_label(header_rank);
  column.header_tooltip = tr("Pipeline stages %1: %2 layers, %3 parameters before ZeRO sharding")
                              .arg(stage_ranges_text(header_rank.pp_stages))
                              .arg(header_rank.layers)
                              .arg(header_rank.params_on_rank, 0, 'g', 3);
  if (header_rank.in_flight_micro_batches > 0)
    column.header_tooltip +=
        tr("\n%1 micro-batches of activations in flight").arg(header_rank.in_flight_micro_batches, 0, 'g', 3);
  column.display = [bytes](const int& row, int) -> QVariant {
    const double b = bytes(row);
    if (row == kTotalRow) return gib_text(b);
    return b == 0.0 ? QStringLiteral("\u2013") : gib_text(b);
  };
  column.value = [bytes](const int& row, int) -> QVariant { return bytes(row); };
  column.alignment = kNumberAlignment;
  column.tooltip = [this, rank, bytes](const int& row, int) -> QVariant {
    const double b = bytes(row);
    if (row == kTotalRow) {
      const double usable = budget_->usable_bytes;
      QString tip = QStringLiteral("Sum of the categories = %1 (%2)\nUsable per GPU: %3 (%4)")
                        .arg(exact_bytes_text(b), gib_text(b), exact_bytes_text(usable), gib_text(usable));
      if (b > usable) tip += QStringLiteral("\nExceeds it by %1").arg(gib_text(b - usable));
      return tip;
    }
    const MemoryItem* item = find_item(rank(), static_cast<MemoryCategory>(row));
    const QString formula = item ? QString::fromStdString(item->formula) : QString();
    const QString amount = QStringLiteral("= %1 (%2)").arg(exact_bytes_text(b), gib_text(b));
    return formula.isEmpty() ? amount : formula + u'\n' + amount;
  };
  column.font = [](const int& row, int) { return row == kTotalRow ? QVariant(bold_font()) : QVariant(); };
  column.background = [over_budget](const int& row, int) {
    return over_budget(row) ? QVariant(QBrush(kOverBudgetBackground)) : QVariant();
  };
  column.foreground = [over_budget](const int& row, int) {
    return over_budget(row) ? QVariant(QBrush(kOverBudgetText)) : QVariant();
  };
  return column;
}

}  // namespace meshscope::ui
