#include "ui/charts/serving_chart.hpp"

#include <QButtonGroup>
#include <QCursor>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QRadioButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ui/charts/chart_theme.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

// Pixels from the plot's bottom edge to the top of QtCharts' axis labels (tick + padding).
constexpr double kAxisLabelOffset = 6.0;

}  // namespace

ServingCurveChart::ServingCurveChart(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);  // one white surface with the chart under the header
  setAutoFillBackground(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* header = new QHBoxLayout;
  header->setContentsMargins(8, 4, 8, 0);
  title_ = new QLabel(this);
  QFont title_font = chart_font(font(), 1);
  title_font.setBold(true);
  title_->setFont(title_font);
  header->addWidget(title_, 1);
  header->addWidget(new QLabel(tr("Latency:"), this));
  itl_button_ = new QRadioButton(tr("ITL"), this);
  itl_button_->setToolTip(tr("Inter-token latency: the time between two output tokens of a sequence"));
  ttft_button_ = new QRadioButton(tr("TTFT"), this);
  ttft_button_->setToolTip(tr("Time to first token: queueing and prefill of a request's prompt"));
  itl_button_->setChecked(true);
  auto* group = new QButtonGroup(this);
  group->addButton(itl_button_);
  group->addButton(ttft_button_);
  header->addWidget(itl_button_);
  header->addWidget(ttft_button_);
  connect(itl_button_, &QRadioButton::toggled, this,
          [this](bool checked) { setMetric(checked ? ServingMetric::itl : ServingMetric::ttft); });
  layout->addLayout(header);

  view_ = new QChartView(new QChart, this);
  view_->setRenderHint(QPainter::Antialiasing);
  apply_chart_style(view_->chart(), font());
  view_->chart()->legend()->setAlignment(Qt::AlignBottom);
  // Every series is a line: the legend shows each as a stroke of its pen (the target dashed).
  view_->chart()->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  connect(view_->chart(), &QChart::plotAreaChanged, this, [this] { placeMinorLabels(); });
  layout->addWidget(view_, 1);
  rebuild();
}

ServingCurveChart::~ServingCurveChart() = default;

void ServingCurveChart::setCurves(std::vector<ServingCurve> curves) {
  curves_ = std::move(curves);
  rebuild();
}

void ServingCurveChart::setTarget(const ServingTarget& target) {
  target_ = target;
  rebuild();
}

void ServingCurveChart::setMetric(ServingMetric metric) {
  if (metric == metric_) return;
  metric_ = metric;
  {
    const QSignalBlocker block_itl(itl_button_);
    const QSignalBlocker block_ttft(ttft_button_);
    (metric == ServingMetric::itl ? itl_button_ : ttft_button_)->setChecked(true);
  }
  rebuild();
  emit metricChanged(metric);
}

