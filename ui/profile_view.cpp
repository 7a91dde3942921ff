#include "ui/profile_view.hpp"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ui/formatting.hpp"
#include "ui/padded_item_delegate.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMicro = 1e-6;  // Kineto times are microseconds
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kProgressSteps = 1000;
const QVariant kLeft{static_cast<int>(Qt::AlignLeft | Qt::AlignVCenter)};
const QVariant kRight{static_cast<int>(Qt::AlignRight | Qt::AlignVCenter)};

// Okabe–Ito (Okabe & Ito, "Color Universal Design", 2008), as in ui/pipeline_chart.cpp.
const QColor kComputeColour{0x00, 0x72, 0xB2};  // blue
const QColor kExposedColour{0xD5, 0x5E, 0x00};  // vermillion
const QColor kIdleColour{0xBB, 0xBB, 0xBB};     // grey: nothing runs
const QColor kErrorColour{0xC0, 0x1C, 0x28};

// A 1, 2 or 5 × 10^k step giving about `target` ticks over `span`.
double nice_step(double span, int target) {
  const double raw = span / std::max(target, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0})
    if (factor * power >= raw) return factor * power;
  return 10.0 * power;
}

QString bandwidth_text(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return QStringLiteral("–");
  return QStringLiteral("%1 GB/s").arg(bytes_per_s / 1e9, 0, 'f', 2);
}

QString row_value_text(const TraceCompareRow& row, double value) {
  return row.kind == TraceRowKind::time ? duration_text(value) : bandwidth_text(value);
}

QString op_text(const std::optional<CollectiveOp>& op) {
  return op ? QString::fromUtf8(collective_op_name(*op).data(), static_cast<int>(collective_op_name(*op).size()))
            : QObject::tr("unknown");
}

QString file_name(const std::string& path) {
  return QFileInfo(QString::fromStdString(path)).fileName();
}

void style_table(QTableView* table) {
  table->setItemDelegate(new PaddedItemDelegate(12, 4, table));
  table->horizontalHeader()->setStyleSheet(QStringLiteral("QHeaderView::section { padding: 4px 12px; }"));
  table->verticalHeader()->hide();
  table->setAlternatingRowColors(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setWordWrap(false);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setStretchLastSection(true);
}

struct RankMeans {
  double compute_s = 0, exposed_s = 0, idle_s = 0, step_s = 0;
};

RankMeans rank_means(const KinetoRankAnalysis& rank) {
  RankMeans m;
  for (const auto& s : rank.steps) {
    m.compute_s += s.compute_us * kMicro;
    m.exposed_s += s.exposed_communication_us * kMicro;
    m.idle_s += s.idle_us * kMicro;
    m.step_s += s.duration_us * kMicro;
  }
  const double n = static_cast<double>(rank.steps.size());
  m.compute_s /= n;
  m.exposed_s /= n;
  m.idle_s /= n;
  m.step_s /= n;
  return m;
}

}  // namespace

// ---- ProfileStepModel ---------------------------------------------------------------------------------------------

ProfileStepModel::ProfileStepModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileStepModel::setRun(std::shared_ptr<const KinetoRunAnalysis> run) {
  beginResetModel();
  run_ = std::move(run);
  rows_.clear();
  if (run_)
    for (const auto& rank : run_->ranks)
      for (const auto& step : rank.steps) rows_.push_back({&rank, &step});
  endResetModel();
}

int ProfileStepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ProfileStepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ProfileStepModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const KinetoStepBreakdown& s = *row.step;
  const auto seconds = [&](int column) -> double {
    switch (column) {
      case kStepTime:
        return s.duration_us * kMicro;
      case kCompute:
        return s.compute_us * kMicro;
      case kCommunication:
        return s.communication_us * kMicro;
      case kExposed:
        return s.exposed_communication_us * kMicro;
      case kIdle:
        return s.idle_us * kMicro;
      default:
        return kNaN;
    }
  };
  const int column = index.column();
  if (role == ValueRole) {
    if (column == kRank) return static_cast<double>(row.rank->rank);
    if (column == kStep) return static_cast<double>(s.number);
    if (column == kGpuEvents) return static_cast<double>(s.gpu_events);
    return seconds(column);
  }
  if (role == Qt::DisplayRole) {
    if (column == kRank) return QString::number(row.rank->rank);
    if (column == kStep) return QString::fromStdString(s.name);
    if (column == kGpuEvents) return QString::number(s.gpu_events);
    return duration_text(seconds(column));
  }
  if (role == Qt::TextAlignmentRole) return column == kStep ? kLeft : kRight;
  if (role == Qt::ToolTipRole) return QString::fromStdString(row.rank->origin);
  return {};
}

