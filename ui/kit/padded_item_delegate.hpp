#pragma once
// An item delegate that leaves room around a cell's text, so numbers in resized-to-contents
// columns do not touch the grid. (Style-sheet padding widens the cells but, without a border
// rule, is not applied when painting; with one, the model's background colours are lost.)
#include <QStyledItemDelegate>

namespace meshscope::ui {

class PaddedItemDelegate final : public QStyledItemDelegate {
  Q_OBJECT

 public:
  PaddedItemDelegate(int horizontal_padding_px, int vertical_padding_px, QObject* parent = nullptr);

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

 private:
  int horizontal_padding_px_;
  int vertical_padding_px_;
};

}  // namespace meshscope::ui
