#include "ui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
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
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "core/catalogue.hpp"
#include "core/model_io.hpp"
#include "core/report.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "ui/comm_table_model.hpp"
#include "ui/formatting.hpp"
#include "ui/memory_table_model.hpp"
#include "ui/padded_item_delegate.hpp"
#include "ui/pipeline_chart.hpp"
#include "ui/workload_panel.hpp"

namespace meshscope::ui {

namespace {

// Verdict colours chosen to stay readable on light and dark palettes.
const QString kFitsColour = QStringLiteral("#2e7d32");
const QString kProblemColour = QStringLiteral("#c62828");
constexpr int kMaxRecentFiles = 8;

QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

QString mode_text(Mode mode) {
  return mode == Mode::training ? QObject::tr("training") : QObject::tr("serving");
}

// "Llama-3.1-70B on NVIDIA H100 SXM5 80GB × 64 · training"
QString title_line(const Project& project) {
  QString line = QObject::tr("<span style=\"font-size:large\"><b>%1</b></span> on %2")
                     .arg(html(project.model.name), html(project.gpu.name));
  if (project.gpu_count > 0) line += QStringLiteral(" \u00d7 %1").arg(static_cast<qlonglong>(project.gpu_count));
  return line + QStringLiteral(" \u00b7 ") + mode_text(project.mode);
}

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

void style_table(QTableView* view) {
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  // Room around the numbers and the labels; ResizeToContents includes it in every section.
  view->setItemDelegate(new PaddedItemDelegate(12, 4, view));
  view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

// The time from the first event to the end of stage 0's 3·p·v-th work item: the warm-up and the
// start of the steady state. 0 when the whole schedule is shorter than that (nothing to zoom).
double warm_up_window_s(const ScheduleResult& schedule) {
  const auto stages = static_cast<int64_t>(schedule.busy_s.size());
  if (schedule.events.empty() || stages == 0) return 0;
  int64_t chunks = 1;
  for (const ScheduleEvent& event : schedule.events) chunks = std::max(chunks, event.chunk + 1);
  const double first = schedule.events.front().start_s;
  const auto wanted = static_cast<size_t>(3 * stages * chunks);
  size_t seen = 0;
  for (const ScheduleEvent& event : schedule.events) {
    if (event.stage != 0) break;
    if (++seen == wanted) return event.end_s - first < 0.5 * schedule.makespan_s ? event.end_s - first : 0.0;
  }
  return 0;
}

QString schedule_caption(const StepEstimate& estimate) {
  return QObject::tr("<b>%1</b> · %2 micro-batches · makespan %3 · bubble %4 % · step %5 s")
      .arg(QString::fromStdString(std::string(pipeline_schedule_name(estimate.pipeline_schedule))))
      .arg(static_cast<qlonglong>(estimate.micro_batches))
      .arg(duration_text(estimate.schedule.makespan_s))
      .arg(100 * estimate.bubble_fraction, 0, 'f', 1)
      .arg(estimate.step_time_s, 0, 'f', 2);
}

bool write_file(const QString& path, const QByteArray& bytes, QString& error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString csv_field(QString text) {
  if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n')))
    return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
  return text;
}

}  // namespace

QString budget_header_html(const Project& project, const MemoryBudget& budget) {
  QStringList lines;
  lines << title_line(project);
  lines << layout_summary(project.layout).toHtmlEscaped();
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
  QString text = title_line(project) + QStringLiteral("<br>") + layout_summary(project.layout).toHtmlEscaped();
  text += QStringLiteral("<p style=\"color:%1\"><b>%2</b></p><ul style=\"color:%1\">")
              .arg(kProblemColour, QObject::tr("This layout is not valid:"));
  for (const LayoutProblem& problem : problems)
    text += QStringLiteral("<li><b>%1</b>: %2</li>").arg(html(problem.field), html(problem.message));
  return text + QStringLiteral("</ul>");
}

MainWindow::MainWindow(const Project& project, QWidget* parent) : MainWindow(project, Options{}, parent) {}

MainWindow::MainWindow(const Project& project, Options options, QWidget* parent)
    : QMainWindow(parent), project_(project), options_(options) {
  setObjectName(QStringLiteral("meshscope_main_window"));
  resize(1600, 1000);
  setDockNestingEnabled(true);
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

  auto* central = new QWidget(this);
  auto* central_layout = new QVBoxLayout(central);
  error_banner_ = new QLabel(central);
  error_banner_->setObjectName(QStringLiteral("error_banner"));
  error_banner_->setWordWrap(true);
  error_banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_banner_->setStyleSheet(
      QStringLiteral("QLabel { background: #fdecea; color: #8e1b1b; border: 1px solid #e0a0a0; padding: 6px; }"));
  error_banner_->hide();
  central_layout->addWidget(error_banner_);
  header_ = new QLabel(central);
  header_->setTextFormat(Qt::RichText);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  central_layout->addWidget(header_);
  summary_ = new QLabel(central);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  central_layout->addWidget(summary_);
  auto* topology_placeholder = new QLabel(tr("Topology editor"), central);
  topology_placeholder->setAlignment(Qt::AlignCenter);
  central_layout->addWidget(topology_placeholder, 1);
  setCentralWidget(central);

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
  setProject(project);
}

MainWindow::~MainWindow() = default;

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
  workload_ = new WorkloadPanel;
  connect(workload_, &WorkloadPanel::projectEdited, this, &MainWindow::edit);
  auto* workload_scroll = new QScrollArea;
  workload_scroll->setWidget(workload_);
  workload_scroll->setWidgetResizable(true);
  workload_scroll->setMinimumWidth(360);
  add_dock(QStringLiteral("workload"), tr("Workload"), workload_scroll, Qt::LeftDockWidgetArea);

  // Memory (right, the first of the tabbed views).
  auto* memory = new QWidget;
  auto* memory_layout = new QVBoxLayout(memory);
  memory_model_ = new MemoryTableModel(this);
  memory_view_ = new ContentSizedTableView(memory);
  memory_view_->setObjectName(QStringLiteral("memory_table"));
  memory_view_->setModel(memory_model_);
  style_table(memory_view_);
  memory_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  memory_view_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  memory_layout->addWidget(memory_view_, 0, Qt::AlignLeft | Qt::AlignTop);
  memory_layout->addStretch(1);
  QDockWidget* memory_dock = add_dock(QStringLiteral("memory"), tr("Memory budget"), memory, Qt::RightDockWidgetArea);

  // Pipeline: the chosen schedule, and optionally a second one below it.
  auto* pipeline = new QWidget;
  auto* pipeline_layout = new QVBoxLayout(pipeline);
  auto* pipeline_bar = new QHBoxLayout;
  pipeline_bar->addWidget(new QLabel(tr("Compare with"), pipeline));
  compare_schedule_ = new QComboBox(pipeline);
  compare_schedule_->setObjectName(QStringLiteral("compare_schedule"));
  compare_schedule_->addItem(tr("(none)"), QString());
  for (const char* name : {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "dualpipe"})
    compare_schedule_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
  connect(compare_schedule_, &QComboBox::activated, this, [this] {
    Project edited = project_;
    const QString name = compare_schedule_->currentData().toString();
    if (name.isEmpty())
      edited.view.erase("compare_schedule");
    else
      edited.view["compare_schedule"] = name.toStdString();
    edit(edited);
  });
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
      add_dock(QStringLiteral("pipeline"), tr("Pipeline schedule"), pipeline, Qt::RightDockWidgetArea);

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
  comm_bar->addStretch(1);
  comm_layout->addLayout(comm_bar);
  comm_model_ = new CommTableModel(this);
  auto* comm_view = new QTableView(comm);
  comm_view->setObjectName(QStringLiteral("comm_table"));
  comm_view->setModel(comm_model_);
  style_table(comm_view);
  comm_view->verticalHeader()->hide();
  comm_layout->addWidget(comm_view, 1);
  QDockWidget* comm_dock =
      add_dock(QStringLiteral("communication"), tr("Communication"), comm, Qt::RightDockWidgetArea);

  explain_ = new QTextBrowser;
  explain_->setObjectName(QStringLiteral("explain"));
  explain_->setOpenExternalLinks(true);
  QDockWidget* explain_dock = add_dock(QStringLiteral("explain"), tr("Explain"), explain_, Qt::RightDockWidgetArea);

  tabifyDockWidget(memory_dock, pipeline_dock);
  tabifyDockWidget(pipeline_dock, comm_dock);
  tabifyDockWidget(comm_dock, explain_dock);
  memory_dock->raise();
  resizeDocks({docks_[QStringLiteral("workload")], memory_dock}, {380, 820}, Qt::Horizontal);
}

void MainWindow::create_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QMenu* new_menu = file->addMenu(tr("&New"));
  QAction* new_default = new_menu->addAction(tr("Default project"));
  connect(new_default, &QAction::triggered, this, [this] {
    if (auto project = default_project()) {
      path_.clear();
      setProject(*project);
    }
  });
  QMenu* samples = new_menu->addMenu(tr("From a sample cluster"));
  for (const SampleCluster& sample : sample_clusters()) {
    const QString file_name = QString::fromUtf8(sample.file.data(), static_cast<qsizetype>(sample.file.size()));
    QAction* action = samples->addAction(file_name);
    const std::string text(sample.text);
    connect(action, &QAction::triggered, this, [this, text, file_name] {
      auto doc = parse_json_text(text, file_name.toStdString());
      auto cluster =
          doc ? cluster_from_json(*doc, file_name.toStdString()) : Result<Cluster>(tl::unexpected(doc.error()));
      if (!cluster) return show_inline_error(QString::fromStdString(cluster.error().to_string()));
      Project edited = project_;
      edited.cluster_inline = std::move(*cluster);
      edited.cluster.clear();
      edited.name = edited.model.name + " on " + edited.cluster_inline->name;
      path_.clear();
      setProject(edited);
    });
  }
  QAction* from_generator = new_menu->addAction(tr("From a generator…"));
  connect(from_generator, &QAction::triggered, this, [this] {
    bool ok = false;
    const QString spec = QInputDialog::getText(this, tr("New project from a generator"),
                                               tr("Generator string, e.g. dgx-h100:nodes=16 (docs/cluster-format.md)"),
                                               QLineEdit::Normal, QStringLiteral("dgx-h100:nodes=8"), &ok);
    if (!ok || spec.isEmpty()) return;
    auto cluster = resolve_cluster(spec.toStdString());
    if (!cluster) return show_inline_error(QString::fromStdString(cluster.error().to_string()));
    Project edited = project_;
    edited.cluster = spec.toStdString();
    edited.cluster_inline.reset();
    edited.gpu_count = cluster->num_gpus();
    path_.clear();
    setProject(edited);
  });
  QAction* open = file->addAction(tr("&Open…"));
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("meshscope projects (*.json);;All files (*)"));
    if (!path.isEmpty()) openProject(path);
  });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuild_recent_menu();
  QAction* save = file->addAction(tr("&Save"));
  save->setShortcut(QKeySequence::Save);
  QAction* save_as = file->addAction(tr("Save &As…"));
  save_as->setShortcut(QKeySequence::SaveAs);
  const auto ask_save = [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save project"), path_, tr("meshscope projects (*.json)"));
    if (!path.isEmpty()) saveProject(path);
  };
  connect(save, &QAction::triggered, this, [this, ask_save] {
    if (path_.isEmpty())
      ask_save();
    else
      saveProject(path_);
  });
  connect(save_as, &QAction::triggered, this, ask_save);
  file->addSeparator();
  QMenu* export_menu = file->addMenu(tr("&Export"));
  QAction* export_png = export_menu->addAction(tr("View in front as PNG…"));
  QAction* export_svg = export_menu->addAction(tr("View in front as SVG…"));
  const auto front_view = [this]() -> QString {
    for (const auto& [name, dock] : docks_)
      if (!dock->visibleRegion().isEmpty() && name != QStringLiteral("workload")) return name;
    return QStringLiteral("memory");
  };
  connect(export_png, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export PNG"), QString(), tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  connect(export_svg, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export SVG"), QString(), tr("SVG images (*.svg)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  QAction* export_csv = export_menu->addAction(tr("Ranked layouts as CSV…"));
  connect(export_csv, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportRankedCsv(path);
  });
  QAction* export_json = export_menu->addAction(tr("Current estimate as JSON…"));
  connect(export_json, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export JSON"), QString(), tr("JSON (*.json)"));
    if (!path.isEmpty()) exportEstimateJson(path);
  });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QMainWindow::close);

  QMenu* view_menu = menuBar()->addMenu(tr("&View"));
  for (const auto& [name, dock] : docks_) view_menu->addAction(dock->toggleViewAction());
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent) {
    QAction* action = recent_menu_->addAction(QFileInfo(path).fileName());
    action->setToolTip(path);
    connect(action, &QAction::triggered, this, [this, path] { openProject(path); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::setProject(const Project& project) {
  project_ = project;
  setWindowTitle(tr("meshscope \u2014 %1[*]").arg(QString::fromStdString(project_.name)));
  setWindowModified(false);
  workload_->setProject(project_);
  const auto compare = project_.view.find("compare_schedule");
  compare_schedule_->setCurrentIndex(
      std::max(0, compare_schedule_->findData(compare != project_.view.end() && compare->is_string()
                                                  ? QString::fromStdString(compare->get<std::string>())
                                                  : QString())));
  applyViewState(project_.view);
  evaluator_->setDebounceMs(0);
  evaluator_->request(project_);
  evaluator_->setDebounceMs(Evaluator::kDefaultDebounceMs);
}

void MainWindow::edit(const Project& edited) {
  project_ = edited;
  if (sender() != workload_) workload_->setProject(project_);
  setWindowModified(true);
  evaluator_->request(project_);
}

void MainWindow::show_inline_error(const QString& message) {
  error_banner_->setText(message);
  error_banner_->setVisible(!message.isEmpty());
}

QString MainWindow::inlineError() const {
  return error_banner_->isHidden() ? QString() : error_banner_->text();
}

bool MainWindow::openProject(const QString& path) {
  const std::string file = QFile::encodeName(path).toStdString();
  Result<Project> project = [&]() -> Result<Project> {
    MS_TRY(text, read_text_file(file));
    MS_TRY(doc, parse_json_text(text, file));
    return project_from_json(doc, file);
  }();
  if (!project) {
    show_inline_error(tr("Could not open %1 — the current project is unchanged.\n%2")
                          .arg(path, QString::fromStdString(project.error().to_string())));
    return false;
  }
  show_inline_error({});
  path_ = path;
  setProject(*project);
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecentFiles) recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
  rebuild_recent_menu();
  return true;
}

bool MainWindow::saveProject(const QString& path) {
  project_.view = viewState();
  QString error;
  if (!write_file(path, QByteArray::fromStdString(project_to_json(project_).dump(2) + "\n"), error)) {
    show_inline_error(error);
    return false;
  }
  path_ = path;
  setWindowModified(false);
  status_->setText(tr("Saved %1").arg(path));
  return true;
}

nlohmann::json MainWindow::viewState() const {
  nlohmann::json state = project_.view;
  state["docks"] = saveState().toBase64().toStdString();
  for (const auto& [name, dock] : docks_)
    if (!dock->visibleRegion().isEmpty() && name != QStringLiteral("workload")) state["front"] = name.toStdString();
  return state;
}

void MainWindow::applyViewState(const nlohmann::json& state) {
  if (const auto docks = state.find("docks"); docks != state.end() && docks->is_string())
    restoreState(QByteArray::fromBase64(QByteArray::fromStdString(docks->get<std::string>())));
  if (const auto front = state.find("front"); front != state.end() && front->is_string())
    showView(QString::fromStdString(front->get<std::string>()));
}

void MainWindow::show_evaluation(std::shared_ptr<const Evaluation> evaluation) {
  evaluation_ = std::move(evaluation);
  const Evaluation& e = *evaluation_;
  const Project& p = e.project;
  workload_->setStatus(e.problems, e.budget ? QString::fromStdString(e.budget->convention) : QString(),
                       QString::fromStdString(e.cluster_error));
  if (!e.problems.empty()) {
    header_->setText(problems_header_html(p, e.problems));
  } else if (e.budget) {
    header_->setText(budget_header_html(p, *e.budget));
  }
  memory_model_->setBudget(e.budget);

  QString summary;
  if (e.estimate) {
    const StepEstimate& s = *e.estimate;
    summary = tr("Predicted step <b>%1 s</b> · %2 tokens/s per GPU · MFU <b>%3 %</b> · bubble %4 %")
                  .arg(s.step_time_s, 0, 'f', 2)
                  .arg(s.tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(100 * s.mfu, 0, 'f', 1)
                  .arg(100 * s.bubble_fraction, 0, 'f', 1);
    if (e.cluster) summary += tr(" · on %1").arg(html(e.cluster->name));
  } else if (e.serving) {
    const ServingEstimate& s = *e.serving;
    summary = tr("TTFT <b>%1</b> · ITL <b>%2</b> · %3 output tokens/s per GPU · max batch %4 · bound by %5")
                  .arg(duration_text(s.point.ttft_s), duration_text(s.point.itl_s))
                  .arg(s.output_tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(static_cast<qlonglong>(s.max_batch))
                  .arg(QString::fromStdString(std::string(serving_binding_name(s.point.binding))));
  } else if (!e.estimate_error.empty()) {
    summary = QStringLiteral("<span style=\"color:%1\">%2</span>").arg(kProblemColour, html(e.estimate_error));
  }
  summary_->setText(summary);

  if (e.estimate) {
    pipeline_caption_->setText(schedule_caption(*e.estimate));
    pipeline_chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    comm_model_->setPlan(std::shared_ptr<const CommPlan>(e.estimate, &e.estimate->comm));
  } else {
    pipeline_caption_->setText(e.problems.empty() ? tr("No pipeline (serving, or no cluster).")
                                                  : tr("The layout is not valid."));
    pipeline_chart_->setSchedule({}, PipelineSchedule::one_f_one_b);
    comm_model_->setPlan(nullptr);
  }
  // The second chart: the comparison schedule on the same time axis, or else a zoom on the
  // warm-up, where with hundreds of micro-batches the bubble and the block numbers are legible.
  pipeline_chart_->setTimeWindow(0, 0);
  const double warm_up_end = e.estimate ? warm_up_window_s(e.estimate->schedule) : 0.0;
  if (e.compare_estimate) {
    compare_caption_->setText(tr("compared with ") + schedule_caption(*e.compare_estimate));
    compare_chart_->setSchedule(e.compare_estimate->schedule, e.compare_estimate->pipeline_schedule);
    const double end = std::max(e.estimate->schedule.makespan_s, e.compare_estimate->schedule.makespan_s);
    pipeline_chart_->setTimeWindow(0, end);
    compare_chart_->setTimeWindow(0, end);
  } else if (warm_up_end > 0) {
    compare_caption_->setText(tr("the warm-up, zoomed: first %1").arg(duration_text(warm_up_end)));
    compare_chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    compare_chart_->setTimeWindow(0, warm_up_end);
  }
  const bool second = e.compare_estimate != nullptr || warm_up_end > 0;
  compare_chart_->setVisible(second);
  compare_caption_->setVisible(second);
  explain_->setHtml(explain_html(e));
  status_->setText(tr("Evaluated in %1 ms").arg(1000 * e.elapsed_s, 0, 'f', 1));
  emit viewsUpdated();
}

void MainWindow::show_search(std::shared_ptr<const SearchEvaluation> search) {
  search_ = std::move(search);
  search_progress_->hide();
  cancel_search_->hide();
  if (!search_->error.empty()) {
    status_->setText(tr("Search: %1").arg(QString::fromStdString(search_->error)));
    return;
  }
  if (search_->training) {
    status_->setText(tr("Searched %1 candidates in %2 s: %3 valid")
                         .arg(static_cast<qlonglong>(search_->training->evaluated))
                         .arg(search_->elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search_->training->valid)));
    if (options_.select_best_layout && !search_->training->layouts.empty()) {
      options_.select_best_layout = false;
      apply_ranked(search_->training->layouts.front());
    }
  }
  emit viewsUpdated();
}

void MainWindow::apply_ranked(const RankedLayout& ranked) {
  Project edited = project_;
  edited.layout = ranked.layout;
  edited.training.recompute = ranked.recompute;
  edited.training.zero_stage = ranked.zero_stage;
  edited.pipeline_schedule = ranked.schedule;
  workload_->setProject(edited);
  edit(edited);
}

void MainWindow::update_compare() {}

QString MainWindow::explain_html(const Evaluation& e) const {
  QString out = QStringLiteral("<h3>%1</h3>").arg(tr("How the numbers are computed"));
  if (!e.problems.empty()) {
    out += tr("<p>The layout is not valid, so nothing is estimated:</p><ul>");
    for (const LayoutProblem& problem : e.problems)
      out += QStringLiteral("<li><b>%1</b>: %2</li>").arg(html(problem.field), html(problem.message));
    return out + QStringLiteral("</ul>");
  }
  if (e.budget) {
    out += tr("<h4>Memory (%1)</h4><p>Convention: %2. Each row: bytes = formula; the inputs are in the "
              "formula text.</p><table cellspacing=0 cellpadding=3>")
               .arg(gib_text(e.budget->peak_total_bytes()), html(e.budget->convention));
    if (!e.budget->ranks.empty()) {
      const RankMemory& rank = e.budget->ranks.front();
      out += tr("<tr><td colspan=2><i>%1 (the first distinct rank)</i></td></tr>").arg(html(rank.role));
      for (const MemoryItem& item : rank.items)
        out +=
            QStringLiteral("<tr><td align=right>%1</td><td>%2</td></tr>").arg(gib_text(item.bytes), html(item.formula));
    }
    out += QStringLiteral("</table>");
  }
  if (e.estimate) {
    const StepEstimate& s = *e.estimate;
    const StepBreakdown& b = s.breakdown;
    out += tr("<h4>Step time %1 s</h4>").arg(s.step_time_s, 0, 'f', 3);
    out += tr("<p>The busiest stage's work is run through the %1 schedule's event simulation "
              "(docs/schedules.md); exposed data-parallel communication and the optimizer step follow "
              "(docs/estimate.md).</p><table cellspacing=0 cellpadding=3>")
               .arg(QString::fromStdString(std::string(pipeline_schedule_name(s.pipeline_schedule))));
    const std::pair<QString, double> terms[] = {{tr("forward (busiest stage)"), b.forward_s},
                                                {tr("backward (input + weight)"), b.backward_s},
                                                {tr("recompute"), b.recompute_s},
                                                {tr("TP exposed"), b.tp_exposed_s},
                                                {tr("CP exposed"), b.cp_exposed_s},
                                                {tr("EP exposed"), b.ep_exposed_s},
                                                {tr("PP send/recv on the critical path"), b.pp_p2p_s},
                                                {tr("pipeline bubble"), b.bubble_s},
                                                {tr("DP exposed"), b.dp_exposed_s},
                                                {tr("optimizer"), b.optimizer_s}};
    for (const auto& [label, seconds] : terms)
      out += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(label, duration_text(seconds));
    out += QStringLiteral("</table>");
    out += tr("<p><b>MFU</b> = model FLOPs per token × tokens/s ÷ (GPUs × dense peak of the compute dtype) "
              "= %1 % (model FLOPs without recompute: Narayanan et al. SC21 Eq. 3 convention; "
              "HFU %2 % counts recompute). Tokens/s per GPU = global batch × sequence ÷ step ÷ GPUs = %3.</p>")
               .arg(100 * s.mfu, 0, 'f', 1)
               .arg(100 * s.hfu, 0, 'f', 1)
               .arg(s.tokens_per_s_per_gpu, 0, 'f', 0);
    out +=
        tr("<h4>One layer, one micro-batch, on one rank</h4><table cellspacing=0 cellpadding=3>"
           "<tr><th align=left>operation</th><th>GFLOP</th><th>MB moved</th><th>forward</th>"
           "<th>input grad</th><th>weight grad</th></tr>");
    for (const OperationCost& op : s.operations)
      out += QStringLiteral(
                 "<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td>"
                 "<td align=right>%5</td><td align=right>%6</td></tr>")
                 .arg(html(op.name))
                 .arg(op.flops / 1e9, 0, 'f', 1)
                 .arg(op.bytes / 1e6, 0, 'f', 1)
                 .arg(duration_text(op.forward_s), duration_text(op.backward_input_s),
                      duration_text(op.backward_weight_s));
    out += QStringLiteral("</table>");
    if (!s.assumptions.empty()) {
      out += tr("<h4>Assumptions</h4><ul>");
      for (const std::string& assumption : s.assumptions) out += QStringLiteral("<li>%1</li>").arg(html(assumption));
      out += QStringLiteral("</ul>");
    }
  }
  if (e.serving) {
    out += tr("<h4>Serving</h4><ul>");
    for (const std::string& assumption : e.serving->assumptions)
      out += QStringLiteral("<li>%1</li>").arg(html(assumption));
    out += QStringLiteral("</ul>");
  }
  return out;
}

bool MainWindow::showView(const QString& name) {
  for (const auto& [key, dock] : docks_) {
    if (key.startsWith(name, Qt::CaseInsensitive) || dock->windowTitle().startsWith(name, Qt::CaseInsensitive)) {
      dock->show();
      dock->raise();
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

void MainWindow::waitForEvaluation() {
  while (evaluator_->busy()) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
  QApplication::processEvents();
}

bool MainWindow::exportViewImage(const QString& name, const QString& path) {
  QWidget* widget = view(name);
  if (widget == nullptr) {
    show_inline_error(tr("No view named %1").arg(name));
    return false;
  }
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(widget->size());
    generator.setViewBox(widget->rect());
    generator.setTitle(QStringLiteral("meshscope — %1").arg(name));
    QPainter painter;
    if (!painter.begin(&generator)) {
      show_inline_error(tr("cannot write %1").arg(path));
      return false;
    }
    widget->render(&painter);
    painter.end();
    return QFileInfo(path).size() > 0;
  }
  if (!widget->grab().save(path)) {
    show_inline_error(tr("cannot write %1").arg(path));
    return false;
  }
  return true;
}

bool MainWindow::exportRankedCsv(const QString& path) {
  if (!search_ || (!search_->training && !search_->serving)) {
    show_inline_error(tr("No ranked layouts yet: the search has not finished."));
    return false;
  }
  QString csv;
  if (search_->training) {
    csv = QStringLiteral(
        "rank,tp,pp,vpp,cp,ep,etp,dp,micro_batch,recompute,zero,schedule,step_time_s,"
        "tokens_per_s_per_gpu,mfu,peak_memory_bytes,headroom_bytes,bubble_fraction\n");
    int rank = 0;
    for (const RankedLayout& r : search_->training->layouts) {
      const Layout& l = r.layout;
      csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,")
                 .arg(++rank)
                 .arg(l.tp)
                 .arg(l.pp)
                 .arg(l.vpp)
                 .arg(l.cp)
                 .arg(l.ep)
                 .arg(l.etp)
                 .arg(l.dp)
                 .arg(l.micro_batch);
      csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n")
                 .arg(csv_field(QString::fromStdString(std::string(recompute_name(r.recompute)))))
                 .arg(r.zero_stage)
                 .arg(QString::fromStdString(std::string(pipeline_schedule_name(r.schedule))))
                 .arg(r.step_time_s, 0, 'g', 9)
                 .arg(r.tokens_per_s_per_gpu, 0, 'g', 9)
                 .arg(r.mfu, 0, 'g', 6)
                 .arg(r.peak_memory_bytes, 0, 'f', 0)
                 .arg(r.headroom_bytes, 0, 'f', 0)
                 .arg(r.bubble_fraction, 0, 'g', 6);
    }
  } else {
    csv = QStringLiteral(
        "rank,disaggregated,tp,pp,dp,ep,replicas,gpus_used,concurrency,ttft_s,itl_s,"
        "output_tokens_per_s_per_gpu,binding\n");
    int rank = 0;
    for (const RankedServing& r : search_->serving->layouts) {
      csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,")
                 .arg(++rank)
                 .arg(r.disaggregated ? 1 : 0)
                 .arg(r.layout.tp)
                 .arg(r.layout.pp)
                 .arg(r.layout.dp)
                 .arg(r.layout.ep)
                 .arg(r.layout.replicas)
                 .arg(r.gpus_used)
                 .arg(r.concurrency);
      csv += QStringLiteral("%1,%2,%3,%4\n")
                 .arg(r.ttft_s, 0, 'g', 9)
                 .arg(r.itl_s, 0, 'g', 9)
                 .arg(r.output_tokens_per_s_per_gpu, 0, 'g', 9)
                 .arg(QString::fromStdString(std::string(serving_binding_name(r.binding))));
    }
  }
  QString error;
  if (!write_file(path, csv.toUtf8(), error)) {
    show_inline_error(error);
    return false;
  }
  return true;
}

bool MainWindow::exportEstimateJson(const QString& path) {
  if (!evaluation_ || (!evaluation_->estimate && !evaluation_->budget)) {
    show_inline_error(tr("Nothing to export: the layout is not valid."));
    return false;
  }
  nlohmann::json doc = {{"project", project_to_json(evaluation_->project)}};
  if (evaluation_->budget) doc["memory"] = memory_report(*evaluation_->budget);
  if (evaluation_->estimate) doc["estimate"] = estimate_report(*evaluation_->estimate);
  QString error;
  if (!write_file(path, QByteArray::fromStdString(doc.dump(2) + "\n"), error)) {
    show_inline_error(error);
    return false;
  }
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("geometry"), saveGeometry());
  settings.setValue(QStringLiteral("windowState"), saveState());
  evaluator_->cancelSearch();
  QMainWindow::closeEvent(event);
}

}  // namespace meshscope::ui
