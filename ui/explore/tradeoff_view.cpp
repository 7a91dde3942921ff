#include "ui/explore/tradeoff_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/charts/tradeoff_chart.hpp"
#include "ui/charts/tradeoff_heatmap.hpp"
#include "ui/document/project_document.hpp"
#include "ui/document/tradeoff_command.hpp"
#include "ui/explore/tradeoff_chart_spec.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr int kDebounceMs = 30;

QString values_text(const std::vector<TradeoffValue>& values) {
  QStringList parts;
  for (const TradeoffValue& v : values) parts << qstring(v.label);
  return parts.join(QLatin1Char(','));
}

}  // namespace

TradeoffView::TradeoffView(ProjectDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("tradeoff_view"));
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  axis_box_ = new QComboBox(this);
  axis2_box_ = new QComboBox(this);
  axis2_box_->addItem(tr("none (one axis)"), -1);
  for (const auto& [axis, name] : EnumNames<TradeoffAxis>::table) {
    const QString title = qstring(tradeoff_axis_title(axis));
    axis_box_->addItem(title, static_cast<int>(axis));
    axis2_box_->addItem(title, static_cast<int>(axis));
  }
  values_edit_ = new QLineEdit(this);
  values_edit_->setToolTip(tr("Comma-separated values along the axis; empty: the defaults for the project"));
  values2_edit_ = new QLineEdit(this);
  values2_edit_->setToolTip(tr("Comma-separated values of the heat map's second axis; empty: the defaults"));
  controls->addWidget(new QLabel(tr("Axis"), this));
  controls->addWidget(axis_box_);
  controls->addWidget(values_edit_, 2);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(tr("Heat map with"), this));
  controls->addWidget(axis2_box_);
  controls->addWidget(values2_edit_, 1);
  layout->addLayout(controls);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);
  stack_ = new QStackedWidget(this);
  chart_ = new TradeoffChart(stack_);
  heatmap_ = new TradeoffHeatmap(stack_);
  stack_->addWidget(chart_);
  stack_->addWidget(heatmap_);
  layout->addWidget(stack_, 1);

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kDebounceMs);
  connect(debounce_, &QTimer::timeout, this, [this] {
    if (isVisible()) refresh();
  });
  connect(document_, &ProjectDocument::changed, this, [this] { on_project_changed(); });
  connect(axis_box_, &QComboBox::activated, this,
          [this] { setAxes(static_cast<TradeoffAxis>(axis_box_->currentData().toInt()), axis2_); });
  connect(axis2_box_, &QComboBox::activated, this, [this] {
    const int chosen = axis2_box_->currentData().toInt();
    setAxes(axis_, chosen < 0 ? std::nullopt : std::optional(static_cast<TradeoffAxis>(chosen)));
  });
  connect(values_edit_, &QLineEdit::editingFinished, this, [this] { setValues(values_edit_->text()); });
  connect(values2_edit_, &QLineEdit::editingFinished, this, [this] { setValues2(values2_edit_->text()); });
  connect(chart_, &TradeoffChart::valueActivated, this, &TradeoffView::applyValue);
  connect(heatmap_, &TradeoffHeatmap::cellActivated, this, &TradeoffView::applyCell);
  sync_controls();
}

void TradeoffView::setAxes(TradeoffAxis axis, std::optional<TradeoffAxis> axis2) {
  if (axis2 == axis) axis2.reset();
  axis_ = axis;
  axis2_ = axis2;
  values_text_.clear();
  values2_text_.clear();
  refresh();
}

void TradeoffView::setValues(const QString& values) {
  values_text_ = values.trimmed();
  refresh();
}

void TradeoffView::setValues2(const QString& values) {
  values2_text_ = values.trimmed();
  refresh();
}

void TradeoffView::on_project_changed() {
  dirty_ = true;
  debounce_->start();
}

void TradeoffView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) refresh();
}