QVariant ProfileStepModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kRank:
      return tr("Rank");
    case kStep:
      return tr("Step");
    case kStepTime:
      return tr("Step time");
    case kCompute:
      return tr("Compute");
    case kCommunication:
      return tr("Communication");
    case kExposed:
      return tr("Exposed comm.");
    case kIdle:
      return tr("Idle");
    case kGpuEvents:
      return tr("GPU events");
    default:
      return {};
  }
}

// ---- ProfileCollectiveModel ---------------------------------------------------------------------------------------

ProfileCollectiveModel::ProfileCollectiveModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileCollectiveModel::setRun(std::shared_ptr<const KinetoRunAnalysis> run) {
  beginResetModel();
  run_ = std::move(run);
  rows_.clear();
  if (run_)
    for (const auto& rank : run_->ranks)
      for (const auto& c : rank.collectives) rows_.push_back({&rank, &c});
  endResetModel();
}

int ProfileCollectiveModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ProfileCollectiveModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ProfileCollectiveModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const KinetoCollectiveSummary& c = *row.collective;
  const int column = index.column();
  const bool sized = c.count_with_bytes > 0;
  if (role == ValueRole) {
    switch (column) {
      case kRank:
        return static_cast<double>(row.rank->rank);
      case kGroup:
        return static_cast<double>(c.group_size);
      case kCount:
        return static_cast<double>(c.count);
      case kBytes:
        return sized ? c.bytes : kNaN;
      case kTime:
        return c.time_us * kMicro;
      case kAlgbw:
        return c.algbw_bytes_per_s;
      case kBusbw:
        return c.busbw_bytes_per_s;
      default:
        return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (column) {
      case kRank:
        return QString::number(row.rank->rank);
      case kOp:
        return op_text(c.op) + (c.on_cpu ? tr(" (CPU)") : QString());
      case kGroup: {
        const QString size =
            c.group_size > 0 ? QString::number(c.group_size) + (c.group_size_assumed ? "?" : "") : QStringLiteral("–");
        return c.process_group.empty() ? size : tr("pg %1 · %2").arg(QString::fromStdString(c.process_group), size);
      }
      case kCount:
        return QString::number(c.count);
      case kBytes:
        return sized ? binary_bytes_text(c.bytes) : QStringLiteral("–");
      case kTime:
        return duration_text(c.time_us * kMicro);
      case kAlgbw:
        return bandwidth_text(c.algbw_bytes_per_s);
      case kBusbw:
        return bandwidth_text(c.busbw_bytes_per_s);
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole) return column == kOp || column == kGroup ? kLeft : kRight;
  if (role == Qt::ToolTipRole) {
    if (column == kGroup && c.group_size_assumed)
      return tr("The trace does not say which group ran this collective: its size is taken as the world's.");
    if (column == kBytes && sized && c.count_with_bytes < c.count)
      return tr("%1 of %2 calls record their message size").arg(c.count_with_bytes).arg(c.count);
    if (column == kBusbw)
      return tr(
          "algbw × bus factor of the op and group size (nccl-tests' busbw); kernel time includes waiting "
          "for the slowest peer");
  }
  return {};
}

QVariant ProfileCollectiveModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kRank:
      return tr("Rank");
    case kOp:
      return tr("Collective");
    case kGroup:
      return tr("Group");
    case kCount:
      return tr("Count");
    case kBytes:
      return tr("Bytes");
    case kTime:
      return tr("Kernel time");
    case kAlgbw:
      return tr("algbw");
    case kBusbw:
      return tr("busbw");
    default:
      return {};
  }
}

// ---- TraceComparisonModel -----------------------------------------------------------------------------------------

TraceComparisonModel::TraceComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void TraceComparisonModel::setComparison(std::shared_ptr<const TraceComparison> comparison) {
  beginResetModel();
  comparison_ = std::move(comparison);
  endResetModel();
}

int TraceComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !comparison_ ? 0 : static_cast<int>(comparison_->rows.size());
}

int TraceComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant TraceComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const TraceCompareRow& row = comparison_->rows[static_cast<size_t>(index.row())];
  const int column = index.column();
  const std::optional<double> error = row.error();
  if (role == ValueRole) {
    switch (column) {
      case kMeasured:
        return row.measured;
      case kPredicted:
        return row.predicted.value_or(kNaN);
      case kError:
        return error.value_or(kNaN);
      default:
        return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (column) {
      case kQuantity:
        return QString::fromStdString(row.quantity);
      case kMeasured:
        return row.ranks > 0 ? row_value_text(row, row.measured) : QStringLiteral("–");
      case kRange:
        return row.ranks > 1 ? QStringLiteral("%1 – %2").arg(row_value_text(row, row.measured_min),
                                                             row_value_text(row, row.measured_max))
                             : QString();
      case kPredicted:
        return row.predicted ? row_value_text(row, *row.predicted) : QStringLiteral("–");
      case kError:
        return error ? QStringLiteral("%1%2 %").arg(*error >= 0 ? "+" : "\u2212").arg(std::abs(100 * *error), 0, 'f', 1)
                     : QStringLiteral("–");
      case kNote:
        return QString::fromStdString(row.note);
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole) return column == kQuantity ? kLeft : kRight;
  if (role == Qt::ToolTipRole) {
    QString tip = QString::fromStdString(row.note);
    if (column == kError) tip = tr("predicted / measured − 1 (positive: the model predicts more)");
    if (column == kRange) tip = tr("smallest and largest rank (each the mean over its ProfilerSteps)");
    return tip.isEmpty() ? QVariant() : QVariant(tip);
  }
  if (role == Qt::ForegroundRole && column == kError && error && std::abs(*error) > 0.5) return QColor(kErrorColour);
  return {};
}

QVariant TraceComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kQuantity:
      return tr("Per step");
    case kMeasured:
      return tr("Measured");
    case kRange:
      return tr("Ranks (min – max)");
    case kPredicted:
      return tr("Predicted");
    case kError:
      return tr("Error");
    case kNote:
      return tr("How");
    default:
      return {};
  }
}

// ---- The chart specification --------------------------------------------------------------------------------------

ProfileChartSpec profile_chart_spec(const KinetoRunAnalysis& run, const StepEstimate* estimate) {
  ProfileChartSpec spec;
  spec.sets = {{QObject::tr("Compute"), kComputeColour, {}, {}},
               {QObject::tr("Exposed communication"), kExposedColour, {}, {}},
               {QObject::tr("Idle / bubble"), kIdleColour, {}, {}}};
  int64_t steps = 0;
  double tallest_ms = 0;
  const auto add_bar = [&](const QString& label, double compute_s, double exposed_s, double idle_s,
                           const QString& what) {
    spec.bar_labels << label;
    const double values[] = {compute_s * 1e3, exposed_s * 1e3, idle_s * 1e3};
    for (size_t i = 0; i < spec.sets.size(); ++i) {
      spec.sets[i].ms.push_back(values[i]);
      spec.sets[i].tooltips.push_back(QStringLiteral("<b>%1</b> · %2<br>%3 per step (%4)")
                                          .arg(spec.sets[i].label, label, duration_text(values[i] / 1e3), what));
    }
    tallest_ms = std::max(tallest_ms, values[0] + values[1] + values[2]);
  };
  for (const auto& rank : run.ranks) {
    if (rank.steps.empty()) continue;
    steps = std::max<int64_t>(steps, static_cast<int64_t>(rank.steps.size()));
    const RankMeans m = rank_means(rank);
    add_bar(QString::number(rank.rank), m.compute_s, m.exposed_s, m.idle_s,
            QObject::tr("mean of %1 ProfilerSteps; step time %2").arg(rank.steps.size()).arg(duration_text(m.step_s)));
  }
  if (estimate) {
    const StepBreakdown& b = estimate->breakdown;
    // Nine or more bars leave too little room under each for the whole word.
    add_bar(spec.bar_labels.size() < 8 ? QObject::tr("predicted") : QObject::tr("pred."),
            predicted_compute_s(*estimate),
            b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s + b.dp_exposed_s, b.bubble_s,
            QObject::tr("the cost model; step time %1").arg(duration_text(estimate->step_time_s)));
  }
  spec.title = QObject::tr("Step breakdown per rank · mean of %n ProfilerStep(s)", nullptr, static_cast<int>(steps));
  spec.axis_step_ms = tallest_ms > 0 ? nice_step(tallest_ms, 5) : 1;
  spec.axis_max_ms = std::max(1.0, std::ceil(tallest_ms / spec.axis_step_ms)) * spec.axis_step_ms;
  return spec;
}

