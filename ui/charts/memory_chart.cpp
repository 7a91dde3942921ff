#include "ui/charts/memory_chart.hpp"

#include <QCursor>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/charts/chart_theme.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
// Bar width as a share of a rank's slot: gaps keep neighbouring stacks apart, and one or two
// ranks do not become slabs across the whole plot.
double bar_width(qsizetype bars) {
  return std::min(0.6, 0.3 + 0.1 * static_cast<double>(bars));
}
constexpr int kHeadroomGap = 6;  // pixels between the headroom row and the plot

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);  // one white surface with the chart under the title
  setAutoFillBackground(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  title_ = new QLabel(this);
  title_->setTextFormat(Qt::RichText);
  QFont title_font = chart_font(font(), 1);
  title_font.setBold(true);
  title_->setFont(title_font);
  title_->setContentsMargins(8, 4, 8, 0);
  convention_ = new QLabel(this);
  convention_->setWordWrap(true);
  convention_->setContentsMargins(8, 0, 8, 0);
  convention_->setForegroundRole(QPalette::PlaceholderText);
  convention_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  view_ = new QChartView(new QChart, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMouseTracking(true);
  apply_chart_style(view_->chart(), font());
  view_->chart()->legend()->setAlignment(Qt::AlignRight);
  connect(view_->chart(), &QChart::plotAreaChanged, this, [this] {
    fitRankLabels();
    placeHeadroomLabels();
  });
  layout->addWidget(title_);
  layout->addWidget(convention_);
  layout->addWidget(view_, 1);
  rebuild();
}

MemoryChart::~MemoryChart() = default;

void MemoryChart::setBudget(std::shared_ptr<const MemoryBudget> budget) {
  budget_ = std::move(budget);
  spec_ = budget_ ? memory_chart_spec(*budget_) : MemoryChartSpec{};
  rebuild();
}

void MemoryChart::rebuild() {
  QChart* chart = view_->chart();
  for (QGraphicsSimpleTextItem* label : headroom_labels_) delete label;
  headroom_labels_.clear();
  sets_.clear();
  chart->removeAllSeries();
  bars_ = nullptr;
  ranks_ = nullptr;
  capacity_ = usable_ = nullptr;
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }

  if (spec_.bar_labels.isEmpty()) {
    title_->setText(tr("Memory per rank \u00b7 no budget"));
  } else if (!spec_.fits) {
    title_->setText(QStringLiteral("%1 <span style=\"color:%2\">%3</span>")
                        .arg(spec_.title.toHtmlEscaped(), overflow_colour().name(), tr("(does not fit)")));
  } else {
    title_->setText(spec_.title.toHtmlEscaped());
  }
  convention_->setText(spec_.convention.isEmpty() ? QString() : tr("Convention: %1").arg(spec_.convention));
  convention_->setVisible(!spec_.convention.isEmpty());
  if (spec_.bar_labels.isEmpty()) return;

  const QFont label_font = chart_font(font());
  const QFontMetricsF metrics(label_font);
  chart->setMargins(QMargins(8, static_cast<int>(std::ceil(metrics.height())) + 2 * kHeadroomGap, 8, 8));

  bars_ = new QStackedBarSeries;
  bars_->setBarWidth(bar_width(spec_.bar_labels.size()));
  for (const MemoryChartSpec::CategorySet& spec_set : spec_.sets) {
    auto* set = new QBarSet(spec_set.label);
    set->setColor(spec_set.colour);
    set->setBorderColor(Qt::white);  // a hairline between stacked segments of similar colours
    for (double gib : spec_set.gib) set->append(gib);
    const MemoryCategory category = spec_set.category;
    connect(set, &QBarSet::hovered, this,
            [this, category](bool hovered, int bar) { showSegmentToolTip(hovered, bar, category); });
    bars_->append(set);
    sets_.push_back(set);
  }
  chart->addSeries(bars_);

  auto* ranks = ranks_ = new QBarCategoryAxis;
  ranks->append(spec_.bar_labels);
  ranks->setLabelsFont(label_font);
  ranks->setGridLineVisible(false);
  chart->addAxis(ranks, Qt::AlignBottom);
  bars_->attachAxis(ranks);

  auto* gib = new QValueAxis;
  gib->setRange(0, spec_.axis_max_gib);
  gib->setTickType(QValueAxis::TicksDynamic);
  gib->setTickAnchor(0);
  gib->setTickInterval(spec_.axis_step_gib);
  gib->setLabelFormat(spec_.axis_step_gib >= 1 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
  gib->setLabelsFont(label_font);
  gib->setTitleText(tr("GiB per GPU"));
  gib->setTitleFont(label_font);
  chart->addAxis(gib, Qt::AlignLeft);
  bars_->attachAxis(gib);

  // Reference lines span the category axis from the left edge (−0.5) to the right (n − 0.5).
  const double left = -0.5;
  const double right = static_cast<double>(spec_.bar_labels.size()) - 0.5;
  const auto reference_line = [&](const QString& name, double value_gib, Qt::PenStyle style) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->append(left, value_gib);
    line->append(right, value_gib);
    QPen pen(reference_line_colour(), themed_width(2), style);
    line->setPen(pen);
    chart->addSeries(line);
    line->attachAxis(ranks);
    line->attachAxis(gib);
    // In the legend as a stroke of its pen (capacity solid, usable dashed), not a square.
    for (QLegendMarker* marker : chart->legend()->markers(line)) marker->setShape(QLegend::MarkerShapeFromSeries);
    return line;
  };
  capacity_ = reference_line(tr("GPU capacity %1").arg(gib_text(spec_.capacity_gib * kBytesPerGib)), spec_.capacity_gib,
                             Qt::SolidLine);
  if (spec_.usable_gib)
    usable_ = reference_line(tr("Usable %1").arg(gib_text(*spec_.usable_gib * kBytesPerGib)), *spec_.usable_gib,
                             Qt::DashLine);

  QFont overflow_font = label_font;
  overflow_font.setBold(true);
  for (const MemoryChartSpec::Headroom& headroom : spec_.headroom) {
    auto* label = new QGraphicsSimpleTextItem(headroom.text, chart);
    label->setFont(headroom.overflow() ? overflow_font : label_font);
    label->setBrush(headroom.overflow() ? overflow_colour() : palette().color(QPalette::Text));
    label->setZValue(10);
    headroom_labels_.push_back(label);
  }
  placeHeadroomLabels();
}