void ServingCurveChart::rebuild() {
  spec_ = serving_chart_spec(curves_, target_, metric_);
  QChart* chart = view_->chart();
  for (QGraphicsSimpleTextItem* label : minor_labels_) delete label;
  minor_labels_.clear();
  chart->removeAllSeries();
  lines_.clear();
  target_line_ = nullptr;
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  title_->setText(spec_.series.empty() ? tr("Latency vs throughput \u00b7 no serving estimate") : spec_.title);
  if (spec_.series.empty()) return;

  const QFont label_font = chart_font(font());
  QAbstractAxis* x_axis = nullptr;
  if (spec_.log_x) {
    auto* log_axis = new QLogValueAxis;
    log_axis->setBase(10);
    log_axis->setRange(spec_.x_min, spec_.x_max);
    log_axis->setLabelFormat(QStringLiteral("%g"));
    log_axis->setMinorTickCount(8);  // 2·10^k … 9·10^k
    x_axis = log_axis;
  } else {
    auto* value_axis = new QValueAxis;
    value_axis->setRange(spec_.x_min, spec_.x_max);
    value_axis->setLabelFormat(QStringLiteral("%.0f"));
    value_axis->applyNiceNumbers();
    x_axis = value_axis;
  }
  x_axis->setTitleText(spec_.x_title);
  x_axis->setTitleFont(label_font);
  x_axis->setLabelsFont(label_font);
  chart->addAxis(x_axis, Qt::AlignBottom);

  auto* y_axis = new QValueAxis;
  y_axis->setRange(spec_.y_min, spec_.y_max);
  y_axis->setTickType(QValueAxis::TicksDynamic);
  y_axis->setTickAnchor(0);
  y_axis->setTickInterval(nice_step(spec_.y_max - spec_.y_min, 6));
  y_axis->setLabelFormat(y_axis->tickInterval() >= 1 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
  y_axis->setTitleText(spec_.y_title);
  y_axis->setTitleFont(label_font);
  y_axis->setLabelsFont(label_font);
  chart->addAxis(y_axis, Qt::AlignLeft);

  for (size_t i = 0; i < spec_.series.size(); ++i) {
    const ServingChartSpec::Series& series = spec_.series[i];
    auto* line = new QLineSeries;
    line->setName(series.name);
    line->setPen(QPen(series.colour, themed_width(2)));
    line->setPointsVisible(true);
    for (const QPointF& point : series.points) line->append(point);
    chart->addSeries(line);
    line->setMarkerSize(themed_marker_size(5));  // after addSeries: the theme sets its own size
    line->attachAxis(x_axis);
    line->attachAxis(y_axis);
    const int index = static_cast<int>(i);
    connect(line, &QLineSeries::hovered, this, [this, index](const QPointF& value, bool hovered) {
      const int point = hovered ? nearestPoint(index, value) : -1;
      if (point < 0) {
        QToolTip::hideText();
        return;
      }
      QToolTip::showText(QCursor::pos(), pointToolTip(index, point), view_);
    });
    connect(line, &QLineSeries::clicked, this, [this, index](const QPointF& value) {
      const int point = nearestPoint(index, value);
      if (point >= 0)
        emit pointClicked(index, spec_.series[static_cast<size_t>(index)].concurrency[static_cast<size_t>(point)]);
    });
    lines_.push_back(line);
  }

  if (spec_.log_x) {
    // QLogValueAxis labels only the decades; the 2× and 5× ticks get labels of their own so that
    // throughput can be read off the axis between decades.
    for (double decade = spec_.x_min; decade < spec_.x_max; decade *= 10)
      for (double factor : {2.0, 5.0}) {
        auto* label = new QGraphicsSimpleTextItem(QString::number(factor * decade, 'g', 6), chart);
        label->setFont(label_font);
        label->setBrush(x_axis->labelsBrush());
        label->setData(0, factor * decade);
        minor_labels_.push_back(label);
      }
  }

  if (spec_.target_ms) {
    target_line_ = new QLineSeries;
    target_line_->setName(spec_.target_label);
    target_line_->setPen(QPen(reference_line_colour(), themed_width(1.5), Qt::DashLine));
    target_line_->append(spec_.x_min, *spec_.target_ms);
    target_line_->append(spec_.x_max, *spec_.target_ms);
    chart->addSeries(target_line_);
    target_line_->attachAxis(x_axis);
    target_line_->attachAxis(y_axis);
  }
  placeMinorLabels();
}

void ServingCurveChart::placeMinorLabels() {
  if (minor_labels_.empty() || lines_.empty()) return;
  QChart* chart = view_->chart();
  const QRectF plot = chart->plotArea();
  // The decade labels sit below the axis line by the tick length and the label padding.
  const double y = plot.bottom() + kAxisLabelOffset;
  for (QGraphicsSimpleTextItem* label : minor_labels_) {
    const double x = chart->mapToPosition(QPointF(label->data(0).toDouble(), spec_.y_min), lines_.front()).x();
    label->setPos(x - label->boundingRect().width() / 2.0, y);
    label->setVisible(x >= plot.left() && x <= plot.right());
  }
}

int ServingCurveChart::nearestPoint(int series, QPointF value) const {
  if (series < 0 || static_cast<size_t>(series) >= lines_.size()) return -1;
  QLineSeries* line = lines_[static_cast<size_t>(series)];
  const QPointF at = view_->chart()->mapToPosition(value, line);
  int best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < line->count(); ++i) {
    const QPointF delta = view_->chart()->mapToPosition(line->at(i), line) - at;
    const double distance = std::hypot(delta.x(), delta.y());
    if (distance < best_distance) {
      best_distance = distance;
      best = i;
    }
  }
  return best;
}

int ServingCurveChart::seriesCount() const {
  return static_cast<int>(lines_.size());
}

QString ServingCurveChart::seriesName(int series) const {
  if (series < 0 || static_cast<size_t>(series) >= lines_.size()) return {};
  return lines_[static_cast<size_t>(series)]->name();
}

std::vector<QPointF> ServingCurveChart::seriesPoints(int series) const {
  if (series < 0 || static_cast<size_t>(series) >= lines_.size()) return {};
  const QList<QPointF> points = lines_[static_cast<size_t>(series)]->points();
  return {points.begin(), points.end()};
}

QString ServingCurveChart::pointToolTip(int series, int point) const {
  if (series < 0 || static_cast<size_t>(series) >= spec_.series.size()) return {};
  const auto& tooltips = spec_.series[static_cast<size_t>(series)].tooltips;
  if (point < 0 || static_cast<size_t>(point) >= tooltips.size()) return {};
  return tooltips[static_cast<size_t>(point)];
}

std::optional<double> ServingCurveChart::targetLineMs() const {
  if (!target_line_ || target_line_->count() == 0) return std::nullopt;
  return target_line_->at(0).y();
}

bool ServingCurveChart::logX() const {
  const auto axes = view_->chart()->axes(Qt::Horizontal);
  return !axes.isEmpty() && qobject_cast<QLogValueAxis*>(axes.front()) != nullptr;
}

QSize ServingCurveChart::sizeHint() const {
  return {900, 450};
}

QSize ServingCurveChart::minimumSizeHint() const {
  return {480, 320};
}

}  // namespace meshscope::ui