// ---- ProfileView --------------------------------------------------------------------------------------------------

ProfileView::ProfileView(QWidget* parent) : QWidget(parent) {
  setAcceptDrops(true);
  auto* layout = new QVBoxLayout(this);

  auto* header = new QHBoxLayout;
  title_ = new QLabel(tr("No trace. Drop PyTorch profiler traces (.json, .json.gz; one per rank) here."), this);
  QFont title_font = title_->font();
  title_font.setBold(true);
  title_->setFont(title_font);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, kProgressSteps);
  progress_->setMaximumWidth(260);
  progress_->setFormat(tr("Importing… %p%"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  header->addWidget(title_, 1);
  header->addWidget(progress_);
  header->addWidget(cancel_);
  layout->addLayout(header);

  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->hide();
  layout->addWidget(message_);

  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  bars_ = new QStackedBarSeries;
  bars_->setBarWidth(0.6);
  chart->addSeries(bars_);
  categories_ = new QBarCategoryAxis;
  categories_->setTitleText(tr("rank"));
  values_ = new QValueAxis;
  values_->setLabelFormat(QStringLiteral("%.0f"));
  values_->setTitleText(tr("ms per step"));
  chart->addAxis(categories_, Qt::AlignBottom);
  chart->addAxis(values_, Qt::AlignLeft);
  bars_->attachAxis(categories_);
  bars_->attachAxis(values_);
  chart_view_ = new QChartView(chart, this);
  chart_view_->setRenderHint(QPainter::Antialiasing);
  chart_view_->setMinimumWidth(360);

  steps_ = new ProfileStepModel(this);
  collectives_ = new ProfileCollectiveModel(this);
  compared_ = new TraceComparisonModel(this);
  tabs_ = new QTabWidget(this);
  const auto add_table = [&](QAbstractItemModel* model, const QString& name) {
    auto* table = new QTableView(tabs_);
    table->setModel(model);
    style_table(table);
    tabs_->addTab(table, name);
    return table;
  };
  compared_table_ = add_table(compared_, tr("Measured vs predicted"));
  add_table(steps_, tr("Steps"));
  add_table(collectives_, tr("Collectives"));

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* right = new QWidget(this);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(tabs_, 1);
  notes_ = new QLabel(right);
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_->setStyleSheet(QStringLiteral("color: #444444;"));
  right_layout->addWidget(notes_);
  splitter->addWidget(chart_view_);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({620, 760});
  layout->addWidget(splitter, 1);

  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);  // progress is polled, never pushed from the worker (throttled, no event flood)
  connect(progress_timer_, &QTimer::timeout, this, &ProfileView::updateProgress);
  connect(cancel_, &QPushButton::clicked, this, &ProfileView::cancelImport);
  setImportingUi(false);
  rebuildChart();
}

ProfileView::~ProfileView() {
  cancelImport();
  if (watcher_) watcher_->waitForFinished();
}

QSize ProfileView::sizeHint() const {
  return {1400, 800};
}

void ProfileView::setTrace(std::shared_ptr<const KinetoRunAnalysis> run) {
  run_ = std::move(run);
  steps_->setRun(run_);
  collectives_->setRun(run_);
  if (run_ && !run_->ranks.empty()) {
    const KinetoRankAnalysis& first = run_->ranks.front();
    QString text = tr("%n rank(s)", nullptr, static_cast<int>(run_->ranks.size()));
    if (first.world_size > 0) text += tr(" of %1").arg(first.world_size);
    text += QStringLiteral(" · %1 · %2").arg(QString::fromStdString(first.device), file_name(first.origin));
    if (run_->ranks.size() > 1) text += QStringLiteral(" …");
    if (run_->step_skew_us)
      text += tr(" · step skew %1 (slowest rank %2)")
                  .arg(duration_text(*run_->step_skew_us * kMicro))
                  .arg(run_->slowest_rank.value_or(-1));
    title_->setText(text);
  } else {
    title_->setText(tr("No trace. Drop PyTorch profiler traces (.json, .json.gz; one per rank) here."));
  }
  recompare();
}

