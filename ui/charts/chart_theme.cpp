#include "ui/charts/chart_theme.hpp"

#include <QGraphicsLayout>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>

#include "ui/kit/chart_style.hpp"

namespace meshscope::ui {

void apply_chart_style(QChart* chart, const QFont& base) {
  chart->setTheme(QChart::ChartThemeLight);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setMargins(QMargins(8, 8, 8, 8));
  chart->legend()->setFont(chart_font(base));
  chart->legend()->setShowToolTips(true);  // truncated legend labels show in full on hover
}

void set_chart_fonts(QWidget* root, const QFont& font) {
  for (QChartView* view : root->findChildren<QChartView*>()) {
    QChart* chart = view->chart();
    if (chart == nullptr) continue;
    chart->legend()->setFont(font);
    chart->setTitleFont(font);
    for (QAbstractAxis* axis : chart->axes()) {
      axis->setLabelsFont(font);
      axis->setTitleFont(font);
    }
  }
}

}  // namespace meshscope::ui
