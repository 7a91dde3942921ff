#pragma once
// The main window: the composition root that computes a project's memory budget and shows it.
#include <QMainWindow>

#include <vector>

#include "core/layout.hpp"
#include "core/memory.hpp"
#include "core/project.hpp"

class QLabel;
class QTableView;
class QTabWidget;

namespace meshscope::ui {

class MemoryTableModel;
class PipelineChart;
class CommTableModel;

class MainWindow final : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(const Project& project, QWidget* parent = nullptr);

  // Brings the view whose tab title starts with `name` ("pipeline", "communication") to the
  // front; false when there is no such view (an invalid layout shows none).
  bool showView(const QString& name);

 private:
  void create_menus();

  QLabel* header_ = nullptr;
  QTableView* memory_view_ = nullptr;  // null when the layout is invalid
  MemoryTableModel* memory_model_ = nullptr;
  QTabWidget* views_ = nullptr;  // training projects whose cluster resolves
  CommTableModel* comm_model_ = nullptr;
  PipelineChart* pipeline_chart_ = nullptr;  // training projects whose cluster resolves
};

// The header text (rich text) for a project whose budget was computed.
[[nodiscard]] QString budget_header_html(const Project& project, const MemoryBudget& budget);
// The header text (rich text) listing why a project's layout is invalid.
[[nodiscard]] QString problems_header_html(const Project& project, const std::vector<LayoutProblem>& problems);

}  // namespace meshscope::ui