void ProfileView::setPrediction(const StepEstimate& estimate, const Layout& layout, const Cluster& cluster,
                                const TraceCompareOptions& options) {
  estimate_ = estimate;
  layout_ = layout;
  cluster_ = cluster;
  options_ = options;
  recompare();
}

void ProfileView::clearPrediction() {
  estimate_.reset();
  cluster_.reset();
  recompare();
}

void ProfileView::clear() {
  cancelImport();
  estimate_.reset();
  cluster_.reset();
  setTrace(nullptr);
  showMessage({}, false);
}

void ProfileView::recompare() {
  comparison_.reset();
  if (run_ && estimate_ && cluster_) {
    auto result = compare_trace(*run_, *estimate_, layout_, *cluster_, options_);
    if (result) {
      comparison_ = std::make_shared<const TraceComparison>(std::move(*result));
      if (message_is_error_ && message_->text().startsWith(tr("No comparison"))) showMessage({}, false);
    } else {
      showMessage(tr("No comparison with the prediction: %1").arg(QString::fromStdString(result.error().to_string())),
                  true);
    }
  }
  compared_->setComparison(comparison_);
  compared_table_->resizeColumnsToContents();
  QStringList notes;
  if (comparison_) {
    for (const auto& g : comparison_->process_groups)
      notes << tr("pg %1%2 → %3: %4")
                   .arg(QString::fromStdString(g.name),
                        g.description.empty() ? QString()
                                              : QStringLiteral(" (%1)").arg(QString::fromStdString(g.description)),
                        QString::fromStdString(g.label), QString::fromStdString(g.reason))
                   .toHtmlEscaped();
    for (const auto& note : comparison_->notes) notes << QString::fromStdString(note).toHtmlEscaped();
    notes << tr(
        "Error: predicted / measured − 1. Measured: mean over ranks of each rank's mean over its ProfilerSteps.");
  }
  notes_->setText(notes.join(QStringLiteral("<br>")));
  notes_->setVisible(!notes.isEmpty());
  rebuildChart();
}

void ProfileView::rebuildChart() {
  spec_ = run_ ? profile_chart_spec(*run_, comparison_ && estimate_ ? &*estimate_ : nullptr) : ProfileChartSpec{};
  bars_->clear();
  for (const auto& set : spec_.sets) {
    auto* bar_set = new QBarSet(set.label);
    bar_set->setColor(set.colour);
    bar_set->setBorderColor(set.colour.darker(130));
    for (const double ms : set.ms) bar_set->append(ms);
    bars_->append(bar_set);
    const std::vector<QString> tips = set.tooltips;
    connect(bar_set, &QBarSet::hovered, this, [this, tips](bool on, int index) {
      chart_view_->setToolTip(
          on && index >= 0 && static_cast<size_t>(index) < tips.size() ? tips[static_cast<size_t>(index)] : QString());
    });
  }
  categories_->clear();
  categories_->append(spec_.bar_labels);
  values_->setRange(0, spec_.axis_max_ms > 0 ? spec_.axis_max_ms : 1);
  values_->setTickInterval(spec_.axis_step_ms > 0 ? spec_.axis_step_ms : 1);
  values_->setTickType(QValueAxis::TicksDynamic);
  values_->setTickAnchor(0);
  chart_view_->chart()->setTitle(run_ ? spec_.title : QString());
  chart_view_->chart()->legend()->setVisible(run_ != nullptr);
}

std::vector<double> ProfileView::drawnValues(int set) const {
  std::vector<double> out;
  const auto sets = bars_->barSets();
  if (set < 0 || set >= sets.size()) return out;
  for (int i = 0; i < sets[set]->count(); ++i) out.push_back(sets[set]->at(i));
  return out;
}

QString ProfileView::messageText() const {
  return message_->isHidden() ? QString() : message_->text();
}

