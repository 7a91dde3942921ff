#include "ui/main_window.hpp"

#include <QAction>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "core/estimate/step.hpp"
#include "core/memory.hpp"
#include "core/topology/generators.hpp"
#include "ui/comm_table_model.hpp"
#include "ui/formatting.hpp"
#include "ui/memory_table_model.hpp"
#include "ui/padded_item_delegate.hpp"
#include "ui/pipeline_chart.hpp"

namespace meshscope::ui {

namespace {

// Verdict colours chosen to stay readable on light and dark palettes.
const QString kFitsColour = QStringLiteral("#2e7d32");
const QString kProblemColour = QStringLiteral("#c62828");

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

std::vector<LayoutProblem> layout_problems(const Project& project) {
  return project.mode == Mode::training
             ? validate_training_layout(project.model, project.training, project.layout, project.gpu_count)
             : validate_serving_layout(project.model, project.layout, project.gpu_count);
}

MemoryBudget compute_budget(const Project& project) {
  return project.mode == Mode::training ? training_memory(project.model, project.training, project.layout, project.gpu)
                                        : serving_memory(project.model, project.serving, project.layout, project.gpu);
}

// "Predicted step 63.2 s · 1,037 tokens/s per GPU · MFU 47.1 % · bubble 3.2 %" for a training
// project whose cluster resolves; empty otherwise (serving has its own view later).
struct EstimateView {
  QString line;
  std::optional<StepEstimate> estimate;
};

EstimateView estimate_view(const Project& project) {
  if (project.mode != Mode::training || project.cluster.empty()) return {};
  auto cluster = resolve_cluster(project.cluster);
  if (!cluster)
    return {QObject::tr("cluster %1: %2").arg(html(project.cluster), html(cluster.error().to_string())), {}};
  const Router router(*cluster);
  auto estimate = estimate_step(project.model, project.training, project.layout, *cluster, router);
  if (!estimate) return {html(estimate.error().to_string()), {}};
  QString line = QObject::tr(
                     "Predicted step <b>%1 s</b> · %2 tokens/s per GPU · MFU <b>%3 %</b> · bubble %4 % "
                     "· on %5")
                     .arg(estimate->step_time_s, 0, 'f', 2)
                     .arg(estimate->tokens_per_s_per_gpu, 0, 'f', 0)
                     .arg(100 * estimate->mfu, 0, 'f', 1)
                     .arg(100 * estimate->bubble_fraction, 0, 'f', 1)
                     .arg(html(cluster->name));
  return {line, std::move(*estimate)};
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

MainWindow::MainWindow(const Project& project, QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("meshscope \u2014 %1").arg(QString::fromStdString(project.name)));
  resize(1280, 980);
  create_menus();

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setSpacing(12);
  header_ = new QLabel(central);
  header_->setTextFormat(Qt::RichText);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(header_);

  const std::vector<LayoutProblem> problems = layout_problems(project);
  if (!problems.empty()) {
    header_->setText(problems_header_html(project, problems));
  } else {
    auto budget = std::make_shared<const MemoryBudget>(compute_budget(project));
    header_->setText(budget_header_html(project, *budget));
    memory_model_ = new MemoryTableModel(this);
    memory_model_->setBudget(std::move(budget));
    memory_view_ = new ContentSizedTableView(central);
    memory_view_->setModel(memory_model_);
    memory_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    memory_view_->setAlternatingRowColors(true);
    memory_view_->setWordWrap(false);
    // Room around the numbers and the labels; ResizeToContents includes it in every section.
    memory_view_->setItemDelegate(new PaddedItemDelegate(12, 4, memory_view_));
    memory_view_->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
    memory_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    memory_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As large as the table and no larger (no empty grid below or beside it); AdjustToContents
    // makes the view ask for a new size whenever its contents change.
    memory_view_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    layout->addWidget(memory_view_, 0, Qt::AlignLeft | Qt::AlignTop);
    EstimateView estimate = estimate_view(project);
    if (!estimate.line.isEmpty()) {
      auto* summary = new QLabel(estimate.line, central);
      summary->setTextFormat(Qt::RichText);
      summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
      layout->addWidget(summary);
    }
    if (estimate.estimate) {
      views_ = new QTabWidget(central);
      const PipelineSchedule kind = estimate.estimate->pipeline_schedule;
      const double warm_up_end = warm_up_window_s(estimate.estimate->schedule);
      auto* pipeline = new QWidget(views_);
      auto* pipeline_layout = new QVBoxLayout(pipeline);
      pipeline_chart_ = new PipelineChart(pipeline);
      pipeline_chart_->setSchedule(estimate.estimate->schedule, kind);
      pipeline_layout->addWidget(pipeline_chart_);
      // With hundreds of micro-batches the whole step is a solid band; the warm-up, where the
      // bubble forms, is shown again at a scale where every block and its number are legible.
      if (warm_up_end > 0) {
        auto* warm_up = new PipelineChart(pipeline);
        warm_up->setObjectName(QStringLiteral("warm_up_chart"));
        warm_up->setSchedule(std::move(estimate.estimate->schedule), kind);
        warm_up->setTimeWindow(0, warm_up_end);
        pipeline_layout->addWidget(warm_up);
      }
      pipeline_layout->addStretch(1);
      views_->addTab(pipeline, tr("Pipeline schedule"));

      comm_model_ = new CommTableModel(this);
      comm_model_->setPlan(std::make_shared<const CommPlan>(std::move(estimate.estimate->comm)));
      auto* comm_view = new QTableView(views_);
      comm_view->setObjectName(QStringLiteral("comm_table"));
      comm_view->setModel(comm_model_);
      comm_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
      comm_view->setAlternatingRowColors(true);
      comm_view->setWordWrap(false);
      comm_view->setItemDelegate(new PaddedItemDelegate(12, 4, comm_view));
      comm_view->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
      comm_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
      comm_view->verticalHeader()->hide();
      views_->addTab(comm_view, tr("Communication"));
      layout->addWidget(views_, 1);
    }
  }
  if (views_ == nullptr) layout->addStretch(1);
  setCentralWidget(central);
}

bool MainWindow::showView(const QString& name) {
  if (views_ == nullptr) return false;
  for (int tab = 0; tab < views_->count(); ++tab) {
    if (views_->tabText(tab).startsWith(name, Qt::CaseInsensitive)) {
      views_->setCurrentIndex(tab);
      return true;
    }
  }
  return false;
}

void MainWindow::create_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QMainWindow::close);
}

}  // namespace meshscope::ui
