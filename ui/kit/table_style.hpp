#pragma once
// How meshscope's tables look, in one place: read-only, padded cells (PaddedItemDelegate) and
// header sections, no word wrap, columns sized to their contents. The options are what differs
// between the tables; every QTableView in ui/ goes through style_table().
class QTableView;

namespace meshscope::ui {

struct TableStyle {
  bool compact = false;  // 8 × 3 px padding instead of 12 × 4 (the memory table beside its chart)
  bool alternating_rows = true;
  bool row_headers = true;         // the vertical header (hidden for tables whose rows are data)
  bool select_rows = false;        // select whole rows
  bool single_selection = false;   // one row at a time
  bool sortable = false;           // sort by clicking a header (the model's sort role)
  bool highlight_header = true;    // bold the header of a selected section
  bool resize_to_contents = true;  // every column sized to its contents
  bool stretch_last_section = false;
};

void style_table(QTableView* view, const TableStyle& style = {});

}  // namespace meshscope::ui
