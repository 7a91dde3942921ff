#include "ui/explore/sweep_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "ui/charts/sweep_chart.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"

namespace meshscope::ui {

namespace {

constexpr Qt::Alignment kLeft = Qt::AlignLeft | Qt::AlignVCenter;
constexpr Qt::Alignment kRight = Qt::AlignRight | Qt::AlignVCenter;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The layout's degrees that are not 1 (and DP and the micro-batch always), as the ranked view writes them.
QString layout_text(const KeyValues& keys) {
  QStringList items;
  for (const auto& [key, value] : keys) {
    const bool always = key == "dp" || key == "micro_batch";
    if (!always && (value == "1" || value == "0" || value == "false")) continue;
    items << QStringLiteral("%1=%2").arg(qstring(key), qstring(value));
  }
  return items.join(QLatin1Char(','));
}

QString keys_joined(const KeyValues& keys) {
  QStringList items;
  for (const auto& [key, value] : keys) items << QStringLiteral("%1=%2").arg(qstring(key), qstring(value));
  return items.join(QLatin1Char(','));
}

std::vector<SnapshotColumn<SweepRow>> sweep_columns() {
  using Cell = SnapshotColumn<SweepRow>::Cell;
  using Model = SweepPointModel;
  const auto column = [](const QString& header, Cell display, Cell value = {}, Qt::Alignment alignment = kLeft) {
    return SnapshotColumn<SweepRow>{header, {}, std::move(display), std::move(value), alignment, {}, {}, {}, {}};
  };
  const auto number = [&](const QString& header, auto text, auto raw) {
    return column(
        header,
        [text](const SweepRow& row, int) { return row.point.has_layout ? text(row.point) : QStringLiteral("–"); },
        [raw](const SweepRow& row, int) { return row.point.has_layout ? raw(row.point) : kNaN; }, kRight);
  };
  return {
      column(
          Model::tr("#"), [](const SweepRow& row, int) { return QString::number(row.point.index); },
          [](const SweepRow& row, int) { return static_cast<double>(row.point.index); }, kRight),
      column(Model::tr("Model"), [](const SweepRow& row, int) { return qstring(row.point.model); }),
      column(Model::tr("Cluster"), [](const SweepRow& row, int) { return qstring(row.point.cluster); }),
      number(
          Model::tr("GPUs"), [](const SweepResultPoint& p) { return QString::number(p.gpus); },
          [](const SweepResultPoint& p) { return static_cast<double>(p.gpus); }),
      column(Model::tr("Workload"), [](const SweepRow& row, int) { return keys_joined(row.point.workload); }),
      column(Model::tr("Objective"), [](const SweepRow& row, int) { return qstring(row.point.objective); }),
      column(Model::tr("Best layout"),
             [](const SweepRow& row, int) {
               return row.point.has_layout ? layout_text(row.point.layout) + QStringLiteral(" · ") +
                                                 keys_joined(row.point.layout_choices)
                                           : QString();
             }),
      number(
          Model::tr("Tokens/s/GPU"),
          [](const SweepResultPoint& p) { return QStringLiteral("%L1").arg(p.tokens_per_s_per_gpu, 0, 'f', 0); },
          [](const SweepResultPoint& p) { return p.tokens_per_s_per_gpu; }),
      number(
          Model::tr("MFU"),
          [](const SweepResultPoint& p) { return QStringLiteral("%1 %").arg(100 * p.mfu, 0, 'f', 1); },
          [](const SweepResultPoint& p) { return p.mfu; }),
      number(
          Model::tr("Step"), [](const SweepResultPoint& p) { return duration_text(p.step_time_s); },
          [](const SweepResultPoint& p) { return p.step_time_s; }),
      number(
          Model::tr("$/M tokens"),
          [](const SweepResultPoint& p) { return QStringLiteral("%1").arg(p.cost_per_million_tokens, 0, 'f', 3); },
          [](const SweepResultPoint& p) { return p.cost_per_million_tokens; }),
      column(
          Model::tr("Front"), [](const SweepRow& row, int) { return row.on_front ? QStringLiteral("✓") : QString(); },
          [](const SweepRow& row, int) { return row.on_front ? 1.0 : 0.0; }, Qt::AlignCenter),
      column(Model::tr("Why nothing fits"),
             [](const SweepRow& row, int) {
               if (!row.point.error.empty()) return qstring(row.point.error);
               if (row.point.has_layout) return QString();
               QStringList reasons;
               for (const std::string& reason : row.point.top_rejected) reasons << qstring(reason);
               return reasons.join(QStringLiteral("; "));
             }),
  };
}

}  // namespace

SweepPointModel::SweepPointModel(QObject* parent) : SnapshotTableModel(ValueRole, sweep_columns(), parent) {}

void SweepPointModel::setResults(const SweepResults& results) {
  const std::vector<size_t> front = sweep_pareto_front(results.points);
  const std::set<size_t> on_front(front.begin(), front.end());
  Rows rows;
  for (size_t i = 0; i < results.points.size(); ++i) rows.push_back({results.points[i], on_front.count(i) > 0});
  setRows(std::move(rows));
}

SweepView::SweepView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* header = new QHBoxLayout;
  title_ = new QLabel(tr("No sweep. File → Open sweep results… reads the JSON lines of meshscope-cli sweep."), this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  header->addWidget(title_, 1);
  header->addWidget(new QLabel(tr("Show:"), this));
  metric_box_ = new QComboBox(this);
  metric_box_->setObjectName(QStringLiteral("sweep_metric"));
  for (const SweepMetric metric :
       {SweepMetric::tokens_per_s_per_gpu, SweepMetric::tokens_per_s, SweepMetric::cost_per_million_tokens})
    metric_box_->addItem(sweep_metric_title(metric), static_cast<int>(metric));
  connect(metric_box_, &QComboBox::activated, this,
          [this] { setMetric(static_cast<SweepMetric>(metric_box_->currentData().toInt())); });
  header->addWidget(metric_box_);
  layout->addLayout(header);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  chart_ = new SweepChart(splitter);
  model_ = new SweepPointModel(this);
  table_ = new QTableView(splitter);
  table_->setModel(model_);
  style_table(table_, {.row_headers = false, .select_rows = true, .stretch_last_section = true});
  table_->setSortingEnabled(false);
  splitter->addWidget(chart_);
  splitter->addWidget(table_);
  splitter->setSizes({520, 340});
  layout->addWidget(splitter, 1);
  connect(chart_, &SweepChart::pointActivated, this, [this](size_t point) {
    if (results_ && point < results_->points.size()) emit openPoint(results_->points[point]);
  });
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    if (results_ && index.isValid() && static_cast<size_t>(index.row()) < results_->points.size())
      emit openPoint(results_->points[static_cast<size_t>(index.row())]);
  });
  rebuild();
}

void SweepView::setResults(std::shared_ptr<const SweepResults> results, const QString& origin) {
  results_ = std::move(results);
  if (results_) {
    int64_t fitting = 0;
    for (const SweepResultPoint& p : results_->points) fitting += p.has_layout ? 1 : 0;
    QString text = tr("%1 · %n point(s)", nullptr, static_cast<int>(results_->points.size())).arg(origin);
    text += tr(" · %1 with a layout that fits · %2 on the Pareto front")
                .arg(fitting)
                .arg(sweep_pareto_front(results_->points).size());
    for (const std::string& warning : results_->warnings) text += QStringLiteral(" · ") + qstring(warning);
    title_->setText(text);
  }
  model_->setResults(results_ ? *results_ : SweepResults{});
  table_->resizeColumnsToContents();
  rebuild();
}

void SweepView::setMetric(SweepMetric metric) {
  metric_ = metric;
  metric_box_->setCurrentIndex(metric_box_->findData(static_cast<int>(metric)));
  rebuild();
}

void SweepView::rebuild() {
  chart_->setSpec(sweep_chart_spec(results_ ? *results_ : SweepResults{}, metric_));
}

}  // namespace meshscope::ui