std::optional<std::vector<TradeoffValue>> TradeoffView::values_of(TradeoffAxis axis, const QString& text) {
  if (text.isEmpty()) return default_tradeoff_values(document_->project(), axis);
  auto values = parse_tradeoff_values(axis, text.toStdString());
  if (values) return *values;
  status_->setText(
      QStringLiteral("<span style=\"color:#d55e00\">%1</span>").arg(qstring(values.error().message).toHtmlEscaped()));
  return std::nullopt;
}

void TradeoffView::refresh() {
  dirty_ = false;
  sync_controls();
  const Project& project = document_->project();
  const auto xs = values_of(axis_, values_text_);
  if (!xs) return;
  values_edit_->setText(values_text(*xs));
  if (axis2_) {
    const auto ys = values_of(*axis2_, values2_text_);
    if (!ys) return;
    values2_edit_->setText(values_text(*ys));
    auto grid = tradeoff_grid(project, axis_, *xs, *axis2_, *ys, cache_);
    curve_.reset();
    if (!grid) {
      status_->setText(qstring(grid.error().message));
      grid_.reset();
      heatmap_->setSpec({});
      return;
    }
    grid_ = std::move(*grid);
    heatmap_->setSpec(tradeoff_heatmap_spec(*grid_));
    stack_->setCurrentWidget(heatmap_);
    status_->setText(tr("%1 × %2 values in %3. Hover a cell for its numbers; click it to apply both values.")
                         .arg(xs->size())
                         .arg(ys->size())
                         .arg(duration_text(grid_->elapsed_s)));
    return;
  }
  auto curve = tradeoff_curve(project, axis_, *xs, cache_);
  grid_.reset();
  if (!curve) {
    status_->setText(qstring(curve.error().message));
    curve_.reset();
    chart_->setSpec({});
    stack_->setCurrentWidget(chart_);
    return;
  }
  curve_ = std::move(*curve);
  chart_->setSpec(tradeoff_chart_spec(*curve_));
  stack_->setCurrentWidget(chart_);
  status_->setText(tr("%1 values in %2, each the full estimate of its project. Hover a bar for its numbers; click a "
                      "value to apply it.")
                       .arg(xs->size())
                       .arg(duration_text(curve_->elapsed_s)));
}

void TradeoffView::sync_controls() {
  axis_box_->setCurrentIndex(axis_box_->findData(static_cast<int>(axis_)));
  axis2_box_->setCurrentIndex(axis2_box_->findData(axis2_ ? static_cast<int>(*axis2_) : -1));
  values2_edit_->setEnabled(axis2_.has_value());
  if (!axis2_) values2_edit_->clear();
}

void TradeoffView::applyValue(int index) {
  if (!curve_ || index < 0 || static_cast<size_t>(index) >= curve_->points.size()) return;
  const TradeoffValue value = curve_->points[static_cast<size_t>(index)].value;
  auto varied = apply_tradeoff_value(document_->project(), axis_, value);
  if (!varied) {
    status_->setText(qstring(varied.error().message));
    return;
  }
  document_->push(apply_tradeoff_command(document_, *varied, tradeoff_value_text(axis_, value)));
}

void TradeoffView::applyCell(size_t ix, size_t iy) {
  if (!grid_ || ix >= grid_->values_x.size() || iy >= grid_->values_y.size()) return;
  const TradeoffValue& x = grid_->values_x[ix];
  const TradeoffValue& y = grid_->values_y[iy];
  auto varied = apply_tradeoff_pair(document_->project(), grid_->axis_x, x, grid_->axis_y, y);
  if (!varied) {
    status_->setText(qstring(varied.error().message));
    return;
  }
  document_->push(apply_tradeoff_command(
      document_, *varied,
      QStringLiteral("%1, %2").arg(tradeoff_value_text(grid_->axis_x, x), tradeoff_value_text(grid_->axis_y, y))));
}

}  // namespace meshscope::ui
