#include "ui/charts/scaling_chart.hpp"

#include <QCursor>
#include <QHBoxLayout>
#include <QToolTip>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <utility>

#include "ui/charts/chart_theme.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

QLogValueAxis* gpu_axis(const ScalingChartSpec& spec, bool titled) {
  auto* axis = new QLogValueAxis;
  axis->setBase(2);
  axis->setLabelFormat(QStringLiteral("%g"));
  axis->setRange(spec.x_min, spec.x_max);
  axis->setMinorTickCount(0);
  if (titled) axis->setTitleText(spec.x_title);
  return axis;
}

QValueAxis* linear_axis(const QString& title, double max) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setRange(0, max);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(nice_step(max, 6));
  axis->setLabelFormat(QStringLiteral("%.6g"));
  return axis;
}

}  // namespace

ScalingChart::ScalingChart(QWidget* parent) : QWidget(parent) {
  // Side by side: the dock is wider than it is tall.
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  throughput_view_ = new QChartView(new QChart, this);
  efficiency_view_ = new QChartView(new QChart, this);
  for (QChartView* view : {throughput_view_, efficiency_view_}) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    layout->addWidget(view, 1);
  }
}

QScatterSeries* ScalingChart::addSeries(QChart* chart, const ScalingChartSpec::Series& series, QAbstractAxis* x,
                                        QAbstractAxis* y) {
  auto* line = new QLineSeries;
  QPen pen(series.colour);
  pen.setWidthF(2.0);
  line->setPen(pen);
  auto* markers = new QScatterSeries;
  markers->setName(series.name);
  markers->setColor(series.colour);
  markers->setBorderColor(series.colour.darker(130));
  markers->setMarkerSize(9);
  for (const QPointF& p : series.points) {
    line->append(p);
    markers->append(p);
  }
  for (auto* added : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(markers)}) {
    chart->addSeries(added);
    added->attachAxis(x);
    added->attachAxis(y);
  }
  chart->legend()->markers(line).front()->setVisible(false);
  const auto find = [&series](const QPointF& point) {
    for (size_t i = 0; i < series.points.size(); ++i)
      if (series.points[i] == point) return i;
    return series.points.size();
  };
  connect(markers, &QScatterSeries::hovered, this, [this, &series, find](const QPointF& point, bool state) {
    const size_t i = find(point);
    if (!state || i == series.points.size()) return QToolTip::hideText();
    QToolTip::showText(QCursor::pos(), series.tooltips[i], this);
  });
  connect(markers, &QScatterSeries::doubleClicked, this, [this, &series, find](const QPointF& point) {
    const size_t i = find(point);
    if (i < series.points.size()) emit pointActivated(series.point[i]);
  });
  markers_.push_back(markers);
  return markers;
}

void ScalingChart::setSpec(ScalingChartSpec spec) {
  spec_ = std::move(spec);
  markers_.clear();
  auto* throughput = new QChart;
  apply_chart_style(throughput, font());
  throughput->legend()->setAlignment(Qt::AlignBottom);
  auto* x_top = gpu_axis(spec_, true);
  auto* tokens_axis = new QLogValueAxis;
  tokens_axis->setBase(10);
  tokens_axis->setLabelFormat(QStringLiteral("%.0e"));
  tokens_axis->setTitleText(spec_.tokens_title);
  tokens_axis->setRange(spec_.tokens_min, spec_.tokens_max);
  tokens_axis->setMinorTickCount(8);
  auto* per_gpu_axis = linear_axis(spec_.per_gpu_title, spec_.per_gpu_max);
  throughput->addAxis(x_top, Qt::AlignBottom);
  throughput->addAxis(tokens_axis, Qt::AlignLeft);
  throughput->addAxis(per_gpu_axis, Qt::AlignRight);
  addSeries(throughput, spec_.tokens, x_top, tokens_axis);
  addSeries(throughput, spec_.per_gpu, x_top, per_gpu_axis);

  auto* efficiency = new QChart;
  apply_chart_style(efficiency, font());
  efficiency->legend()->setAlignment(Qt::AlignBottom);
  auto* x_bottom = gpu_axis(spec_, true);
  auto* efficiency_axis = linear_axis(spec_.efficiency_title, spec_.efficiency_max);
  efficiency->addAxis(x_bottom, Qt::AlignBottom);
  efficiency->addAxis(efficiency_axis, Qt::AlignLeft);
  addSeries(efficiency, spec_.efficiency, x_bottom, efficiency_axis);
  auto* changes = new QScatterSeries;
  changes->setName(tr("best layout changes (labels: GPUs)"));
  changes->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  changes->setMarkerSize(15);
  changes->setColor(Qt::transparent);
  QPen ring(reference_line_colour());
  ring.setWidthF(2.0);
  changes->setPen(ring);
  for (const auto& change : spec_.changes) changes->append(change.at);
  changes->setPointLabelsFormat(QStringLiteral("@xPoint"));
  changes->setPointLabelsVisible(true);
  changes->setPointLabelsClipping(false);
  efficiency->addSeries(changes);
  changes->attachAxis(x_bottom);
  changes->attachAxis(efficiency_axis);
  markers_.push_back(changes);
  for (auto [view, chart] : {std::pair{throughput_view_, throughput}, std::pair{efficiency_view_, efficiency}}) {
    QChart* old = view->chart();
    view->setChart(chart);
    delete old;
  }
}

std::vector<QPointF> ScalingChart::seriesPoints(int series) const {
  const auto points = markers_.at(static_cast<size_t>(series))->points();
  return {points.begin(), points.end()};
}

}  // namespace meshscope::ui
