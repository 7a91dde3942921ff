#include "ui/window/main_window.hpp"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShowEvent>
#include <QStatusBar>
#include <QUndoStack>

#include <utility>

#include "ui/document/project_commands.hpp"
#include "ui/explore/scaling_view.hpp"
#include "ui/explore/tradeoff_view.hpp"
#include "ui/lessons/lesson_controller.hpp"
#include "ui/panels/communication_panel.hpp"
#include "ui/panels/explain_view.hpp"
#include "ui/panels/memory_panel.hpp"
#include "ui/panels/pipeline_panel.hpp"
#include "ui/panels/serving_panel.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/profile/calibration_controller.hpp"
#include "ui/profile/profile_view.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/topology/topology_link.hpp"
#include "ui/window/app_settings.hpp"
#include "ui/window/export_controller.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/import_controller.hpp"
#include "ui/window/summary_strip.hpp"

namespace meshscope::ui {

namespace {

// A view in a scroll area, so that a small window scrolls instead of growing past the screen.
QScrollArea* scrolled(QWidget* widget) {
  auto* area = new QScrollArea;
  area->setWidget(widget);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

MainWindow::MainWindow(const Project& project, QWidget* parent) : MainWindow(project, Options{}, parent) {}

MainWindow::MainWindow(const Project& project, Options options, QWidget* parent)
    : QMainWindow(parent), select_best_layout_(options.select_best_layout) {
  setObjectName(QStringLiteral("meshscope_main_window"));
  resize(1600, 1000);
  setDockNestingEnabled(true);
  document_ = new ProjectDocument(project, this);
  evaluator_ = new Evaluator(this);
  // First to hear of an evaluation: an edit that evaluates cleanly is autosaved before the views change.
  session_ = new FileSession(this, document_, evaluator_, options.recovery_dir, options.autosave_interval_s);
  create_summary_dock();
  create_status_bar();
  create_editing_docks();
  create_ranked_docks();
  create_analysis_docks();
  create_controllers();
  create_menus();
  // After the views' own subscriptions: the status line, then viewsUpdated.
  connect(evaluator_, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { on_evaluated(*evaluation); });
  connect(evaluator_, &Evaluator::searched, this,
          [this](const std::shared_ptr<const SearchEvaluation>& search) { on_searched(*search); });
  connect(document_, &ProjectDocument::changed, this, &MainWindow::on_document_changed);
  setAcceptDrops(true);
  session_->setProject(project);
}

MainWindow::~MainWindow() {
  // The children (the document and its undo stack among them) outlive this body: no more signals to anyone.
  document_->disconnect();
  document_->undoStack()->disconnect();
}

// The summary strip (a fixed top dock): the project, its verdict and the predicted numbers, with
// an error banner above them for a file that failed to open or import.
void MainWindow::create_summary_dock() {
  summary_ = new SummaryStrip(evaluator_, this);
  auto* top_dock = new QDockWidget(this);
  top_dock->setObjectName(QStringLiteral("summary_dock"));
  top_dock->setTitleBarWidget(new QWidget(top_dock));
  top_dock->setFeatures(QDockWidget::NoDockWidgetFeatures);
  top_dock->setWidget(summary_);
  addDockWidget(Qt::TopDockWidgetArea, top_dock);
  // The workload panel runs the full height on the left; the ranked table sits under the views.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
}

// The status line, and the search's progress with its Cancel button.
void MainWindow::create_status_bar() {
  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);
  search_progress_ = new QProgressBar(this);
  search_progress_->setRange(0, 0);  // busy: the search does not know its total in advance
  search_progress_->setMaximumWidth(160);
  search_progress_->setFormat(tr("searching"));
  search_progress_->hide();
  statusBar()->addPermanentWidget(search_progress_);
  cancel_search_ = new QPushButton(tr("Cancel search"), this);
  cancel_search_->hide();
  connect(cancel_search_, &QPushButton::clicked, evaluator_, &Evaluator::cancelSearch);
  statusBar()->addPermanentWidget(cancel_search_);
  connect(evaluator_, &Evaluator::searchStarted, this, [this] {
    search_progress_->show();
    cancel_search_->show();
  });
  connect(evaluator_, &Evaluator::searchCancelled, this, [this] {
    search_progress_->hide();
    cancel_search_->hide();
    status_->setText(tr("Search cancelled; the next edit searches again."));
  });
}

QDockWidget* MainWindow::addView(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name + QStringLiteral("_dock"));
  dock->setWidget(widget);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  addDockWidget(area, dock);
  docks_[name] = dock;
  return dock;
}

void MainWindow::create_editing_docks() {
  workload_ = new WorkloadPanel(document_, evaluator_);
  QScrollArea* workload_scroll = scrolled(workload_);
  workload_scroll->setMinimumWidth(330);
  addView(QStringLiteral("workload"), tr("Workload"), workload_scroll, Qt::LeftDockWidgetArea);

  // Topology (right, the first of the tabbed views): the cluster, editable, and the
  // communication map of the current layout drawn on it; its edits are steps of the project's history.
  topology_ = new TopologyEditor(document_->undoStack());
  topology_->setObjectName(QStringLiteral("topology_editor"));
  new TopologyLink(topology_, document_, evaluator_, this);
  addView(QStringLiteral("topology"), tr("Topology"), topology_, Qt::RightDockWidgetArea);
  // Memory: the stacked bars beside the exact table.
  addView(QStringLiteral("memory"), tr("Memory budget"), new MemoryPanel(evaluator_), Qt::RightDockWidgetArea);
  // Pipeline: the chosen schedule, and optionally a second one below it.
  addView(QStringLiteral("pipeline"), tr("Pipeline schedule"), scrolled(new PipelinePanel(document_, evaluator_)),
          Qt::RightDockWidgetArea);
  // Communication: the collectives of one axis or all; the topology's map follows the axis.
  auto* communication = new CommunicationPanel(evaluator_);
  connect(communication, &CommunicationPanel::axisChanged, topology_, &TopologyEditor::setCommAxis);
  connect(communication, &CommunicationPanel::showMapRequested, this, [this] { showView(QStringLiteral("topology")); });
  addView(QStringLiteral("communication"), tr("Communication"), communication, Qt::RightDockWidgetArea);
  // Serving: latency against throughput for the current layout and the best-ranked ones.
  addView(QStringLiteral("serving"), tr("Serving latency"), new ServingPanel(document_, evaluator_),
          Qt::RightDockWidgetArea);
  addView(QStringLiteral("explain"), tr("Explain"), new ExplainView(evaluator_), Qt::RightDockWidgetArea);
}

void MainWindow::create_ranked_docks() {
  ranked_ = new RankedLayoutsPanel(evaluator_);
  ranked_->setObjectName(QStringLiteral("ranked_layouts"));
  connect(ranked_, &RankedLayoutsPanel::layoutActivated, this, &MainWindow::apply_ranked);
  connect(ranked_, &RankedLayoutsPanel::servingLayoutActivated, this, [this](const RankedServing& ranked) {
    if (ranked.disaggregated) {
      status_->setText(
          tr("Disaggregated prefill/decode layouts are ranked but not yet editable as the current layout."));
      return;
    }
    document_->push(new SetServingLayout(document_, ranked.layout, {}, {}));
  });
  // The evaluator estimates the pinned layouts with each evaluation; the comparison shows them.
  connect(ranked_, &RankedLayoutsPanel::pinnedChanged, evaluator_, &Evaluator::setPinned);
  QDockWidget* ranked_dock = addView(QStringLiteral("ranked"), tr("Ranked layouts"), ranked_, Qt::BottomDockWidgetArea);
  compare_ = new LayoutCompareWidget(evaluator_);
  compare_->setObjectName(QStringLiteral("layout_compare"));
  connect(compare_, &LayoutCompareWidget::comparisonShown, this, [this] { showView(QStringLiteral("compare")); });
  connect(compare_, &LayoutCompareWidget::comparisonFailed, summary_, &SummaryStrip::setError);
  tabifyDockWidget(ranked_dock,
                   addView(QStringLiteral("compare"), tr("Compare pinned"), compare_, Qt::BottomDockWidgetArea));
  ranked_dock->raise();
}

void MainWindow::create_analysis_docks() {
  const auto tabify = [this](const char* first, QDockWidget* second) {
    tabifyDockWidget(docks_[QString::fromLatin1(first)], second);
  };
  tabify("topology", docks_[QStringLiteral("memory")]);
  tabify("memory", docks_[QStringLiteral("pipeline")]);
  tabify("pipeline", docks_[QStringLiteral("communication")]);
  tabify("communication", docks_[QStringLiteral("explain")]);
  tabify("explain", docks_[QStringLiteral("serving")]);
  // Profile: an imported trace beside the prediction for the current layout.
  profile_ = new ProfileView(evaluator_);
  profile_->setObjectName(QStringLiteral("profile_view"));
  connect(profile_, &ProfileView::imported, this, [this] { showView(QStringLiteral("profile")); });
  tabify("serving", addView(QStringLiteral("profile"), tr("Profile"), profile_, Qt::RightDockWidgetArea));
  // Trade-offs (issue 17): one knob along an axis, the rest fixed; two as a heat map (ui/explore/tradeoff_view.hpp).
  tabify("profile",
         addView(QStringLiteral("tradeoff"), tr("Trade-offs"), new TradeoffView(document_), Qt::RightDockWidgetArea));
  // Scaling (issue 17): the search's best layout from N to M GPUs, weak or strong (ui/explore/scaling_view.hpp).
  auto* scaling = new ScalingView(document_);
  scaling->setObjectName(QStringLiteral("scaling_view"));
  tabify("tradeoff", addView(QStringLiteral("scaling"), tr("Scaling"), scaling, Qt::RightDockWidgetArea));
  docks_[QStringLiteral("memory")]->raise();
}

void MainWindow::create_controllers() {
  imports_ = new ImportController(this, document_, session_, profile_);
  exports_ = new ExportController(this, document_, evaluator_);
  calibration_ = new CalibrationController(this, document_, evaluator_);
  lessons_ = new LessonController(this, document_, evaluator_);
  lessons_->createDock();
  for (WindowController* controller :
       std::initializer_list<WindowController*>{session_, imports_, exports_, calibration_, lessons_})
    report(controller);
  connect(ranked_, &RankedLayoutsPanel::exportRequested, exports_, &ExportController::exportRankedLayout);
}

void MainWindow::report(WindowController* controller) {
  connect(controller, &WindowController::inlineError, summary_, &SummaryStrip::setError);
  connect(controller, &WindowController::status, status_, &QLabel::setText);
}

// File, Edit and View: each controller adds its own actions, in the order the menus always had.
void MainWindow::create_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  session_->addOpenActions(file);
  lessons_->addLessonsMenu(file);
  session_->addSaveActions(file);
  file->addSeparator();
  imports_->addActions(file);
  QMenu* export_menu = exports_->addMenu(file);
  lessons_->addExportActions(export_menu);
  exports_->addDataActions(export_menu, file);
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QMainWindow::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  // One history: the topology editor's toolbar undoes and redoes the same steps.
  QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  session_->addAutosaveAction(edit);
  edit->addSeparator();
  calibration_->addActions(edit);

