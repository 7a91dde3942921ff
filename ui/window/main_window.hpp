#pragma once
// The main window: the composition root. The project (model, cluster, workload, layout) and its
// one undo history are the ProjectDocument's (ui/document/); the workload panel, the topology
// editor and the pipeline and serving views push commands to it. After every change the project
// goes to the Evaluator, which re-computes in the background, and every view shows the latest
// evaluation. Views are docks whose arrangement is saved with the window (QSettings) and in the
// project's view state.
#include <QFont>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/importers/launcher_config.hpp"
#include "core/layout.hpp"
#include "core/memory.hpp"
#include "core/project.hpp"
#include "core/search/search.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_document.hpp"
#include "ui/profile/nccl_comparison_dialog.hpp"
#include "ui/window/recovery.hpp"

class QDockWidget;
class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTimer;
class QUndoStack;

namespace meshscope::ui {

class CommunicationPanel;
class LessonPlayer;
struct LessonPage;
class LayoutCompareWidget;
class MemoryPanel;
class PipelinePanel;
class ProfileView;
class SweepView;
class RankedLayoutsPanel;
class ServingPanel;
class SummaryStrip;
class TopologyEditor;
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

  // Brings the view whose name or title starts with `name` ("memory", "pipeline",
  // "communication", "ranked", "compare", "explain", "topology", "workload", "serving",
  // "profile") to the front; false when there is none.
  // enlarge: a view docked at the bottom is given most of the window's height.
  bool showView(const QString& name, bool enlarge = false);
  [[nodiscard]] QStringList viewNames() const;
  [[nodiscard]] QWidget* view(const QString& name) const;
  // The trade-off explorer's axis ("pp"), or two for its heat map ("tp,pp"); false for unknown names.
  bool setTradeoffAxes(const QString& axes);

  [[nodiscard]] const Project& project() const { return document_->project(); }
  [[nodiscard]] ProjectDocument* document() const { return document_; }
  // Replaces the project (as File → Open does) and re-evaluates.
  void setProject(const Project& project);
  // Loads a project file; on error the message is shown inline and the current project is kept.
  bool openProject(const QString& path);
  // Writes the project atomically (QSaveFile): a failed save leaves the old file intact and says why
  // inline. A successful one marks the project clean and removes the recovery file.
  bool saveProject(const QString& path);

  // Unsaved changes: a step on the project's undo stack (workload, layout, topology, serving
  // target, calibration, ...) since the last save or open, or a project restored from a recovery
  // file. An undo back to the saved state clears it. The title shows it ([*]).
  [[nodiscard]] bool isModified() const;
  // Before New, Open, Open Recent, a dropped project, Quit and close: "Save changes to X?" (Save /
  // Discard / Cancel) when modified. True when the caller may go on (saved, discarded or clean).
  bool maybeSave();
  // Autosave (Options::recovery_dir): writes the project to this window's recovery file when it has
  // unsaved changes. True when written (or nothing to write).
  bool autosaveNow();
  [[nodiscard]] QString recoveryFile() const { return recovery_.file(); }
  void setAutosaveInterval(int seconds);
  [[nodiscard]] int autosaveInterval() const { return options_.autosave_interval_s; }
  // After a crash: offers the newest project a process that is no longer running left unsaved ("a
  // project was not saved on <time>: Restore / Discard"). Restore makes it the current, modified
  // project; Discard deletes the file. False when there was nothing to offer or it was discarded.
  bool offerRecovery();
  // The message of the last failed open/import ("" when none).
  [[nodiscard]] QString inlineError() const;

  // Exports (File → Export): the named view as PNG or SVG, the ranked table as CSV, the current
  // estimate as JSON. False with an inline error when the file cannot be written.
  bool exportViewImage(const QString& name, const QString& path);
  bool exportRankedCsv(const QString& path);
  bool exportEstimateJson(const QString& path);

