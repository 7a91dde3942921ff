#include "ui/window/main_window.hpp"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShowEvent>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoStack>

#include <utility>

#include "ui/document/project_commands.hpp"
#include "ui/explore/scaling_view.hpp"
#include "ui/explore/tradeoff_view.hpp"
#include "ui/panels/communication_panel.hpp"
#include "ui/panels/memory_panel.hpp"
#include "ui/panels/pipeline_panel.hpp"
#include "ui/panels/serving_panel.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/profile/profile_view.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/window/app_settings.hpp"
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
    : QMainWindow(parent),
      options_(std::move(options)),
      recovery_(options_.recovery_dir, QCoreApplication::applicationPid()) {
  setObjectName(QStringLiteral("meshscope_main_window"));
  resize(1600, 1000);
  setDockNestingEnabled(true);
  document_ = new ProjectDocument(project, this);
  evaluator_ = new Evaluator(this);
  connect(evaluator_, &Evaluator::evaluated, this, &MainWindow::show_evaluation);
  connect(evaluator_, &Evaluator::searched, this, &MainWindow::show_search);
  connect(evaluator_, &Evaluator::searchStarted, this, [this] {
    search_progress_->show();
    cancel_search_->show();
  });
  connect(evaluator_, &Evaluator::searchCancelled, this, [this] {
    search_progress_->hide();
    cancel_search_->hide();
    status_->setText(tr("Search cancelled; the next edit searches again."));
  });

  // The summary strip (a fixed top dock): the project, its verdict and the predicted numbers, with
  // an error banner above them for a file that failed to open or import.
  summary_ = new SummaryStrip(this);
  auto* top_dock = new QDockWidget(this);
  top_dock->setObjectName(QStringLiteral("summary_dock"));
  top_dock->setTitleBarWidget(new QWidget(top_dock));
  top_dock->setFeatures(QDockWidget::NoDockWidgetFeatures);
  top_dock->setWidget(summary_);
  addDockWidget(Qt::TopDockWidgetArea, top_dock);
  // The workload panel runs the full height on the left; the ranked table sits under the views.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);

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

  create_docks();
  create_menus();
  connect(document_, &ProjectDocument::changed, this, &MainWindow::on_document_changed);
  // Undoing or redoing back to the saved state clears the modified mark; anything else sets it.
  connect(document_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::update_modified);
  autosave_timer_ = new QTimer(this);
  connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosaveNow);
  setAutosaveInterval(options_.autosave_interval_s);
  setAcceptDrops(true);
  setProject(project);
}

MainWindow::~MainWindow() {
  // The children (the document and its undo stack among them) outlive this body: no more marks.
  disconnect(document_, nullptr, this, nullptr);
  disconnect(document_->undoStack(), nullptr, this, nullptr);
}

QDockWidget* MainWindow::add_dock(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name + QStringLiteral("_dock"));
  dock->setWidget(widget);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  addDockWidget(area, dock);
  docks_[name] = dock;
  return dock;
}