  QMenu* view_menu = menuBar()->addMenu(tr("&View"));
  for (const auto& [name, dock] : docks_) view_menu->addAction(dock->toggleViewAction());
  lessons_->addPresenterAction(view_menu);
}

// ---- Following the document and the evaluator ------------------------------------------------------------------

void MainWindow::on_document_changed(ProjectDocument::Change change) {
  if (change == ProjectDocument::Change::reset) {
    // A new project: its arrangement, and its evaluation at once.
    applyViewState(project().view);
    evaluator_->setServingTarget(serving_target_of(project()));
    evaluator_->setDebounceMs(0);
    evaluator_->request(project());
    evaluator_->setDebounceMs(Evaluator::kDefaultDebounceMs);
    return;
  }
  if (change == ProjectDocument::Change::serving_target) {
    evaluator_->setServingTarget(serving_target_of(project()));
    return;
  }
  evaluator_->request(project());
}

void MainWindow::on_evaluated(const Evaluation& e) {
  status_->setText(tr("Evaluated in %1 ms").arg(1000 * e.elapsed_s, 0, 'f', 1));
  emit viewsUpdated();
}

void MainWindow::on_searched(const SearchEvaluation& search) {
  search_progress_->hide();
  cancel_search_->hide();
  if (!search.error.empty()) {
    status_->setText(tr("Search: %1").arg(QString::fromStdString(search.error)));
    return;
  }
  if (search.training) {
    status_->setText(tr("Searched %1 candidates in %2 s: %3 valid")
                         .arg(static_cast<qlonglong>(search.training->evaluated))
                         .arg(search.elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search.training->valid)));
    if (select_best_layout_ && !search.training->layouts.empty()) {
      select_best_layout_ = false;
      apply_ranked(search.training->layouts.front());
      ranked_->selectRank(1, false);
    }
  } else if (search.serving) {
    status_->setText(tr("Searched %1 serving layouts in %2 s: %3 meet the target")
                         .arg(static_cast<qlonglong>(search.serving->evaluated))
                         .arg(search.elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search.serving->valid)));
  }
  emit viewsUpdated();
}

