#include "ui/charts/profile_chart.hpp"

#include <QGraphicsLayout>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

namespace meshscope::ui {

ProfileChart::ProfileChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
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
  layout->addWidget(chart_view_);
}

ProfileChart::~ProfileChart() = default;

void ProfileChart::setSpec(const ProfileChartSpec& spec, bool labelled) {
  bars_->clear();
  for (const auto& set : spec.sets) {
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
  categories_->append(spec.bar_labels);
  values_->setRange(0, spec.axis_max_ms > 0 ? spec.axis_max_ms : 1);
  values_->setTickInterval(spec.axis_step_ms > 0 ? spec.axis_step_ms : 1);
  values_->setTickType(QValueAxis::TicksDynamic);
  values_->setTickAnchor(0);
  chart_view_->chart()->setTitle(labelled ? spec.title : QString());
  chart_view_->chart()->legend()->setVisible(labelled);
}

std::vector<double> ProfileChart::drawnValues(int set) const {
  std::vector<double> out;
  const auto sets = bars_->barSets();
  if (set < 0 || set >= sets.size()) return out;
  for (int i = 0; i < sets[set]->count(); ++i) out.push_back(sets[set]->at(i));
  return out;
}

}  // namespace meshscope::ui
