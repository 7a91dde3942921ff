#pragma once
// The one shape of meshscope's table models: an immutable snapshot of rows, replaced whole in a
// model reset (hotspot's setData() pattern), read through a column table. A column says what its
// header is and, per cell, what each role shows; the model answers data() and headerData() from
// the table, so a model is its row type, its columns and how it takes a snapshot.
//
// Roles a column answers (an empty function or a zero alignment: no value):
//   Qt::DisplayRole         display(row, index): the text, with units
//   the model's value role  value(row, index): the raw number (seconds, bytes, a count) or text, to
//                           sort by and for tests (ValueRole, BytesRole, SortRole: each model names it)
//   Qt::TextAlignmentRole   alignment (an int, as Qt 6.4's views read it)
//   Qt::ToolTipRole         tooltip(row, index)
//   Qt::ForegroundRole, Qt::BackgroundRole, Qt::FontRole   foreground / background / font (row, index)
//   the horizontal header   header (DisplayRole) and header_tooltip (ToolTipRole)
// A subclass may name blank cells (blank(row, column)): they answer nothing for any role (a section
// heading's empty cells), and may give the vertical header its own text (vertical_header); without
// one the vertical header is Qt's row numbers.
#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace meshscope::ui {

template <typename Row>
struct SnapshotColumn {
  using Cell = std::function<QVariant(const Row& row, int index)>;
  QString header;
  QString header_tooltip;  // "" none
  Cell display;
  Cell value;
  Qt::Alignment alignment{};  // 0: none
  Cell tooltip;
  Cell foreground;
  Cell background;
  Cell font;
};

template <typename Row>
class SnapshotTableModel : public QAbstractTableModel {
 public:
  using Rows = std::vector<Row>;
  using Column = SnapshotColumn<Row>;
  // The vertical header of a row for a role; {} for none.
  using RowHeader = std::function<QVariant(const Row& row, int index, int role)>;
  using Blank = std::function<bool(const Row& row, int column)>;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(rows_->size());
  }
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(columns_.size());
  }

  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& row = (*rows_)[static_cast<size_t>(index.row())];
    const Column& column = columns_[static_cast<size_t>(index.column())];
    if (blank_ && blank_(row, index.column())) return {};
    const auto cell = [&](const typename Column::Cell& function) {
      return function ? function(row, index.row()) : QVariant();
    };
    switch (role) {
      case Qt::DisplayRole:
        return cell(column.display);
      case Qt::ToolTipRole:
        return cell(column.tooltip);
      case Qt::TextAlignmentRole:
        return column.alignment ? QVariant(static_cast<int>(column.alignment)) : QVariant();
      case Qt::ForegroundRole:
        return cell(column.foreground);
      case Qt::BackgroundRole:
        return cell(column.background);
      case Qt::FontRole:
        return cell(column.font);
      default:
        return role == value_role_ ? cell(column.value) : QVariant();
    }
  }

  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override {
    if (orientation == Qt::Vertical) {
      if (!row_header_) return QAbstractTableModel::headerData(section, orientation, role);
      if (section < 0 || section >= rowCount()) return {};
      return row_header_((*rows_)[static_cast<size_t>(section)], section, role);
    }
    if (section < 0 || section >= columnCount()) return {};
    const Column& column = columns_[static_cast<size_t>(section)];
    if (role == Qt::DisplayRole) return column.header;
    if (role == Qt::ToolTipRole && !column.header_tooltip.isEmpty()) return column.header_tooltip;
    return {};
  }

  // The rows shown (empty before the first snapshot).
  [[nodiscard]] const Rows& rows() const { return *rows_; }

 protected:
  SnapshotTableModel(int value_role, std::vector<Column> columns, QObject* parent)
      : QAbstractTableModel(parent), value_role_(value_role), columns_(std::move(columns)) {}

  // Replaces the rows in one model reset; `also` runs inside it, for state the cells read (the
  // snapshot the rows point into, a ranking objective).
  void setRows(std::shared_ptr<const Rows> rows, const std::function<void()>& also = {}) {
    beginResetModel();
    if (also) also();
    rows_ = rows ? std::move(rows) : empty();
    endResetModel();
  }
  void setRows(Rows rows, const std::function<void()>& also = {}) {
    setRows(std::make_shared<const Rows>(std::move(rows)), also);
  }
  // Replaces rows and columns in one model reset (columns that follow the data: one per rank).
  void setRowsAndColumns(Rows rows, std::vector<Column> columns, const std::function<void()>& also = {}) {
    setRows(std::make_shared<const Rows>(std::move(rows)), [&] {
      columns_ = std::move(columns);
      if (also) also();
    });
  }
  void setBlank(Blank blank) { blank_ = std::move(blank); }
  void setRowHeader(RowHeader header) { row_header_ = std::move(header); }
  [[nodiscard]] const std::vector<Column>& columns() const { return columns_; }

 private:
  static std::shared_ptr<const Rows> empty() {
    static const auto rows = std::make_shared<const Rows>();
    return rows;
  }

  int value_role_;
  std::vector<Column> columns_;
  std::shared_ptr<const Rows> rows_ = empty();
  Blank blank_;
  RowHeader row_header_;
};

}  // namespace meshscope::ui