void MainWindow::apply_ranked(const RankedLayout& ranked) {
  document_->push(new ApplyRankedLayout(
      document_,
      {ranked.layout, ranked.recompute, ranked.zero_stage, ranked.schedule, ranked.order, ranked.tp_comm_overlap},
      ranked_layout_text(ranked)));
}

// ---- Views --------------------------------------------------------------------------------------------------------

QString MainWindow::inlineError() const {
  return summary_->error();
}

QStringList MainWindow::viewsInFront() const {
  QStringList names;
  for (const auto& [name, dock] : docks_)
    if (!dock->visibleRegion().isEmpty() && name != QStringLiteral("workload")) names << name;
  return names;
}

nlohmann::json MainWindow::viewState() const {
  nlohmann::json state = project().view;
  state["topology"] = topology_->viewState();
  state["docks"] = saveState().toBase64().toStdString();
  if (const QStringList shown = viewsInFront(); !shown.isEmpty()) state["front"] = shown.back().toStdString();
  return state;
}

void MainWindow::applyViewState(const nlohmann::json& state) {
  if (const auto docks = state.find("docks"); docks != state.end() && docks->is_string())
    restored_state_ |= restoreState(QByteArray::fromBase64(QByteArray::fromStdString(docks->get<std::string>())));
  if (const auto front = state.find("front"); front != state.end() && front->is_string())
    showView(QString::fromStdString(front->get<std::string>()));
}

