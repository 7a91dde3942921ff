#include "ui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <utility>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/catalogue.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/node_topology.hpp"
#include "core/model_io.hpp"
#include "core/report.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "ui/comm_table_model.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/formatting.hpp"
#include "ui/layout_compare.hpp"
#include "ui/main_window_text.hpp"
#include "ui/memory_chart.hpp"
#include "ui/memory_table_model.hpp"
#include "ui/padded_item_delegate.hpp"
#include "ui/pipeline_chart.hpp"
#include "ui/profile_view.hpp"
#include "ui/ranked_layouts_model.hpp"
#include "ui/ranked_layouts_panel.hpp"
#include "ui/serving_chart.hpp"
#include "ui/topology_editor.hpp"
#include "ui/workload_panel.hpp"

namespace meshscope::ui {

using namespace window_text;

namespace {

// A table view as large as its cells plus the scroll bars it shows. AdjustToContents alone
// reserves room for the scroll bars even while they are hidden (Qt 6.4 asks the bars, not their
// hidden containers), and does not ask for more height when a horizontal scroll bar appears.
class ContentSizedTableView final : public QTableView {
 public:
  explicit ContentSizedTableView(QWidget* parent) : QTableView(parent) {
    for (const QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
      connect(bar, &QScrollBar::rangeChanged, this, [this] { updateGeometry(); });
  }
  [[nodiscard]] QSize sizeHint() const override {
    const int frame = 2 * frameWidth();
    QSize hint = viewportSizeHint() + QSize(frame, frame);
    if (horizontalScrollBar()->isVisible()) hint.rheight() += horizontalScrollBar()->sizeHint().height();
    if (verticalScrollBar()->isVisible()) hint.rwidth() += verticalScrollBar()->sizeHint().width();
    return hint;
  }
};

// A view in a scroll area, so that a small window scrolls instead of growing past the screen.
QScrollArea* scrolled(QWidget* widget) {
  auto* area = new QScrollArea;
  area->setWidget(widget);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

void style_table(QTableView* view) {
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  // Room around the numbers and the labels; ResizeToContents includes it in every section.
  view->setItemDelegate(new PaddedItemDelegate(12, 4, view));
  view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

}  // namespace

QString budget_header_html(const Project& project, const MemoryBudget& budget) {
  QStringList lines;
  lines << title_line(project);
  lines << layout_line(project).toHtmlEscaped();
  lines << html(budget.convention);
  if (project.mode == Mode::serving && budget.max_concurrency > 0)
    lines << QObject::tr("KV cache %1 per token, at most %2 concurrent sequences")
                 .arg(exact_bytes_text(budget.kv_bytes_per_token))
                 .arg(static_cast<qlonglong>(budget.max_concurrency));
  const bool fits = budget.fits();
  lines << QObject::tr("peak %1 of %2 \u2014 <span style=\"color:%3\"><b>%4</b></span>")
               .arg(gib_text(budget.peak_total_bytes()), gib_text(budget.usable_bytes),
                    fits ? kFitsColour : kProblemColour, fits ? QObject::tr("fits") : QObject::tr("does not fit"));
  return lines.join(QStringLiteral("<br>"));
}

QString problems_header_html(const Project& project, const std::vector<LayoutProblem>& problems) {
  QString text = title_line(project) + QStringLiteral("<br>") + layout_line(project).toHtmlEscaped();
  text += QStringLiteral("<p style=\"color:%1\"><b>%2</b></p><ul style=\"color:%1\">")
              .arg(kProblemColour, QObject::tr("This layout is not valid:"));
  for (const LayoutProblem& problem : problems)
    text += QStringLiteral("<li><b>%1</b>: %2</li>").arg(html(problem.field), html(problem.message));
  return text + QStringLiteral("</ul>");
}

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
  auto* top = new QWidget(this);
  top->setObjectName(QStringLiteral("summary_strip"));
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(8, 4, 8, 4);
  error_banner_ = new QLabel(top);
  error_banner_->setObjectName(QStringLiteral("error_banner"));
  error_banner_->setWordWrap(true);
  error_banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_banner_->setStyleSheet(
      QStringLiteral("QLabel { background: #fdecea; color: #8e1b1b; border: 1px solid #e0a0a0; padding: 6px; }"));
  error_banner_->hide();
  top_layout->addWidget(error_banner_);
  auto* strip = new QHBoxLayout;
  strip->setSpacing(24);
  header_ = new QLabel(top);
  header_->setObjectName(QStringLiteral("header"));
  header_->setTextFormat(Qt::RichText);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  strip->addWidget(header_, 3);
  summary_ = new QLabel(top);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  strip->addWidget(summary_, 2);
  top_layout->addLayout(strip);
  auto* top_dock = new QDockWidget(this);
  top_dock->setObjectName(QStringLiteral("summary_dock"));
  top_dock->setTitleBarWidget(new QWidget(top_dock));
  top_dock->setFeatures(QDockWidget::NoDockWidgetFeatures);
  top_dock->setWidget(top);
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
  auto* memory = new QWidget;
  auto* memory_layout = new QHBoxLayout(memory);
  memory_chart_ = new MemoryChart(memory);
  memory_chart_->setObjectName(QStringLiteral("memory_chart"));
  memory_chart_->setMinimumWidth(480);
  auto* memory_table_box = new QWidget(memory);
  auto* memory_table_layout = new QVBoxLayout(memory_table_box);
  memory_model_ = new MemoryTableModel(this);
  memory_view_ = new ContentSizedTableView(memory_table_box);
  memory_view_->setObjectName(QStringLiteral("memory_table"));
  memory_view_->setModel(memory_model_);
  style_table(memory_view_);
  // Tighter than the other tables: it sits beside the chart.
  memory_view_->setItemDelegate(new PaddedItemDelegate(8, 3, memory_view_));
  memory_view_->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 3px 8px; }"));
  memory_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  memory_view_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  memory_table_layout->addWidget(memory_view_, 0, Qt::AlignLeft | Qt::AlignTop);
  memory_table_layout->addStretch(1);
  memory_layout->addWidget(memory_chart_, 1);
  memory_layout->addWidget(memory_table_box, 0);
  QDockWidget* memory_dock = add_dock(QStringLiteral("memory"), tr("Memory budget"), memory, Qt::RightDockWidgetArea);

