#include "ui/table_style.hpp"

#include <QHeaderView>
#include <QTableView>

#include "ui/padded_item_delegate.hpp"

namespace meshscope::ui {

void style_table(QTableView* view) {
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  // Room around the numbers and the labels; ResizeToContents includes it in every section.
  view->setItemDelegate(new PaddedItemDelegate(12, 4, view));
  view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

}  // namespace meshscope::ui
