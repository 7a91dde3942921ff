#include "ui/explore/scaling_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QShowEvent>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/session/evaluate.hpp"
#include "core/session/scaling.hpp"
#include "ui/charts/scaling_chart.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/explore/scaling_chart_spec.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"

namespace meshscope::ui {

namespace {

constexpr Qt::Alignment kLeft = Qt::AlignLeft | Qt::AlignVCenter;
constexpr Qt::Alignment kRight = Qt::AlignRight | Qt::AlignVCenter;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<SnapshotColumn<ScalingPoint>> scaling_columns() {
  using Cell = SnapshotColumn<ScalingPoint>::Cell;
  using Model = ScalingPointModel;
  const auto column = [](const QString& header, Cell display, Cell value = {}, Qt::Alignment alignment = kLeft) {
    return SnapshotColumn<ScalingPoint>{header, {}, std::move(display), std::move(value), alignment, {}, {}, {}, {}};
  };
  const auto number = [&](const QString& header, auto text, auto raw) {
    return column(
        header, [text](const ScalingPoint& p, int) { return p.valid ? text(p) : QStringLiteral("–"); },
        [raw](const ScalingPoint& p, int) { return p.valid ? raw(p) : kNaN; }, kRight);
  };
  return {
      column(
          Model::tr("GPUs"), [](const ScalingPoint& p, int) { return QString::number(p.gpus); },
          [](const ScalingPoint& p, int) { return static_cast<double>(p.gpus); }, kRight),
      column(
          Model::tr("Global batch"), [](const ScalingPoint& p, int) { return QString::number(p.global_batch); },
          [](const ScalingPoint& p, int) { return static_cast<double>(p.global_batch); }, kRight),
      column(Model::tr("Best layout"),
             [](const ScalingPoint& p, int) { return p.valid ? ranked_layout_text(p.best) : QString(); }),
      number(
          Model::tr("Step"), [](const ScalingPoint& p) { return duration_text(p.best.step_time_s); },
          [](const ScalingPoint& p) { return p.best.step_time_s; }),
      number(
          Model::tr("Tokens/s"),
          [](const ScalingPoint& p) { return QStringLiteral("%L1").arg(p.tokens_per_s, 0, 'f', 0); },
          [](const ScalingPoint& p) { return p.tokens_per_s; }),
      number(
          Model::tr("Tokens/s/GPU"),
          [](const ScalingPoint& p) { return QStringLiteral("%L1").arg(p.best.tokens_per_s_per_gpu, 0, 'f', 0); },
          [](const ScalingPoint& p) { return p.best.tokens_per_s_per_gpu; }),
      number(
          Model::tr("MFU"),
          [](const ScalingPoint& p) { return QStringLiteral("%1 %").arg(100 * p.best.mfu, 0, 'f', 1); },
          [](const ScalingPoint& p) { return p.best.mfu; }),
      number(
          Model::tr("Efficiency"),
          [](const ScalingPoint& p) { return QStringLiteral("%1 %").arg(100 * p.scaling_efficiency, 0, 'f', 1); },
          [](const ScalingPoint& p) { return p.scaling_efficiency; }),
      column(Model::tr("Layout change / why no layout"),
             [](const ScalingPoint& p, int) {
               if (!p.valid) {
                 QString text = qstring(p.error);
                 for (const auto& [reason, count] : p.top_rejections)
                   text += QStringLiteral("; %1 × %2").arg(count).arg(qstring(reason));
                 return text;
               }
               return qstring(p.layout_change);
             }),
  };
}

QString power_of_two_range(int64_t from, int64_t to) {
  return QStringLiteral("%1:%2").arg(from).arg(to);
}

}  // namespace

ScalingPointModel::ScalingPointModel(QObject* parent) : SnapshotTableModel(ValueRole, scaling_columns(), parent) {}

void ScalingPointModel::setResult(const std::shared_ptr<const ScalingResult>& result) {
  if (!result) return setRows(Rows{});
  setRows(std::shared_ptr<const Rows>(result, &result->points));
}

ScalingView::ScalingView(ProjectDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Scaling"), this));
  mode_ = new QComboBox(this);
  mode_->setObjectName(QStringLiteral("scaling_mode"));
  mode_->addItem(tr("weak (batch grows with the GPUs)"), static_cast<int>(ScalingMode::weak));
  mode_->addItem(tr("strong (global batch fixed)"), static_cast<int>(ScalingMode::strong));
  connect(mode_, &QComboBox::activated, this, &ScalingView::request);
  bar->addWidget(mode_);
  bar->addWidget(new QLabel(tr("from"), this));
  from_ = new QSpinBox(this);
  to_ = new QSpinBox(this);
  for (QSpinBox* box : {from_, to_}) {
    box->setRange(1, 65536);
    box->setKeyboardTracking(false);
    box->setSuffix(tr(" GPUs"));
    connect(box, &QSpinBox::valueChanged, this, &ScalingView::request);
  }
  from_->setValue(8);
  to_->setValue(1024);
  bar->addWidget(from_);
  bar->addWidget(new QLabel(tr("to"), this));
  bar->addWidget(to_);
  bar->addWidget(new QLabel(tr("(powers of two)"), this));
  status_ = new QLabel(this);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);
  caption_ = new QLabel(this);
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(caption_);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  chart_ = new ScalingChart(splitter);
  model_ = new ScalingPointModel(this);
  table_ = new QTableView(splitter);
  table_->setObjectName(QStringLiteral("scaling_table"));
  table_->setModel(model_);
  style_table(table_, {.row_headers = false, .select_rows = true, .stretch_last_section = true});
  splitter->addWidget(chart_);
  splitter->addWidget(table_);
  splitter->setSizes({360, 160});
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter, 1);
  connect(chart_, &ScalingChart::pointActivated, this, [this](size_t point) { applyPoint(point); });
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (index.isValid()) applyPoint(static_cast<size_t>(index.row()));
  });
  connect(document_, &ProjectDocument::changed, this, &ScalingView::projectChanged);
  projectChanged();
}

