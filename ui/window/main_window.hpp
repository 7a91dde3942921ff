#pragma once
// The main window: the composition root. The project (model, cluster, workload, layout) and its
// one undo history are the ProjectDocument's (ui/document/); the workload panel, the topology
// editor and the pipeline and serving views push commands to it. After every change the project
// goes to the Evaluator, which re-computes in the background; every view subscribes to its
// results. The window's jobs are controllers it owns: the file session (open, save, recent,
// autosave), imports, exports, calibration, and lessons with presenter mode. Views are docks whose
// arrangement is saved with the window (QSettings) and in the project's view state.
#include <QMainWindow>

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_document.hpp"

class QDockWidget;
class QLabel;
class QProgressBar;
class QPushButton;
class QUndoStack;

namespace meshscope::ui {

class CalibrationController;
class ExportController;
class FileSession;
class ImportController;
class LayoutCompareWidget;
class LessonController;
class ProfileView;
class RankedLayoutsPanel;
class SummaryStrip;
class TopologyEditor;
class WindowController;
class WorkloadPanel;

class MainWindow final : public QMainWindow {
  Q_OBJECT

 public:
  struct Options {
    bool select_best_layout = false;  // apply the best-ranked layout when the first search ends
    // Where the unsaved project is autosaved (ui/window/recovery.hpp); empty: no autosave. The app passes
    // default_recovery_dir(); tests pass a temporary folder.
    QString recovery_dir;
    int autosave_interval_s = 60;  // the timer's period (AppSettings); an evaluated edit also autosaves
  };
  explicit MainWindow(const Project& project, QWidget* parent = nullptr);
  MainWindow(const Project& project, Options options, QWidget* parent = nullptr);
  ~MainWindow() override;

  // ---- The window's jobs ----
  [[nodiscard]] FileSession* session() const { return session_; }
  [[nodiscard]] ImportController* imports() const { return imports_; }
  [[nodiscard]] ExportController* exports() const { return exports_; }
  [[nodiscard]] CalibrationController* calibration() const { return calibration_; }
  [[nodiscard]] LessonController* lessons() const { return lessons_; }

  // ---- Views ----
  // Brings the view whose name or title starts with `name` ("memory", "pipeline",
  // "communication", "ranked", "compare", "explain", "topology", "workload", "serving",
  // "profile") to the front; false when there is none.
  // enlarge: a view docked at the bottom is given most of the window's height.
  bool showView(const QString& name, bool enlarge = false);
  [[nodiscard]] QStringList viewNames() const;
  [[nodiscard]] QWidget* view(const QString& name) const;
  [[nodiscard]] QDockWidget* dock(const QString& name) const;
  [[nodiscard]] const std::map<QString, QDockWidget*>& docks() const { return docks_; }
  // The views shown now (by name, the workload panel aside): the first is "the view in front".
  [[nodiscard]] QStringList viewsInFront() const;
  // Adds a view as a dock: `name` is how showView, the view state and the lessons call it.
  QDockWidget* addView(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area);
  // The trade-off explorer's axis ("pp"), or two for its heat map ("tp,pp"); false for unknown names.
  bool setTradeoffAxes(const QString& axes);
  // Pins the layouts ranked `a` and `b` (1 = best) and compares them; false when the search has
  // not ranked that many.
  bool pinRanks(int a, int b);
  // A saved arrangement (QSettings or a project's view state); the default one is used otherwise.
  bool restoreArrangement(const QByteArray& state) { return restored_state_ |= restoreState(state); }
  // The dock arrangement and the view in front, as saved into project files.
  [[nodiscard]] nlohmann::json viewState() const;
  void applyViewState(const nlohmann::json& state);

  // ---- The document and its evaluation ----
  [[nodiscard]] const Project& project() const { return document_->project(); }
  [[nodiscard]] ProjectDocument* document() const { return document_; }
  // Every project edit (workload, layout, schedule, topology, calibration, imports), one history.
  [[nodiscard]] QUndoStack* undoStack() const { return document_->undoStack(); }
  [[nodiscard]] Evaluator* evaluator() const { return evaluator_; }
  [[nodiscard]] const std::shared_ptr<const Evaluation>& evaluation() const { return evaluator_->latest(); }
  [[nodiscard]] const std::shared_ptr<const SearchEvaluation>& search() const { return evaluator_->latestSearch(); }
  // Blocks until the evaluation (and the search, if one runs) of the latest edit is shown.
  void waitForEvaluation();
  [[nodiscard]] WorkloadPanel* workloadPanel() const { return workload_; }
  // The message of the last failed open/import ("" when none).
  [[nodiscard]] QString inlineError() const;

 signals:
  // Emitted after the views show a new evaluation (tests and the benchmark wait on it).
  void viewsUpdated();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  // A project file dropped on the window opens (after maybeSave); traces go to the profile view.
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void create_summary_dock();
  void create_status_bar();
  void create_editing_docks();   // the workload panel (left) and the views of the current layout (right)
  void create_ranked_docks();    // the ranked layouts and the comparison of two pinned ones (bottom)
  void create_analysis_docks();  // the right-hand views tabbed, then profile, trade-offs and scaling
  void create_controllers();
  void report(WindowController* controller);  // its inline errors and status messages are shown here
  void create_menus();
  // After every command (and its undo, redo) and a new project: the evaluation follows.
  void on_document_changed(ProjectDocument::Change change);
  void on_evaluated(const Evaluation& evaluation);
  void on_searched(const SearchEvaluation& search);
  void apply_ranked(const RankedLayout& ranked);

  ProjectDocument* document_ = nullptr;
  Evaluator* evaluator_ = nullptr;
  bool select_best_layout_ = false;
  FileSession* session_ = nullptr;
  ImportController* imports_ = nullptr;
  ExportController* exports_ = nullptr;
  CalibrationController* calibration_ = nullptr;
  LessonController* lessons_ = nullptr;

  std::map<QString, QDockWidget*> docks_;
  SummaryStrip* summary_ = nullptr;
  WorkloadPanel* workload_ = nullptr;
  TopologyEditor* topology_ = nullptr;
  RankedLayoutsPanel* ranked_ = nullptr;
  LayoutCompareWidget* compare_ = nullptr;
  ProfileView* profile_ = nullptr;
  QProgressBar* search_progress_ = nullptr;
  QPushButton* cancel_search_ = nullptr;
  QLabel* status_ = nullptr;
  bool arranged_ = false;        // the default dock sizes were applied on the first show
  bool restored_state_ = false;  // a saved arrangement was restored instead
};

}  // namespace meshscope::ui