void ProfileView::showMessage(const QString& text, bool error) {
  message_is_error_ = error && !text.isEmpty();
  message_->setText(text);
  message_->setStyleSheet(error ? QStringLiteral("color: %1;").arg(kErrorColour.name())
                                : QStringLiteral("color: palette(mid);"));
  message_->setVisible(!text.isEmpty());
}

// ---- Import -------------------------------------------------------------------------------------------------------

void ProfileView::startImport(const QStringList& paths) {
  if (paths.isEmpty()) return;
  cancelImport();
  const int job = ++job_id_;
  auto state = std::make_shared<ImportJob>();
  for (const QString& path : paths) state->bytes_total += QFileInfo(path).size();
  job_ = state;
  std::vector<std::string> files;
  for (const QString& path : paths) files.push_back(path.toStdString());

  auto* watcher = new QFutureWatcher<ImportOutcome>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcher<ImportOutcome>::finished, this, [this, watcher, job] {
    if (watcher_ == watcher) watcher_ = nullptr;
    watcher->deleteLater();
    if (job != job_id_) return;  // a later import replaced this one
    const ImportOutcome outcome = watcher->result();
    job_.reset();
    setImportingUi(false);
    if (outcome.cancelled) {
      showMessage(tr("Import cancelled; the trace shown is unchanged."), false);
    } else if (outcome.error) {
      showMessage(tr("Import failed: %1").arg(QString::fromStdString(outcome.error->to_string())), true);
    } else {
      showMessage({}, false);
      setTrace(outcome.run);
      emit imported();
    }
    emit importEnded();
  });
  watcher->setFuture(QtConcurrent::run([state, files = std::move(files)]() -> ImportOutcome {
    ImportOutcome outcome;
    std::vector<KinetoTrace> traces;
    int64_t done_bytes = 0;
    for (const std::string& file : files) {
      const auto progress = [&state, done_bytes](const KinetoProgress& p) {
        state->bytes_read.store(done_bytes + p.input_bytes_read, std::memory_order_relaxed);
        return !state->cancel.load(std::memory_order_relaxed);
      };
      auto trace = load_kineto_trace(file, progress);
      if (!trace) {
        outcome.cancelled = state->cancel.load();  // the load then fails with kKinetoCancelled
        if (!outcome.cancelled) outcome.error = trace.error();
        return outcome;
      }
      done_bytes += QFileInfo(QString::fromStdString(file)).size();
      traces.push_back(std::move(*trace));
    }
    if (state->cancel.load()) {
      outcome.cancelled = true;
      return outcome;
    }
    outcome.run = std::make_shared<const KinetoRunAnalysis>(analyze_kineto_run(traces));
    return outcome;
  }));
  setImportingUi(true);
}

void ProfileView::cancelImport() {
  if (job_) job_->cancel.store(true);
}

bool ProfileView::isImporting() const {
  return job_ != nullptr;
}

void ProfileView::setImportingUi(bool importing) {
  progress_->setVisible(importing);
  cancel_->setVisible(importing);
  if (importing) {
    progress_->setValue(0);
    showMessage({}, false);
    progress_timer_->start();
  } else {
    progress_timer_->stop();
  }
}

void ProfileView::updateProgress() {
  if (!job_ || job_->bytes_total <= 0) return;
  const double fraction =
      static_cast<double>(job_->bytes_read.load(std::memory_order_relaxed)) / static_cast<double>(job_->bytes_total);
  progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kProgressSteps));
}

QStringList ProfileView::traceFiles(const QMimeData* mime) {
  QStringList files;
  if (!mime || !mime->hasUrls()) return files;
  for (const QUrl& url : mime->urls()) {
    const QString path = url.toLocalFile();
    if (!path.isEmpty() && (path.endsWith(QStringLiteral(".json")) || path.endsWith(QStringLiteral(".json.gz"))))
      files << path;
  }
  return files;
}

void ProfileView::dragEnterEvent(QDragEnterEvent* event) {
  if (!traceFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void ProfileView::dropEvent(QDropEvent* event) {
  const QStringList files = traceFiles(event->mimeData());
  if (files.isEmpty()) return;
  event->acceptProposedAction();
  startImport(files);
}

}  // namespace meshscope::ui
