#pragma once
// How the main window's tables look: read-only, alternating rows, padded cells sized to fit.
class QTableView;

namespace meshscope::ui {

void style_table(QTableView* view);

}  // namespace meshscope::ui
