#pragma once
// The QtCharts adapter of the profile view's chart: draws a ProfileChartSpec as stacked bars, with each segment's
// tooltip on hover. Only ui/charts/ includes QtCharts; the spec is what tests check.
#include <QWidget>

#include <vector>

#include "ui/profile/profile_chart_spec.hpp"

class QBarCategoryAxis;
class QChartView;
class QStackedBarSeries;
class QValueAxis;

namespace meshscope::ui {

class ProfileChart final : public QWidget {
  Q_OBJECT

 public:
  explicit ProfileChart(QWidget* parent = nullptr);
  ~ProfileChart() override;

  // Draws `spec`; the title and the legend only when `labelled` (a trace is shown).
  void setSpec(const ProfileChartSpec& spec, bool labelled);
  // Bar values drawn (ms), to check the adapter against the spec.
  [[nodiscard]] std::vector<double> drawnValues(int set) const;

 private:
  QChartView* chart_view_ = nullptr;
  QStackedBarSeries* bars_ = nullptr;
  QBarCategoryAxis* categories_ = nullptr;
  QValueAxis* values_ = nullptr;
};

}  // namespace meshscope::ui
