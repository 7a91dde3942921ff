#include "ui/memory_table_model.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <utility>

#include "ui/formatting.hpp"

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

// Qt 6.4's views read TextAlignmentRole as an int.
constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;
// A light red that keeps dark text readable; marks a rank whose total exceeds the usable memory.
const QColor kOverBudgetBackground{255, 205, 205};
const QColor kOverBudgetText{110, 0, 0};

}  // namespace

MemoryTableModel::MemoryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MemoryTableModel::setBudget(std::shared_ptr<const MemoryBudget> budget) {
  beginResetModel();
  budget_ = std::move(budget);
  endResetModel();
}

int MemoryTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !budget_) return 0;
  return kMemoryCategoryCount + 1;
}

int MemoryTableModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !budget_) return 0;
  return static_cast<int>(budget_->ranks.size());
}

QVariant MemoryTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RankMemory& rank = budget_->ranks[static_cast<size_t>(index.column())];
  if (index.row() == kTotalRow) return total_cell(rank, role);
  return category_cell(rank, static_cast<MemoryCategory>(index.row()), role);
}

QVariant MemoryTableModel::category_cell(const RankMemory& rank, MemoryCategory category, int role) const {
  const MemoryItem* item = find_item(rank, category);
  const double bytes = item ? item->bytes : 0.0;
  switch (role) {
    case Qt::DisplayRole:
      // An en dash for a category this workload does not have (KV cache in training).
      return bytes == 0.0 ? QStringLiteral("\u2013") : gib_text(bytes);
    case BytesRole:
      return bytes;
    case Qt::ToolTipRole: {
      const QString formula = item ? QString::fromStdString(item->formula) : QString();
      const QString amount = QStringLiteral("= %1 (%2)").arg(exact_bytes_text(bytes), gib_text(bytes));
      return formula.isEmpty() ? amount : formula + u'\n' + amount;
    }
    case Qt::TextAlignmentRole:
      return static_cast<int>(kNumberAlignment);
    default:
      return {};
  }
}

QVariant MemoryTableModel::total_cell(const RankMemory& rank, int role) const {
  const double bytes = rank.total_bytes();
  const bool over_budget = bytes > budget_->usable_bytes;
  switch (role) {
    case Qt::DisplayRole:
      return gib_text(bytes);
    case BytesRole:
      return bytes;
    case Qt::ToolTipRole: {
      QString tip = QStringLiteral("Sum of the categories = %1 (%2)\nUsable per GPU: %3 (%4)")
                        .arg(exact_bytes_text(bytes), gib_text(bytes), exact_bytes_text(budget_->usable_bytes),
                             gib_text(budget_->usable_bytes));
      if (over_budget) tip += QStringLiteral("\nExceeds it by %1").arg(gib_text(bytes - budget_->usable_bytes));
      return tip;
    }
    case Qt::FontRole:
      return bold_font();
    case Qt::BackgroundRole:
      return over_budget ? QVariant(QBrush(kOverBudgetBackground)) : QVariant();
    case Qt::ForegroundRole:
      return over_budget ? QVariant(QBrush(kOverBudgetText)) : QVariant();
    case Qt::TextAlignmentRole:
      return static_cast<int>(kNumberAlignment);
    default:
      return {};
  }
}

QVariant MemoryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (!budget_ || section < 0) return {};
  if (orientation == Qt::Vertical) {
    if (section > kTotalRow) return {};
    const bool total = section == kTotalRow;
    switch (role) {
      case Qt::DisplayRole:
        return total ? tr("Total") : category_label(static_cast<MemoryCategory>(section));
      case Qt::FontRole:
        return total ? QVariant(bold_font()) : QVariant();
      default:
        return {};
    }
  }
  if (section >= columnCount()) return {};
  const RankMemory& rank = budget_->ranks[static_cast<size_t>(section)];
  switch (role) {
    case Qt::DisplayRole:
      return rank_label(rank);
    case Qt::ToolTipRole: {
      QString tip = tr("Pipeline stages %1: %2 layers, %3 parameters before ZeRO sharding")
                        .arg(stage_ranges_text(rank.pp_stages))
                        .arg(rank.layers)
                        .arg(rank.params_on_rank, 0, 'g', 3);
      if (rank.in_flight_micro_batches > 0)
        tip += tr("\n%1 micro-batches of activations in flight").arg(rank.in_flight_micro_batches, 0, 'g', 3);
      return tip;
    }
    default:
      return {};
  }
}

}  // namespace meshscope::ui