  // Imports profiler traces into the profile view (in the background; File → Import does this).
  void importTraces(const QStringList& paths);
  [[nodiscard]] bool importing() const;
  // Imports a node topology (`nvidia-smi topo -m`, hwloc XML, NCCL topology XML), copies it onto
  // `nodes` nodes of a rail-optimised fabric and makes it the project's (editable) cluster; its
  // GPUs are given the catalogue model `gpu`. On error the message is shown inline, nothing changes.
  bool importNodeTopology(const QString& path, int nodes, const QString& gpu);
  // Imports a launcher config (a Megatron-LM launch script, a torchtitan TOML, a DeepSpeed JSON;
  // core/importers/launcher_config.hpp) as the project, as File → Open does; what the file does not
  // say (the GPU model, the cluster family, a DeepSpeed config's model) is the current project's.
  // `gpus` > 0 sets the GPU count where the file leaves it open. The ignored and unmodelled flags are
  // shown in the status line. On error the message is shown inline and nothing changes.
  bool importLauncherConfig(const QString& path, int64_t gpus = 0);
  // Writes the current layout as a launcher config (File → Export), with what the user must still
  // supply as <PLACEHOLDERS> (named in the status line). False with an inline error when it cannot.
  bool exportLauncherConfig(LauncherFormat format, const QString& path);
  // A ranked layout as the launcher config of the framework it runs in (the project's target
  // framework, or under `any` the first framework that runs it); asks for the file.
  void exportRankedLayout(const RankedLayout& layout);
  // Fits the link efficiencies to nccl-tests logs (the first `ranks` GPUs of the cluster ran
  // each), shows the error before and after, and applies the fit to the project (Edit → Undo
  // reverts it; it is saved with the project). Returns the summary, empty on error (shown inline).
  QString calibrateFromNcclTests(const QStringList& logs);
  // The last calibration's rows, measured against predicted before and after the fit (every
  // out-of-place row of every log, in log order).
  using NcclComparisonRow = ui::NcclComparisonRow;
  [[nodiscard]] const std::vector<NcclComparisonRow>& lastNcclComparison() const { return nccl_comparison_; }
  // Shows the last calibration's summary and rows in a window (Edit → Calibrate does it).
  void showNcclComparison(const QString& summary);
  // Fits the GEMM efficiency so that the predicted compute matches the imported trace's measured
  // compute (gemm_efficiency_hint), and applies it to the project (undoable, saved). Returns the
  // summary, empty on error (shown inline).
  QString calibrateGemmFromTrace();
  // Reads a training log (Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan) into the profile view, where it is
  // compared with the prediction; false (the message inline) when it does not parse.
  bool importTrainingLog(const QString& path);
  // Opens a sweep's JSON lines (meshscope-cli sweep) in the sweep window; double-clicking one of its points opens it
  // as the project (one undoable step). false (the message inline) when the file does not parse.
  bool openSweep(const QString& path);
  [[nodiscard]] SweepView* sweepView() const { return sweep_; }
  // As calibrateGemmFromTrace, on the imported log's median step time (calibrate_gemm_from_log).
  QString calibrateGemmFromLog();
  // Every project edit (workload, layout, schedule, topology, calibration, imports), one history.
  [[nodiscard]] QUndoStack* undoStack() const { return document_->undoStack(); }
  // Pins the layouts ranked `a` and `b` (1 = best) and compares them; false when the search has
  // not ranked that many.
  bool pinRanks(int a, int b);

  // ---- Lessons and presenter mode (ui/window/main_window_lessons.cpp, docs/lessons.md) ----
  // Opens an embedded lesson (by name) or a lesson file at `step`; on error the message is shown inline.
  bool openLesson(const QString& name_or_file, int step = 1);
  [[nodiscard]] LessonPlayer* lessonPlayer() const { return lesson_player_; }
  // View → Presenter mode: larger fonts, thicker chart lines, high contrast, only the taught view and the player.
  void setPresenterMode(bool on);
  [[nodiscard]] bool presenterMode() const { return presenter_on_; }
  // File → Export → Lesson as PDF (one page per step) / as SVG folder (the files written; empty on error).
  bool exportLessonPdf(const QString& path);
  QStringList exportLessonSvgFolder(const QString& folder);

  // Blocks until the evaluation (and the search, if one runs) of the latest edit is shown.
  void waitForEvaluation();
  [[nodiscard]] const std::shared_ptr<const Evaluation>& evaluation() const { return evaluation_; }
  [[nodiscard]] const std::shared_ptr<const SearchEvaluation>& search() const { return search_; }
  [[nodiscard]] WorkloadPanel* workloadPanel() const { return workload_; }
  [[nodiscard]] Evaluator* evaluator() const { return evaluator_; }

