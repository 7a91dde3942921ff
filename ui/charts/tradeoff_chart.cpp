#include "ui/charts/tradeoff_chart.hpp"

#include <QCursor>
#include <QGridLayout>
#include <QLabel>
#include <QPainter>
#include <QToolTip>
#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

#include "ui/charts/chart_theme.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

QChartView* make_view(QWidget* parent, const QFont& font) {
  auto* view = new QChartView(new QChart, parent);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMouseTracking(true);
  apply_chart_style(view->chart(), font);
  view->chart()->legend()->setAlignment(Qt::AlignBottom);
  return view;
}

void clear(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

QBarCategoryAxis* category_axis(QChart* chart, const TradeoffChartSpec& spec, const QFont& font) {
  auto* axis = new QBarCategoryAxis;
  axis->append(spec.labels);
  axis->setLabelsFont(font);
  axis->setTitleText(spec.x_title);
  axis->setTitleFont(font);
  axis->setGridLineVisible(false);
  // Long or many labels (GPU ids) turn so that none is elided.
  qsizetype longest = 0;
  for (const QString& label : spec.labels) longest = std::max(longest, label.size());
  if (longest * spec.labels.size() > 40) {
    axis->setLabelsAngle(-60);
    axis->setTruncateLabels(false);
  }
  chart->addAxis(axis, Qt::AlignBottom);
  return axis;
}

QValueAxis* value_axis(QChart* chart, const QString& title, double max, const QFont& font, Qt::Alignment where) {
  auto* axis = new QValueAxis;
  axis->setRange(0, max);
  axis->setTitleText(title);
  axis->setTitleFont(font);
  axis->setLabelsFont(font);
  axis->setTickCount(6);
  axis->setLabelFormat(max >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
  chart->addAxis(axis, where);
  return axis;
}

QLabel* legend_label(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setWordWrap(true);
  label->setTextFormat(Qt::RichText);
  label->setContentsMargins(12, 0, 8, 0);
  return label;
}

// A legend that wraps instead of eliding: QtCharts' one row of markers truncates the category names.
QString legend_html(const std::vector<TradeoffChartSpec::Set>& sets, const QString& extra = {}) {
  QStringList items;
  for (const TradeoffChartSpec::Set& set : sets)
    items << QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;%2")
                 .arg(set.colour.name(), set.label.toHtmlEscaped());
  if (!extra.isEmpty()) items << extra;
  return items.join(QStringLiteral(" &nbsp; "));
}

}  // namespace

TradeoffChart::TradeoffChart(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  auto* layout = new QGridLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  memory_ = make_view(this, font());
  step_ = make_view(this, font());
  throughput_ = make_view(this, font());
  traffic_ = make_view(this, font());
  memory_legend_ = legend_label(this);
  step_legend_ = legend_label(this);
  traffic_legend_ = legend_label(this);
  gaps_ = new QLabel(this);
  gaps_->setWordWrap(true);
  gaps_->setTextFormat(Qt::RichText);
  gaps_->setContentsMargins(8, 0, 8, 4);
  layout->addWidget(memory_, 0, 0);
  layout->addWidget(step_, 0, 1);
  layout->addWidget(throughput_, 0, 2);
  layout->addWidget(traffic_, 0, 3);
  layout->addWidget(memory_legend_, 1, 0);
  layout->addWidget(step_legend_, 1, 1);
  layout->addWidget(traffic_legend_, 1, 3);
  layout->addWidget(gaps_, 2, 0, 1, 4);
  rebuild();
}

void TradeoffChart::setSpec(TradeoffChartSpec spec) {
  spec_ = std::move(spec);
  rebuild();
}

QStringList TradeoffChart::categories() const {
  return spec_.labels;
}

QString TradeoffChart::gapText() const {
  return gaps_->text();
}

QString TradeoffChart::memoryLegendText() const {
  return memory_legend_->text();
}

QString TradeoffChart::stepLegendText() const {
  return step_legend_->text();
}

void TradeoffChart::connectSet(QBarSet* set) {
  connect(set, &QBarSet::hovered, this, [this](bool hovered, int index) {
    if (hovered && index >= 0 && static_cast<size_t>(index) < spec_.tooltips.size())
      QToolTip::showText(QCursor::pos(), spec_.tooltips[static_cast<size_t>(index)], this);
    else
      QToolTip::hideText();
  });
  connect(set, &QBarSet::clicked, this, [this](int index) { emit valueActivated(index); });
}

void TradeoffChart::addSets(QAbstractBarSeries* bars, const std::vector<TradeoffChartSpec::Set>& sets,
                            std::vector<QBarSet*>* kept) {
  for (const TradeoffChartSpec::Set& spec_set : sets) {
    auto* set = new QBarSet(spec_set.label);
    set->setColor(spec_set.colour);
    set->setBorderColor(Qt::white);
    for (double v : spec_set.values) set->append(v);
    connectSet(set);
    bars->append(set);
    if (kept != nullptr) kept->push_back(set);
  }
}

void TradeoffChart::rebuild() {
  memory_sets_.clear();
  step_sets_.clear();
  for (QChartView* view : {memory_, step_, throughput_, traffic_}) clear(view->chart());
  QStringList gaps;
  for (const TradeoffChartSpec::Gap& gap : spec_.gaps)
    gaps << QStringLiteral("<b>%1</b>: %2").arg(gap.value.toHtmlEscaped(), gap.reason.toHtmlEscaped());
  const QString rule = spec_.rule.isEmpty() ? QString() : tr("Rest fixed: %1").arg(spec_.rule.toHtmlEscaped());
  gaps_->setText(gaps.isEmpty() ? rule
                                : QStringLiteral("%1<br><span style=\"color:%2\">\u2715 %3</span>")
                                      .arg(rule, overflow_colour().name(), gaps.join(QStringLiteral("<br>\u2715 "))));
  memory_legend_->setText(
      spec_.labels.isEmpty()
          ? QString()
          : legend_html(spec_.memory,
                        std::all_of(spec_.capacity_per_value_gib.begin(), spec_.capacity_per_value_gib.end(),
                                    [this](double gib) { return gib == spec_.capacity_gib; })
                            ? tr("\u2014 capacity %1").arg(gib_text(spec_.capacity_gib * 1024.0 * 1024.0 * 1024.0))
                            : tr("\u2014 each GPU's capacity")));
  step_legend_->setText(spec_.labels.isEmpty() ? QString() : legend_html(spec_.step));
  traffic_legend_->setText(spec_.labels.isEmpty() ? QString() : legend_html(spec_.traffic));
  if (spec_.labels.isEmpty()) return;
  buildMemory();
  buildStep();
  buildThroughput();
  buildTraffic();
}

void TradeoffChart::buildMemory() {
  QChart* chart = memory_->chart();
  const QFont label_font = chart_font(font());
  chart->setTitle(tr("Busiest rank's memory"));
  chart->setTitleFont(chart_font(font(), 1));
  auto* bars = new QStackedBarSeries;
  bars->setBarWidth(0.6);
  addSets(bars, spec_.memory, &memory_sets_);
  chart->addSeries(bars);
  QBarCategoryAxis* x = category_axis(chart, spec_, label_font);
  QValueAxis* y = value_axis(chart, tr("GiB per GPU"), spec_.memory_max_gib, label_font, Qt::AlignLeft);
  bars->attachAxis(x);
  bars->attachAxis(y);
  auto* capacity = new QLineSeries;
  capacity->setName(tr("capacity"));
  // A step per value: along the gpu axis each value has its own capacity.
  for (size_t i = 0; i < spec_.capacity_per_value_gib.size(); ++i) {
    const double centre = static_cast<double>(i);
    capacity->append(centre - 0.5, spec_.capacity_per_value_gib[i]);
    capacity->append(centre + 0.5, spec_.capacity_per_value_gib[i]);
  }
  capacity->setPen(QPen(reference_line_colour(), 2));
  chart->addSeries(capacity);
  capacity->attachAxis(x);
  capacity->attachAxis(y);
  chart->legend()->hide();  // the label under the chart is the legend
}

void TradeoffChart::buildStep() {
  QChart* chart = step_->chart();
  const QFont label_font = chart_font(font());
  chart->setTitle(tr("Step: compute, exposed comm., bubble"));
  chart->setTitleFont(chart_font(font(), 1));
  auto* bars = new QStackedBarSeries;
  bars->setBarWidth(0.6);
  addSets(bars, spec_.step, &step_sets_);
  chart->addSeries(bars);
  QBarCategoryAxis* x = category_axis(chart, spec_, label_font);
  QValueAxis* y = value_axis(chart, tr("seconds per step"), spec_.step_max_s, label_font, Qt::AlignLeft);
  bars->attachAxis(x);
  bars->attachAxis(y);
  chart->legend()->hide();  // the label under the chart is the legend
}

void TradeoffChart::buildThroughput() {
  QChart* chart = throughput_->chart();
  const QFont label_font = chart_font(font());
  chart->setTitle(tr("MFU and tokens/s per GPU"));
  chart->setTitleFont(chart_font(font(), 1));
  QBarCategoryAxis* x = category_axis(chart, spec_, label_font);
  QValueAxis* mfu_axis = value_axis(chart, tr("MFU %"), 100, label_font, Qt::AlignLeft);
  QValueAxis* tokens_axis = value_axis(chart, tr("tokens/s per GPU"), spec_.tokens_max, label_font, Qt::AlignRight);
  // One line per run of valid values: a gap breaks the line; the markers show single points.
  const auto add_series = [&](const std::vector<double>& values, const QString& name, const QColor& colour,
                              QValueAxis* y) {
    auto* markers = new QScatterSeries;
    markers->setName(name);
    markers->setColor(colour);
    markers->setBorderColor(colour);
    markers->setMarkerSize(8);
    QLineSeries* line = nullptr;
    for (size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) {
        line = nullptr;
        continue;
      }
      markers->append(static_cast<double>(i), values[i]);
      if (!line) {
        line = new QLineSeries;
        line->setPen(QPen(colour, 2));
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        for (QLegendMarker* marker : chart->legend()->markers(line)) marker->setVisible(false);
      }
      line->append(static_cast<double>(i), values[i]);
    }
    chart->addSeries(markers);
    markers->attachAxis(x);
    markers->attachAxis(y);
    connect(markers, &QScatterSeries::clicked, this,
            [this](const QPointF& point) { emit valueActivated(static_cast<int>(std::lround(point.x()))); });
    connect(markers, &QScatterSeries::hovered, this, [this](const QPointF& point, bool state) {
      const auto index = static_cast<size_t>(std::lround(point.x()));
      if (state && index < spec_.tooltips.size())
        QToolTip::showText(QCursor::pos(), spec_.tooltips[index], this);
      else
        QToolTip::hideText();
    });
  };
  add_series(spec_.mfu_percent, tr("MFU %"), series_colour(0), mfu_axis);
  add_series(spec_.tokens_per_s_per_gpu, tr("tokens/s per GPU"), series_colour(1), tokens_axis);
}

// Bytes per step and rank of each mesh axis's collectives (the communication plan), side by side per value.
void TradeoffChart::buildTraffic() {
  QChart* chart = traffic_->chart();
  const QFont label_font = chart_font(font());
  chart->setTitle(tr("Bytes per step and rank, by axis"));
  chart->setTitleFont(chart_font(font(), 1));
  auto* bars = new QBarSeries;
  bars->setBarWidth(0.8);
  addSets(bars, spec_.traffic, nullptr);
  chart->addSeries(bars);
  QBarCategoryAxis* x = category_axis(chart, spec_, label_font);
  QValueAxis* y = value_axis(chart, tr("GB per step (10⁹ B)"), spec_.traffic_max_gb, label_font, Qt::AlignLeft);
  bars->attachAxis(x);
  bars->attachAxis(y);
  chart->legend()->hide();  // the label under the chart is the legend
}

}  // namespace meshscope::ui
