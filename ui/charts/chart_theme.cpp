#include "ui/charts/chart_theme.hpp"

#include <QGraphicsLayout>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>

#include "ui/chart_style.hpp"

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

}  // namespace meshscope::ui