  // Pipeline: the chosen schedule, and optionally a second one below it.
  auto* pipeline = new QWidget;
  auto* pipeline_layout = new QVBoxLayout(pipeline);
  auto* pipeline_bar = new QHBoxLayout;
  // The schedule, the virtual stages and the micro-batch size, switched here as in the workload panel.
  pipeline_bar->addWidget(new QLabel(tr("Schedule"), pipeline));
  pipeline_schedule_ = new QComboBox(pipeline);
  pipeline_schedule_->setObjectName(QStringLiteral("pipeline_schedule_here"));
  pipeline_schedule_->addItem(tr("workload default"), QString());
  for (const char* name : {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "dualpipe"})
    pipeline_schedule_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
  connect(pipeline_schedule_, &QComboBox::activated, this, [this] {
    const QString name = pipeline_schedule_->currentData().toString();
    document_->push(
        new SetSchedule(document_, name.isEmpty() ? std::nullopt : parse_pipeline_schedule(name.toStdString())));
  });
  pipeline_bar->addWidget(pipeline_schedule_);
  pipeline_bar->addWidget(new QLabel(tr("virtual stages"), pipeline));
  pipeline_vpp_ = new QSpinBox(pipeline);
  pipeline_vpp_->setRange(1, 64);
  pipeline_vpp_->setKeyboardTracking(false);
  connect(pipeline_vpp_, &QSpinBox::valueChanged, this, [this](int value) {
    Layout layout = project().layout;
    layout.vpp = value;
    document_->push(new SetLayout(document_, layout, QStringLiteral("vpp"), QString::number(value)));
  });
  pipeline_bar->addWidget(pipeline_vpp_);
  pipeline_bar->addWidget(new QLabel(tr("micro-batch size"), pipeline));
  pipeline_mbs_ = new QSpinBox(pipeline);
  pipeline_mbs_->setRange(1, 4096);
  pipeline_mbs_->setKeyboardTracking(false);
  connect(pipeline_mbs_, &QSpinBox::valueChanged, this, [this](int value) {
    Layout layout = project().layout;
    layout.micro_batch = value;
    document_->push(new SetLayout(document_, layout, QStringLiteral("micro_batch"), QString::number(value)));
  });
  pipeline_bar->addWidget(pipeline_mbs_);
  pipeline_bar->addSpacing(24);
  pipeline_bar->addWidget(new QLabel(tr("Compare with"), pipeline));
  compare_schedule_ = new QComboBox(pipeline);
  compare_schedule_->setObjectName(QStringLiteral("compare_schedule"));
  compare_schedule_->addItem(tr("(none)"), QString());
  for (const char* name : {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "dualpipe"})
    compare_schedule_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
  connect(compare_schedule_, &QComboBox::activated, this,
          [this] { document_->push(new SetCompareSchedule(document_, compare_schedule_->currentData().toString())); });
  pipeline_bar->addWidget(compare_schedule_);
  pipeline_bar->addStretch(1);
  pipeline_layout->addLayout(pipeline_bar);
  pipeline_caption_ = new QLabel(pipeline);
  pipeline_caption_->setTextFormat(Qt::RichText);
  pipeline_layout->addWidget(pipeline_caption_);
  pipeline_chart_ = new PipelineChart(pipeline);
  pipeline_layout->addWidget(pipeline_chart_);
  compare_caption_ = new QLabel(pipeline);
  compare_caption_->setTextFormat(Qt::RichText);
  pipeline_layout->addWidget(compare_caption_);
  compare_chart_ = new PipelineChart(pipeline);
  compare_chart_->setObjectName(QStringLiteral("compare_chart"));
  pipeline_layout->addWidget(compare_chart_);
  pipeline_layout->addStretch(1);
  QDockWidget* pipeline_dock =
      add_dock(QStringLiteral("pipeline"), tr("Pipeline schedule"), scrolled(pipeline), Qt::RightDockWidgetArea);