  // A saved arrangement (QSettings or a project's view state); the default one is used otherwise.
  bool restoreArrangement(const QByteArray& state) { return restored_state_ |= restoreState(state); }
  // The dock arrangement and the view in front, as saved into project files.
  [[nodiscard]] nlohmann::json viewState() const;
  void applyViewState(const nlohmann::json& state);

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
  // export_launcher_config of `source`, written atomically to `path`; the placeholders to fill in the
  // status bar, or the error inline.
  bool writeLauncherConfig(const Project& source, LauncherFormat format, const QString& path);
  void create_docks();
  void create_menus();  // the three below, then View
  void create_file_menu();
  void create_export_menu(QMenu* file);
  void create_edit_menu();
  void rebuild_recent_menu();
  QDockWidget* add_dock(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area);
  // After every command (and its undo, redo) and a new project: the views and the evaluation follow.
  void on_document_changed(ProjectDocument::Change change);
  void load_editor_cluster(const Cluster& cluster, const Project& project);
  void show_evaluation(std::shared_ptr<const Evaluation> evaluation);
  void show_search(std::shared_ptr<const SearchEvaluation> search);
  void show_inline_error(const QString& message);
  void update_modified();
  void mark_saved();

  // Lessons and presenter mode (ui/window/main_window_lessons.cpp).
  void create_lesson_dock();
  void add_lessons_menu(QMenu* file);
  void add_lesson_exports(QMenu* export_menu);
  void add_presenter_action(QMenu* view_menu);
  void show_lesson_view(const QString& name);
  std::function<LessonPage(int)> lesson_pages();
  bool export_lesson(const std::function<bool(const std::function<LessonPage(int)>&, int)>& write);

  void apply_ranked(const RankedLayout& ranked);
  void update_compare();
  void update_profile_prediction();
  [[nodiscard]] ServingTarget serving_target() const;

  ProjectDocument* document_ = nullptr;
  Options options_;
  std::vector<NcclComparisonRow> nccl_comparison_;
  QString path_;
  RecoveryStore recovery_;
  QTimer* autosave_timer_ = nullptr;
  bool autosave_pending_ = false;   // edited since the last autosave
  bool recovered_unsaved_ = false;  // restored from a recovery file and not saved since
  Evaluator* evaluator_ = nullptr;
  std::shared_ptr<const Evaluation> evaluation_;
  std::shared_ptr<const SearchEvaluation> search_;
  std::vector<RankedLayout> pinned_;
  bool updating_ranked_ = false;      // the ranked table changes because of a search, not the user
  bool editor_needs_cluster_ = true;  // the topology editor shows another cluster than the project's
  bool loading_cluster_ = false;      // setCluster in progress: its clusterChanged is not an edit
  bool arranged_ = false;             // the default dock sizes were applied on the first show
  bool restored_state_ = false;       // a saved arrangement was restored instead

  SummaryStrip* summary_ = nullptr;
  std::map<QString, QDockWidget*> docks_;
  WorkloadPanel* workload_ = nullptr;
  TopologyEditor* topology_ = nullptr;
  MemoryPanel* memory_ = nullptr;
  PipelinePanel* pipeline_ = nullptr;
  CommunicationPanel* communication_ = nullptr;
  ServingPanel* serving_ = nullptr;
  RankedLayoutsPanel* ranked_ = nullptr;
  LayoutCompareWidget* compare_ = nullptr;
  QTextBrowser* explain_ = nullptr;
  ProfileView* profile_ = nullptr;
  SweepView* sweep_ = nullptr;  // its own window, made on the first sweep opened
  QProgressBar* search_progress_ = nullptr;
  QPushButton* cancel_search_ = nullptr;
  QLabel* status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  // Lessons and presenter mode.
  LessonPlayer* lesson_player_ = nullptr;
  QAction* presenter_action_ = nullptr;
  bool presenter_on_ = false;
  QByteArray presenter_saved_state_;
  QFont presenter_saved_font_;
  std::vector<std::pair<QPointer<QWidget>, QFont>> presenter_saved_fonts_;  // widgets with their own font
};

}  // namespace meshscope::ui
