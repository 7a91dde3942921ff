#include "ui/charts/sweep_chart.hpp"

#include <QCursor>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <cmath>
#include <utility>

#include "ui/charts/chart_theme.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

SweepChart::SweepChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  view_ = new QChartView(new QChart, this);
  view_->setRenderHint(QPainter::Antialiasing);
  layout->addWidget(view_);
}

void SweepChart::setSpec(SweepChartSpec spec) {
  spec_ = std::move(spec);
  auto* chart = new QChart;
  apply_chart_style(chart, font());
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* x_axis = new QLogValueAxis;
  x_axis->setBase(2);
  x_axis->setLabelFormat(QStringLiteral("%g"));
  x_axis->setTitleText(spec_.x_title);
  x_axis->setRange(spec_.x_min, spec_.x_max);
  x_axis->setMinorTickCount(0);
  auto* y_axis = new QValueAxis;
  y_axis->setTitleText(spec_.y_title);
  y_axis->setRange(spec_.y_min, spec_.y_max);
  y_axis->setTickType(QValueAxis::TicksDynamic);
  y_axis->setTickAnchor(0);
  y_axis->setTickInterval(nice_step(spec_.y_max - spec_.y_min, 6));
  y_axis->setLabelFormat(QStringLiteral("%.6g"));
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  markers_.clear();
  for (size_t s = 0; s < spec_.series.size(); ++s) {
    const SweepChartSpec::Series& series = spec_.series[s];
    auto* line = new QLineSeries;
    QPen pen(series.colour);
    pen.setWidthF(themed_width(1.5));
    line->setPen(pen);
    auto* markers = new QScatterSeries;
    markers->setName(series.name);
    markers->setColor(series.colour);
    markers->setBorderColor(series.colour.darker(130));
    markers->setMarkerSize(themed_marker_size(9));
    for (const QPointF& p : series.points) {
      line->append(p);
      markers->append(p);
    }
    chart->addSeries(line);
    chart->addSeries(markers);
    for (auto* added : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(markers)}) {
      added->attachAxis(x_axis);
      added->attachAxis(y_axis);
    }
    chart->legend()->markers(line).front()->setVisible(false);
    connect(markers, &QScatterSeries::hovered, this, [this, s](const QPointF& point, bool state) {
      if (!state) return QToolTip::hideText();
      const auto& drawn = spec_.series[s];
      for (size_t i = 0; i < drawn.points.size(); ++i)
        if (drawn.points[i] == point) QToolTip::showText(QCursor::pos(), drawn.tooltips[i], this);
    });
    connect(markers, &QScatterSeries::doubleClicked, this, [this, s](const QPointF& point) {
      const auto& drawn = spec_.series[s];
      for (size_t i = 0; i < drawn.points.size(); ++i)
        if (drawn.points[i] == point) emit pointActivated(drawn.point[i]);
    });
    markers_.push_back(markers);
  }
  front_ = new QScatterSeries;
  front_->setName(tr("Pareto front (no other point both faster and more efficient)"));
  front_->setMarkerSize(themed_marker_size(17));
  front_->setColor(Qt::transparent);
  QPen front_pen(reference_line_colour());
  front_pen.setWidthF(themed_width(2.0));
  front_->setPen(front_pen);
  for (const QPointF& p : spec_.front) front_->append(p);
  chart->addSeries(front_);
  front_->attachAxis(x_axis);
  front_->attachAxis(y_axis);
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
}

std::vector<QPointF> SweepChart::seriesPoints(int series) const {
  const auto points = markers_.at(static_cast<size_t>(series))->points();
  return {points.begin(), points.end()};
}

std::vector<QPointF> SweepChart::frontPoints() const {
  const auto points = front_ ? front_->points() : QList<QPointF>();
  return {points.begin(), points.end()};
}

}  // namespace meshscope::ui
