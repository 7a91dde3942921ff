#include "ui/kit/padded_item_delegate.hpp"

#include <QApplication>
#include <QPainter>
#include <QStyle>

namespace meshscope::ui {

PaddedItemDelegate::PaddedItemDelegate(int horizontal_padding_px, int vertical_padding_px, QObject* parent)
    : QStyledItemDelegate(parent),
      horizontal_padding_px_(horizontal_padding_px),
      vertical_padding_px_(vertical_padding_px) {}

void PaddedItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem cell = option;
  initStyleOption(&cell, index);
  const QWidget* widget = option.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  // The background (model colour, selection) fills the whole cell; only the contents are inset.
  style->drawPrimitive(QStyle::PE_PanelItemViewItem, &cell, painter, widget);
  cell.backgroundBrush = Qt::NoBrush;
  cell.rect.adjust(horizontal_padding_px_, 0, -horizontal_padding_px_, 0);
  style->drawControl(QStyle::CE_ItemViewItem, &cell, painter, widget);
}

QSize PaddedItemDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  return QStyledItemDelegate::sizeHint(option, index) + QSize(2 * horizontal_padding_px_, 2 * vertical_padding_px_);
}

}  // namespace meshscope::ui