void MainWindow::create_docks() {
  // Workload (left).
  workload_ = new WorkloadPanel(document_);
  QScrollArea* workload_scroll = scrolled(workload_);
  workload_scroll->setMinimumWidth(330);
  add_dock(QStringLiteral("workload"), tr("Workload"), workload_scroll, Qt::LeftDockWidgetArea);

  // Topology (right, the first of the tabbed views): the cluster, editable, and the
  // communication map of the current layout drawn on it.
  // Its edits are steps of the project's history; after each, the drawn cluster is the project's.
  topology_ = new TopologyEditor(document_->undoStack());
  topology_->setObjectName(QStringLiteral("topology_editor"));
  connect(topology_, &TopologyEditor::clusterChanged, this, [this] {
    if (loading_cluster_) return;  // the editor shows the project's cluster; nothing was edited
    document_->adoptDrawnCluster(topology_->cluster());
  });
  QDockWidget* topology_dock = add_dock(QStringLiteral("topology"), tr("Topology"), topology_, Qt::RightDockWidgetArea);

  // Memory: the stacked bars beside the exact table.
  memory_ = new MemoryPanel;
  QDockWidget* memory_dock = add_dock(QStringLiteral("memory"), tr("Memory budget"), memory_, Qt::RightDockWidgetArea);

  // Pipeline: the chosen schedule, and optionally a second one below it.
  pipeline_ = new PipelinePanel(document_);
  QDockWidget* pipeline_dock =
      add_dock(QStringLiteral("pipeline"), tr("Pipeline schedule"), scrolled(pipeline_), Qt::RightDockWidgetArea);

  // Communication: the collectives of one axis or all; the topology's map follows the axis.
  communication_ = new CommunicationPanel;
  connect(communication_, &CommunicationPanel::axisChanged, topology_, &TopologyEditor::setCommAxis);
  connect(communication_, &CommunicationPanel::showMapRequested, this,
          [this] { showView(QStringLiteral("topology")); });
  QDockWidget* comm_dock =
      add_dock(QStringLiteral("communication"), tr("Communication"), communication_, Qt::RightDockWidgetArea);

  // Serving: latency against throughput for the current layout and the best-ranked ones.
  serving_ = new ServingPanel(document_);
  QDockWidget* serving_dock =
      add_dock(QStringLiteral("serving"), tr("Serving latency"), serving_, Qt::RightDockWidgetArea);

  explain_ = new QTextBrowser;
  explain_->setObjectName(QStringLiteral("explain"));
  explain_->setOpenExternalLinks(true);
  QDockWidget* explain_dock = add_dock(QStringLiteral("explain"), tr("Explain"), explain_, Qt::RightDockWidgetArea);

  // Ranked layouts and the comparison of two pinned ones (bottom).
  ranked_ = new RankedLayoutsPanel;
  ranked_->setObjectName(QStringLiteral("ranked_layouts"));
  connect(ranked_, &RankedLayoutsPanel::layoutActivated, this, [this](const RankedLayout& layout) {
    if (!updating_ranked_) apply_ranked(layout);
  });
  connect(ranked_, &RankedLayoutsPanel::exportRequested, this, &MainWindow::exportRankedLayout);
  connect(ranked_, &RankedLayoutsPanel::servingLayoutActivated, this, [this](const RankedServing& ranked) {
    if (updating_ranked_) return;
    if (ranked.disaggregated) {
      status_->setText(
          tr("Disaggregated prefill/decode layouts are ranked but not yet editable as the current layout."));
      return;
    }
    document_->push(new SetServingLayout(document_, ranked.layout, {}, {}));
  });
  connect(ranked_, &RankedLayoutsPanel::pinnedChanged, this, [this](const std::vector<RankedLayout>& pinned) {
    pinned_ = pinned;
    update_compare();
  });
  QDockWidget* ranked_dock =
      add_dock(QStringLiteral("ranked"), tr("Ranked layouts"), ranked_, Qt::BottomDockWidgetArea);
  compare_ = new LayoutCompareWidget;
  compare_->setObjectName(QStringLiteral("layout_compare"));
  QDockWidget* compare_dock =
      add_dock(QStringLiteral("compare"), tr("Compare pinned"), compare_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(ranked_dock, compare_dock);
  // Scaling (issue 17 §2): the project's best layout from one GPU count to another; it searches when shown.
  ranked_dock->raise();

  tabifyDockWidget(topology_dock, memory_dock);
  tabifyDockWidget(memory_dock, pipeline_dock);
  tabifyDockWidget(pipeline_dock, comm_dock);
  tabifyDockWidget(comm_dock, explain_dock);
  tabifyDockWidget(explain_dock, serving_dock);
  // Profile: an imported trace beside the prediction for the current layout.
  profile_ = new ProfileView;
  profile_->setObjectName(QStringLiteral("profile_view"));
  connect(profile_, &ProfileView::imported, this, [this] {
    update_profile_prediction();
    showView(QStringLiteral("profile"));
  });
  QDockWidget* profile_dock = add_dock(QStringLiteral("profile"), tr("Profile"), profile_, Qt::RightDockWidgetArea);
  tabifyDockWidget(serving_dock, profile_dock);
  // Trade-offs (issue 17): one knob along an axis, the rest fixed; two as a heat map (ui/explore/tradeoff_view.hpp).
  QDockWidget* tradeoff_dock =
      add_dock(QStringLiteral("tradeoff"), tr("Trade-offs"), new TradeoffView(document_), Qt::RightDockWidgetArea);
  tabifyDockWidget(profile_dock, tradeoff_dock);
  // Scaling (issue 17): the search's best layout from N to M GPUs, weak or strong (ui/explore/scaling_view.hpp).
  auto* scaling = new ScalingView(document_);
  scaling->setObjectName(QStringLiteral("scaling_view"));
  tabifyDockWidget(tradeoff_dock, add_dock(QStringLiteral("scaling"), tr("Scaling"), scaling, Qt::RightDockWidgetArea));
  memory_dock->raise();
  create_lesson_dock();  // ui/window/main_window_lessons.cpp
}

void MainWindow::setProject(const Project& project) {
  document_->reset(project);  // a new project starts a new history
  recovered_unsaved_ = autosave_pending_ = false;
  setWindowTitle(tr("meshscope \u2014 %1[*]").arg(QString::fromStdString(project.name)));
  update_modified();
  editor_needs_cluster_ = true;
  applyViewState(project.view);
  evaluator_->setServingTarget(serving_target());
  evaluator_->setDebounceMs(0);
  evaluator_->request(document_->project());
  evaluator_->setDebounceMs(Evaluator::kDefaultDebounceMs);
}

void MainWindow::on_document_changed(ProjectDocument::Change change) {
  if (change == ProjectDocument::Change::reset) return;  // setProject goes on
  autosave_pending_ = true;
  if (change == ProjectDocument::Change::serving_target) {
    evaluator_->setServingTarget(serving_target());
    return;
  }
  // A cluster chosen elsewhere (a generator, an import, their undo or redo) replaces the one in
  // the editor at once: the topology steps next to this one in the history were made on it.
  if (change == ProjectDocument::Change::cluster) {
    if (project().cluster_inline) {
      load_editor_cluster(*project().cluster_inline, project());
    } else if (Result<Cluster> cluster = project_cluster(project())) {
      load_editor_cluster(*cluster, project());
    } else {
      editor_needs_cluster_ = true;  // the evaluation says why it does not resolve
    }
  }
  evaluator_->request(project());
}

void MainWindow::load_editor_cluster(const Cluster& cluster, const Project& project) {
  editor_needs_cluster_ = false;
  loading_cluster_ = true;
  topology_->setCluster(cluster);
  loading_cluster_ = false;
  if (const auto state = project.view.find("topology"); state != project.view.end() && state->is_object())
    topology_->setViewState(*state);
}

void MainWindow::show_inline_error(const QString& message) {
  summary_->setError(message);
}

QString MainWindow::inlineError() const {
  return summary_->error();
}

nlohmann::json MainWindow::viewState() const {
  nlohmann::json state = project().view;
  state["topology"] = topology_->viewState();
  state["docks"] = saveState().toBase64().toStdString();
  for (const auto& [name, dock] : docks_)
    if (!dock->visibleRegion().isEmpty() && name != QStringLiteral("workload")) state["front"] = name.toStdString();
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

bool MainWindow::pinRanks(int a, int b) {
  ranked_->clearPins();
  if (!ranked_->selectRank(a)) return false;
  ranked_->togglePinCurrent();
  if (!ranked_->selectRank(b)) return false;
  ranked_->togglePinCurrent();
  return pinned_.size() == 2;
}

void MainWindow::waitForEvaluation() {
  while (evaluator_->busy()) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
  QApplication::processEvents();
}

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
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  recovery_.remove();  // saved, discarded or clean: nothing to recover
  AppSettings settings;
  settings.set_window_geometry(saveGeometry());
  settings.set_window_state(saveState());
  evaluator_->cancelSearch();
  QMainWindow::closeEvent(event);
}

}  // namespace meshscope::ui
