#include "ui/kit/table_style.hpp"

#include <QHeaderView>
#include <QTableView>

#include "ui/kit/padded_item_delegate.hpp"

namespace meshscope::ui {

void style_table(QTableView* view, const TableStyle& style) {
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(style.alternating_rows);
  view->setWordWrap(false);
  // Room around the numbers and the labels; ResizeToContents includes it in every section.
  if (style.compact) {
    view->setItemDelegate(new PaddedItemDelegate(8, 3, view));
    view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 3px 8px; }"));
  } else {
    view->setItemDelegate(new PaddedItemDelegate(12, 4, view));
    view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
  }
  if (!style.row_headers) view->verticalHeader()->hide();
  if (style.select_rows) view->setSelectionBehavior(QAbstractItemView::SelectRows);
  if (style.single_selection) view->setSelectionMode(QAbstractItemView::SingleSelection);
  if (style.sortable) view->setSortingEnabled(true);
  if (!style.highlight_header) view->horizontalHeader()->setHighlightSections(false);
  if (style.resize_to_contents) view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  if (style.stretch_last_section) view->horizontalHeader()->setStretchLastSection(true);
}

}  // namespace meshscope::ui