  // Communication: the collectives of one axis or all.
  auto* comm = new QWidget;
  auto* comm_layout = new QVBoxLayout(comm);
  auto* comm_bar = new QHBoxLayout;
  comm_bar->addWidget(new QLabel(tr("Mesh axis"), comm));
  comm_axis_ = new QComboBox(comm);
  comm_axis_->setObjectName(QStringLiteral("comm_axis"));
  comm_axis_->addItem(tr("all"), QString());
  for (const char* axis : {"dp", "tp", "pp", "cp", "ep"})
    comm_axis_->addItem(QString::fromLatin1(axis).toUpper(), QString::fromLatin1(axis));
  comm_bar->addWidget(comm_axis_);
  connect(comm_axis_, &QComboBox::currentIndexChanged, this, [this] {
    const QString axis = comm_axis_->currentData().toString();
    std::optional<MeshAxis> chosen;
    for (MeshAxis candidate : {MeshAxis::dp, MeshAxis::tp, MeshAxis::pp, MeshAxis::cp, MeshAxis::ep})
      if (axis == QString::fromStdString(std::string(mesh_axis_name(candidate)))) chosen = candidate;
    topology_->setCommAxis(chosen);
    comm_proxy_->setFilterRegularExpression(
        axis.isEmpty()
            ? QRegularExpression()
            : QRegularExpression(QStringLiteral("^%1$").arg(axis), QRegularExpression::CaseInsensitiveOption));
  });
  auto* show_map = new QPushButton(tr("Show on the topology"), comm);
  connect(show_map, &QPushButton::clicked, this, [this] { showView(QStringLiteral("topology")); });
  comm_bar->addWidget(show_map);
  comm_bar->addStretch(1);
  comm_layout->addLayout(comm_bar);
  comm_exposed_ = new QLabel(comm);
  comm_exposed_->setObjectName(QStringLiteral("comm_exposed"));
  comm_exposed_->setTextFormat(Qt::RichText);
  comm_exposed_->setWordWrap(true);
  comm_layout->addWidget(comm_exposed_);
  comm_model_ = new CommTableModel(this);
  comm_proxy_ = new QSortFilterProxyModel(this);
  comm_proxy_->setSourceModel(comm_model_);
  comm_proxy_->setFilterKeyColumn(0);  // the axis
  comm_proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  auto* comm_view = new QTableView(comm);
  comm_view->setObjectName(QStringLiteral("comm_table"));
  comm_view->setModel(comm_proxy_);
  style_table(comm_view);
  comm_view->verticalHeader()->hide();
  comm_layout->addWidget(comm_view, 1);
  QDockWidget* comm_dock =
      add_dock(QStringLiteral("communication"), tr("Communication"), comm, Qt::RightDockWidgetArea);

