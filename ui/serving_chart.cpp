#include "ui/serving_chart.hpp"

#include <QButtonGroup>
#include <QCursor>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
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

#include "ui/chart_style.hpp"
#include "ui/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMsPerSecond = 1e3;
// Throughput spanning this ratio or more goes on a log axis: concurrency doubles from point to
// point, and on a linear axis the low-concurrency points crowd into the left edge.
constexpr double kLogSpan = 10.0;
// Pixels from the plot's bottom edge to the top of QtCharts' axis labels (tick + padding).
constexpr double kAxisLabelOffset = 6.0;

QString number(int64_t value) {
  return QString::number(static_cast<qlonglong>(value));
}

QString grouped(double value) {
  return QLocale(QLocale::English).toString(value, 'f', value < 100 ? 1 : 0);
}

QString binding_text(ServingBinding binding) {
  const std::string_view name = serving_binding_name(binding);
  return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())).replace(u'_', u' ');
}

double metric_ms(const ServingPoint& point, ServingMetric metric) {
  return kMsPerSecond * (metric == ServingMetric::itl ? point.itl_s : point.ttft_s);
}

}  // namespace

QString serving_layout_label(const ServingLayout& layout) {
  QString label = QStringLiteral("TP %1").arg(number(layout.tp));
  if (layout.pp > 1) label += QStringLiteral(" \u00b7 PP %1").arg(number(layout.pp));
  if (layout.dp > 1) label += QStringLiteral(" \u00b7 DP %1").arg(number(layout.dp));
  if (layout.ep > 1) label += QStringLiteral(" \u00b7 EP %1").arg(number(layout.ep));
  label += layout.replicas == 1 ? QObject::tr(" \u00d7 1 replica")
                                : QObject::tr(" \u00d7 %1 replicas").arg(number(layout.replicas));
  label += QObject::tr(" (%1 GPUs)").arg(number(layout.gpus()));
  return label;
}

QString serving_point_tooltip(const QString& name, const ServingPoint& point, int64_t gpus) {
  QString tip = QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped());
  tip += QObject::tr("<br>concurrency %1 per replica").arg(number(point.concurrency));
  if (point.running != point.concurrency) tip += QObject::tr(" (%1 running)").arg(number(point.running));
  tip += QObject::tr("<br>%1 output tokens/s per GPU \u00b7 %2 in all")
             .arg(grouped(point.output_tokens_per_s / static_cast<double>(std::max<int64_t>(gpus, 1))),
                  grouped(point.output_tokens_per_s));
  tip += QObject::tr("<br>TTFT %1 \u00b7 ITL %2").arg(duration_text(point.ttft_s), duration_text(point.itl_s));
  tip += QObject::tr("<br>bound by %1").arg(binding_text(point.binding));
  return tip;
}

ServingChartSpec serving_chart_spec(const std::vector<ServingCurve>& curves, const ServingTarget& target,
                                    ServingMetric metric) {
  ServingChartSpec spec;
  spec.metric = metric;
  const QString metric_name = metric == ServingMetric::itl ? QObject::tr("ITL") : QObject::tr("TTFT");
  spec.title = metric == ServingMetric::itl ? QObject::tr("Inter-token latency vs throughput")
                                            : QObject::tr("Time to first token vs throughput");
  spec.x_title = QObject::tr("Output tokens/s per GPU");
  spec.y_title = QObject::tr("%1 (ms)").arg(metric_name);

  double x_low = std::numeric_limits<double>::infinity(), x_high = 0, y_high = 0;
  for (size_t i = 0; i < curves.size(); ++i) {
    const ServingCurve& curve = curves[i];
    ServingChartSpec::Series series;
    series.name = curve.name.isEmpty() ? serving_layout_label(curve.layout) : curve.name;
    series.colour = series_colour(static_cast<int>(i));
    const auto gpus = static_cast<double>(std::max<int64_t>(curve.layout.gpus(), 1));
    for (const ServingPoint& point : curve.estimate.curve) {
      const double x = point.output_tokens_per_s / gpus;
      if (!(x > 0) || !std::isfinite(x)) continue;  // nothing to place on a throughput axis
      const double y = metric_ms(point, metric);
      series.points.emplace_back(x, y);
      series.tooltips.push_back(serving_point_tooltip(series.name, point, curve.layout.gpus()));
      series.concurrency.push_back(point.concurrency);
      x_low = std::min(x_low, x);
      x_high = std::max(x_high, x);
      y_high = std::max(y_high, y);
    }
    spec.series.push_back(std::move(series));
  }

  const double limit_s = metric == ServingMetric::itl ? target.max_itl_s : target.max_ttft_s;
  if (std::isfinite(limit_s) && limit_s > 0) {
    spec.target_ms = kMsPerSecond * limit_s;
    spec.target_label = QObject::tr("%1 target %2").arg(metric_name, duration_text(limit_s));
    y_high = std::max(y_high, *spec.target_ms);
  }

  if (x_high > 0) {
    spec.log_x = x_high / x_low >= kLogSpan;
    if (spec.log_x) {
      spec.x_min = std::pow(10.0, std::floor(std::log10(x_low)));
      spec.x_max = std::pow(10.0, std::ceil(std::log10(x_high)));
    } else {
      const double step = nice_step(x_high, 6);
      spec.x_min = 0;
      spec.x_max = std::ceil(x_high * 1.05 / step) * step;
    }
  }
  if (y_high > 0) {
    const double step = nice_step(y_high, 6);
    spec.y_max = std::ceil(y_high * 1.08 / step) * step;
  }
  return spec;
}

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
    line->setPen(QPen(series.colour, 2));
    line->setPointsVisible(true);
    for (const QPointF& point : series.points) line->append(point);
    chart->addSeries(line);
    line->setMarkerSize(5);  // after addSeries: the theme sets its own size
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
    target_line_->setPen(QPen(reference_line_colour(), 1.5, Qt::DashLine));
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