bool MainWindow::showView(const QString& name, bool enlarge) {
  for (const auto& [key, dock] : docks_) {
    if (key.startsWith(name, Qt::CaseInsensitive) || dock->windowTitle().startsWith(name, Qt::CaseInsensitive)) {
      dock->show();
      dock->raise();
      // A bottom view (ranked layouts, comparison) takes most of the height when asked.
      if (enlarge && dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
        resizeDocks({docks_[QStringLiteral("memory")], dock}, {height() / 4, height() / 2}, Qt::Vertical);
      return true;
    }
  }
  return false;
}

QStringList MainWindow::viewNames() const {
  QStringList names;
  for (const auto& [key, dock] : docks_) names << key;
  return names;
}

QWidget* MainWindow::view(const QString& name) const {
  const auto it = docks_.find(name);
  return it == docks_.end() ? nullptr : it->second->widget();
}

QDockWidget* MainWindow::dock(const QString& name) const {
  const auto it = docks_.find(name);
  return it == docks_.end() ? nullptr : it->second;
}

bool MainWindow::setTradeoffAxes(const QString& axes) {
  auto* tradeoff = qobject_cast<TradeoffView*>(view(QStringLiteral("tradeoff")));
  const auto parsed = parse_tradeoff_axes(axes.toStdString());
  if (tradeoff == nullptr || !parsed) return false;
  tradeoff->setAxes(parsed->axis, parsed->axis2);
  return true;
}

bool MainWindow::pinRanks(int a, int b) {
  ranked_->clearPins();
  if (!ranked_->selectRank(a)) return false;
  ranked_->togglePinCurrent();
  if (!ranked_->selectRank(b)) return false;
  ranked_->togglePinCurrent();
  return ranked_->pinned().size() == 2;
}

void MainWindow::waitForEvaluation() {
  while (evaluator_->busy()) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
  QApplication::processEvents();
}

// ---- Window events ------------------------------------------------------------------------------------------------

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (arranged_) return;
  arranged_ = true;
  // The default arrangement, once the window has its size (a restored state overrides it).
  if (!restored_state_) {
    resizeDocks({docks_[QStringLiteral("workload")], docks_[QStringLiteral("memory")]}, {340, width() - 340},
                Qt::Horizontal);
    resizeDocks({docks_[QStringLiteral("memory")], docks_[QStringLiteral("ranked")]}, {height() * 3 / 5, height() / 3},
                Qt::Vertical);
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!session_->maybeSave()) {
    event->ignore();
    return;
  }
  session_->removeRecoveryFile();  // saved, discarded or clean: nothing to recover
  AppSettings settings;
  settings.set_window_geometry(saveGeometry());
  settings.set_window_state(saveState());
  evaluator_->cancelSearch();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!FileSession::droppedProject(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = FileSession::droppedProject(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  session_->openDropped(path);
}

}  // namespace meshscope::ui