ScalingView::~ScalingView() {
  if (cancel_) cancel_->store(true);
}

void ScalingView::setMode(ScalingMode mode) {
  mode_->setCurrentIndex(std::max(0, mode_->findData(static_cast<int>(mode))));
  request();
}

void ScalingView::setRange(int64_t from_gpus, int64_t to_gpus) {
  const QSignalBlocker b1(from_), b2(to_);
  from_->setValue(static_cast<int>(from_gpus));
  to_->setValue(static_cast<int>(to_gpus));
  request();
}

void ScalingView::projectChanged() {
  // Only what the searches depend on: a layout edit does not rerun them.
  Project inputs = search_inputs(document_->project());
  if (inputs_ && *inputs_ == inputs) return;
  // A family whose node is not a divisor of the range's start (a 72-GPU rack, say): from one node to 128.
  if (const auto family = parse_cluster_family(document_->project().cluster);
      family && from_->value() % family->gpus_per_unit != 0) {
    const QSignalBlocker b1(from_), b2(to_);
    from_->setValue(static_cast<int>(family->gpus_per_unit));
    to_->setValue(static_cast<int>(std::min<int64_t>(family->gpus_per_unit * 128, 65536)));
  }
  request();
}

void ScalingView::request() {
  if (!isVisible()) {
    stale_ = true;
    return;
  }
  start();
}

void ScalingView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) start();
}

void ScalingView::start() {
  stale_ = false;
  if (cancel_) cancel_->store(true);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  cancel_ = cancel;
  const uint64_t generation = ++generation_;
  const Project project = document_->project();
  inputs_ = search_inputs(project);
  const auto mode = static_cast<ScalingMode>(mode_->currentData().toInt());
  const QString range = power_of_two_range(from_->value(), to_->value());
  running_ = true;
  status_->setText(tr("computing %1 (%2)…").arg(range, mode == ScalingMode::weak ? tr("weak") : tr("strong")));
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    finished(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([project, mode, range = range.toStdString(), cancel]() -> Outcome {
    auto counts = parse_gpu_counts(range);
    if (!counts) return {nullptr, QString::fromStdString(counts.error().to_string())};
    auto result = scale_project(project, mode, *counts, cancel.get());
    if (!result) return {nullptr, QString::fromStdString(result.error().to_string())};
    return {std::make_shared<const ScalingResult>(std::move(*result)), {}};
  }));
}

void ScalingView::finished(uint64_t generation, const Outcome& outcome) {
  if (generation != generation_) return;  // a later request is running: its result wins
  running_ = false;
  result_ = outcome.result;
  model_->setResult(result_);
  chart_->setSpec(scaling_chart_spec(result_ ? *result_ : ScalingResult{}));
  if (result_) {
    status_->setText(
        tr("%1 · %n size(s)", nullptr, static_cast<int>(result_->points.size())).arg(qstring(result_->cluster_family)));
    caption_->setText(chart_->spec().caption);
  } else {
    status_->setText(tr("no result"));
    caption_->setText(outcome.error);
  }
  table_->resizeColumnsToContents();
  emit computed();
}

bool ScalingView::applyPoint(size_t point) {
  if (!result_ || point >= result_->points.size() || !result_->points[point].valid) return false;
  const ScalingPoint& p = result_->points[point];
  Project project = project_at_scaling_point(document_->project(), p);
  document_->push(
      new ApplyScalingPoint(document_, std::move(project),
                            tr("Apply %1 GPUs and its best layout (%2)").arg(p.gpus).arg(ranked_layout_text(p.best))));
  return true;
}

}  // namespace meshscope::ui