void MemoryChart::placeHeadroomLabels() {
  if (!bars_ || headroom_labels_.empty()) return;
  QChart* chart = view_->chart();
  const QRectF plot = chart->plotArea();
  const double slot = plot.width() / static_cast<double>(headroom_labels_.size());
  for (size_t bar = 0; bar < headroom_labels_.size(); ++bar) {
    QGraphicsSimpleTextItem* label = headroom_labels_[bar];
    const MemoryChartSpec::Headroom& headroom = spec_.headroom[bar];
    label->setText(headroom.text);
    // Narrow bars: the short text, then the bare number (the axis says GiB); the tooltip has all.
    if (label->boundingRect().width() > slot - 4) label->setText(headroom.short_text);
    if (label->boundingRect().width() > slot - 4) label->setText(headroom.tiny_text);
    // Still too wide: no label rather than labels over each other (the segment tooltips remain).
    label->setVisible(label->boundingRect().width() <= slot - 2);
    const double centre = chart->mapToPosition(QPointF(static_cast<double>(bar), 0), bars_).x();
    const QRectF box = label->boundingRect();
    label->setPos(centre - box.width() / 2.0, plot.top() - kHeadroomGap - box.height());
  }
}

void MemoryChart::fitRankLabels() {
  if (!ranks_ || spec_.bar_labels.isEmpty()) return;
  const QFontMetricsF metrics(ranks_->labelsFont());
  const double slot = view_->chart()->plotArea().width() / static_cast<double>(spec_.bar_labels.size());
  const auto fits = [&](const QStringList& labels) {
    double widest = 0;
    for (const QString& label : labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    return widest <= slot - 8;
  };
  const QStringList& wanted = fits(spec_.bar_labels)         ? spec_.bar_labels
                              : fits(spec_.bar_short_labels) ? spec_.bar_short_labels
                                                             : spec_.bar_tiny_labels;
  if (ranks_->categories() == wanted) return;  // also ends the re-layout this change causes
  const QStringList shown = ranks_->categories();
  for (qsizetype i = 0; i < shown.size() && i < wanted.size(); ++i) ranks_->replace(shown[i], wanted[i]);
}

void MemoryChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeHeadroomLabels();
}