  // Serving: latency against throughput for the current layout and the best-ranked ones.
  auto* serving = new QWidget;
  auto* serving_layout = new QVBoxLayout(serving);
  auto* target_bar = new QHBoxLayout;
  target_bar->addWidget(new QLabel(tr("Target: TTFT ≤"), serving));
  ttft_target_ = new QSpinBox(serving);
  ttft_target_->setObjectName(QStringLiteral("target_ttft_ms"));
  ttft_target_->setRange(0, 600000);
  ttft_target_->setSuffix(tr(" ms"));
  ttft_target_->setSpecialValueText(tr("none"));
  ttft_target_->setKeyboardTracking(false);
  target_bar->addWidget(ttft_target_);
  target_bar->addWidget(new QLabel(tr("ITL ≤"), serving));
  itl_target_ = new QSpinBox(serving);
  itl_target_->setObjectName(QStringLiteral("target_itl_ms"));
  itl_target_->setRange(0, 60000);
  itl_target_->setSuffix(tr(" ms"));
  itl_target_->setSpecialValueText(tr("none"));
  itl_target_->setKeyboardTracking(false);
  target_bar->addWidget(itl_target_);
  target_bar->addStretch(1);
  serving_layout->addLayout(target_bar);
  for (QSpinBox* spin : {ttft_target_, itl_target_})
    connect(spin, &QSpinBox::valueChanged, this,
            [this] { document_->push(new SetServingTarget(document_, ttft_target_->value(), itl_target_->value())); });
  serving_chart_ = new ServingCurveChart(serving);
  serving_chart_->setObjectName(QStringLiteral("serving_chart"));
  serving_layout->addWidget(serving_chart_, 1);
  QDockWidget* serving_dock =
      add_dock(QStringLiteral("serving"), tr("Serving latency"), serving, Qt::RightDockWidgetArea);

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
  memory_dock->raise();
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
  sync_project_controls();
  if (change == ProjectDocument::Change::reset) return;  // setProject goes on
  autosave_pending_ = true;
  if (change == ProjectDocument::Change::serving_target) {
    evaluator_->setServingTarget(serving_target());
    return;
  }
  // A cluster chosen elsewhere (a generator, an import, their undo) replaces the one in the
  // editor: at once when it is drawn (inline), once it is resolved otherwise.
  if (change == ProjectDocument::Change::cluster) {
    editor_needs_cluster_ = true;
    if (project().cluster_inline) load_editor_cluster(*project().cluster_inline, project());
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

void MainWindow::sync_project_controls() {
  const Project& p = project();
  const QSignalBlocker b1(pipeline_schedule_), b2(pipeline_vpp_), b3(pipeline_mbs_), b4(compare_schedule_),
      b5(ttft_target_), b6(itl_target_);
  const QString schedule = p.pipeline_schedule
                               ? QString::fromStdString(std::string(pipeline_schedule_name(*p.pipeline_schedule)))
                               : QString();
  pipeline_schedule_->setCurrentIndex(std::max(0, pipeline_schedule_->findData(schedule)));
  pipeline_vpp_->setValue(static_cast<int>(p.layout.vpp));
  pipeline_mbs_->setValue(static_cast<int>(p.layout.micro_batch));
  const auto compare = p.view.find("compare_schedule");
  compare_schedule_->setCurrentIndex(
      std::max(0, compare_schedule_->findData(compare != p.view.end() && compare->is_string()
                                                  ? QString::fromStdString(compare->get<std::string>())
                                                  : QString())));
  const auto target = p.view.find("serving_target");
  const bool has = target != p.view.end() && target->is_object();
  // Interactive defaults: first token within 2 s, 50 ms between tokens (20 tokens/s per user).
  ttft_target_->setValue(has ? target->value("ttft_ms", 2000) : 2000);
  itl_target_->setValue(has ? target->value("itl_ms", 50) : 50);
}

void MainWindow::show_inline_error(const QString& message) {
  error_banner_->setText(message);
  error_banner_->setVisible(!message.isEmpty());
}

QString MainWindow::inlineError() const {
  return error_banner_->isHidden() ? QString() : error_banner_->text();
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
  QSettings settings;
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("windowState"), saveState());
  evaluator_->cancelSearch();
  QMainWindow::closeEvent(event);
}

}  // namespace meshscope::ui
