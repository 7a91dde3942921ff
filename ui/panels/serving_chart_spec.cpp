#include "ui/panels/serving_chart_spec.hpp"

#include <QLocale>
#include <QObject>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMsPerSecond = 1e3;
// Throughput spanning this ratio or more goes on a log axis: concurrency doubles from point to
// point, and on a linear axis the low-concurrency points crowd into the left edge.
constexpr double kLogSpan = 10.0;

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

}  // namespace meshscope::ui