void MemoryChart::showSegmentToolTip(bool hovered, int bar, MemoryCategory category) {
  if (!hovered) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(QCursor::pos(), segmentToolTip(bar, category), view_);
}

int MemoryChart::barCount() const {
  if (!bars_) return 0;
  const auto axes = bars_->attachedAxes();
  for (QAbstractAxis* axis : axes)
    if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis)) return static_cast<int>(categories->count());
  return 0;
}

QStringList MemoryChart::barLabels() const {
  return ranks_ ? ranks_->categories() : QStringList();
}

QStringList MemoryChart::setLabels() const {
  QStringList labels;
  for (const QBarSet* set : sets_) labels << set->label();
  return labels;
}

std::optional<double> MemoryChart::segmentGib(int bar, MemoryCategory category) const {
  for (size_t i = 0; i < sets_.size(); ++i)
    if (spec_.sets[i].category == category && bar >= 0 && bar < sets_[i]->count()) return sets_[i]->at(bar);
  return std::nullopt;
}

std::optional<QPoint> MemoryChart::segmentCentre(int bar, MemoryCategory category) const {
  double below = 0;
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (bar < 0 || bar >= sets_[i]->count()) return std::nullopt;
    const double value = sets_[i]->at(bar);
    if (spec_.sets[i].category == category) {
      const QPointF in_chart = view_->chart()->mapToPosition(QPointF(bar, below + value / 2.0), bars_);
      const QPoint in_view = view_->mapFromScene(view_->chart()->mapToScene(in_chart));
      return view_->viewport()->mapTo(this, in_view);
    }
    below += value;
  }
  return std::nullopt;
}

QString MemoryChart::segmentToolTip(int bar, MemoryCategory category) const {
  for (const MemoryChartSpec::CategorySet& set : spec_.sets)
    if (set.category == category && bar >= 0 && static_cast<size_t>(bar) < set.tooltips.size())
      return set.tooltips[static_cast<size_t>(bar)];
  return {};
}

std::optional<double> MemoryChart::capacityLineGib() const {
  if (!capacity_ || capacity_->count() == 0) return std::nullopt;
  return capacity_->at(0).y();
}

std::optional<double> MemoryChart::usableLineGib() const {
  if (!usable_ || usable_->count() == 0) return std::nullopt;
  return usable_->at(0).y();
}

QString MemoryChart::headroomText(int bar) const {
  if (bar < 0 || static_cast<size_t>(bar) >= headroom_labels_.size()) return {};
  const QGraphicsSimpleTextItem* label = headroom_labels_[static_cast<size_t>(bar)];
  return label->isVisible() ? label->text() : QString();
}

bool MemoryChart::headroomIsOverflow(int bar) const {
  if (bar < 0 || static_cast<size_t>(bar) >= headroom_labels_.size()) return false;
  return headroom_labels_[static_cast<size_t>(bar)]->brush().color() == overflow_colour();
}

QChart* MemoryChart::chart() const {
  return view_->chart();
}

QSize MemoryChart::sizeHint() const {
  return {900, 450};
}

QSize MemoryChart::minimumSizeHint() const {
  return {480, 320};
}

}  // namespace meshscope::ui
