#include "ui/ranked/layout_compare.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/session/compare_layouts.hpp"
#include "core/topology/placement.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"

namespace meshscope::ui {

namespace {

// Okabe–Ito bluish green and vermillion: an improvement and a regression of B over A.
const QColor kBetterColour(0x00, 0x9e, 0x73);
const QColor kWorseColour(0xd5, 0x5e, 0x00);
constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;

QString value_text(double value, LayoutCompareModel::Unit unit) {
  switch (unit) {
    case LayoutCompareModel::Unit::seconds:
      return duration_text(value);
    case LayoutCompareModel::Unit::bytes:
      return binary_bytes_text(value);
    case LayoutCompareModel::Unit::fraction:
      return percent_text(value);
    case LayoutCompareModel::Unit::tokens_per_s:
      return QObject::tr("%1 tok/s").arg(QLocale(QLocale::English).toString(value, 'f', 0));
    case LayoutCompareModel::Unit::count:
      return QLocale(QLocale::English).toString(value, 'f', 0);
  }
  return {};
}

// A signed difference: "+1.20 s", "−3.5 GiB", "+2.1 pp" (fractions differ in percentage points).
QString delta_text(double delta, LayoutCompareModel::Unit unit) {
  if (delta == 0) return QStringLiteral("0");
  if (unit == LayoutCompareModel::Unit::fraction && std::abs(delta) >= 1)  // "+2375 %", not "+2375.0 %"
    return (delta > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) +
           QStringLiteral("%1 pp").arg(100 * std::abs(delta), 0, 'f', 0);
  const QString sign = delta > 0 ? QStringLiteral("+") : QStringLiteral("\u2212");
  const double magnitude = std::abs(delta);
  if (unit == LayoutCompareModel::Unit::fraction) return sign + QStringLiteral("%1 pp").arg(100 * magnitude, 0, 'f', 1);
  return sign + value_text(magnitude, unit);
}

const RankMemory* worst_rank(const MemoryBudget& memory) {
  const auto it = std::max_element(memory.ranks.begin(), memory.ranks.end(),
                                   [](const auto& x, const auto& y) { return x.total_bytes() < y.total_bytes(); });
  return it == memory.ranks.end() ? nullptr : &*it;
}

const AxisComm* find_axis(const CommPlan& plan, MeshAxis axis) {
  for (const AxisComm& entry : plan.axes)
    if (entry.axis == axis) return &entry;
  return nullptr;
}

using Row = LayoutCompareRow;
using Cell = SnapshotColumn<Row>::Cell;

// Differences below a millionth of the values are rounding, not a change: shown as 0.
bool same(const Row& row) {
  return std::abs(row.b - row.a) <= 1e-6 * std::max(std::abs(row.a), std::abs(row.b));
}

double shown_delta(const Row& row) {
  return same(row) ? 0.0 : row.b - row.a;
}

QVariant delta_colour(const Row& row, int) {
  const double delta = shown_delta(row);
  if (row.better == Row::Better::neither || delta == 0) return {};
  const bool improved = row.better == Row::Better::lower ? delta < 0 : delta > 0;
  return QBrush(improved ? kBetterColour : kWorseColour);
}

QVariant row_tooltip(const Row& row, int) {
  return row.tooltip.isEmpty() ? QVariant() : QVariant(row.tooltip);
}

// The header tooltips of A and B are the sides' labels.
std::vector<SnapshotColumn<Row>> compare_columns(const QString& a_label, const QString& b_label) {
  const auto number = [](const QString& header, const QString& header_tooltip, Cell display, Cell value,
                         Cell foreground = {}) {
    return SnapshotColumn<Row>{header,
                               header_tooltip,
                               std::move(display),
                               std::move(value),
                               kNumberAlignment,
                               row_tooltip,
                               std::move(foreground),
                               {},
                               {}};
  };
  return {
      SnapshotColumn<Row>{LayoutCompareModel::tr("Quantity"),
                          {},
                          [](const Row& row, int) { return row.quantity; },
                          [](const Row& row, int) { return row.heading ? QVariant() : QVariant(row.quantity); },
                          {},
                          row_tooltip,
                          {},
                          {},
                          [](const Row& row, int) {
                            if (!row.heading) return QVariant();
                            QFont font;
                            font.setBold(true);
                            return QVariant(font);
                          }},
      number(
          QStringLiteral("A"), a_label, [](const Row& row, int) { return value_text(row.a, row.unit); },
          [](const Row& row, int) { return row.a; }),
      number(
          QStringLiteral("B"), b_label, [](const Row& row, int) { return value_text(row.b, row.unit); },
          [](const Row& row, int) { return row.b; }),
      number(
          LayoutCompareModel::tr("\u0394 (B \u2212 A)"), {},
          [](const Row& row, int) { return delta_text(shown_delta(row), row.unit); },
          [](const Row& row, int) { return row.b - row.a; }, delta_colour),
      number(
          LayoutCompareModel::tr("\u0394 %"), {},
          [](const Row& row, int) -> QVariant {
            if (row.a == 0) return QStringLiteral("\u2014");
            return delta_text(same(row) ? 0.0 : row.b / row.a - 1, Row::Unit::fraction)
                .replace(QStringLiteral(" pp"), QStringLiteral(" %"));
          },
          [](const Row& row, int) { return row.a != 0 ? QVariant(row.b / row.a - 1) : QVariant(); }, delta_colour),
  };
}

}  // namespace

LayoutCompareModel::LayoutCompareModel(QObject* parent)
    : SnapshotTableModel(SortRole, compare_columns({}, {}), parent) {
  // A heading's row is its title: the other cells are empty (the widget spans them).
  setBlank([](const Row& row, int column) { return row.heading && column != kQuantity; });
}

void LayoutCompareModel::setSides(std::shared_ptr<const CompareSide> a, std::shared_ptr<const CompareSide> b) {
  std::vector<Row> rows;
  if (a && b) {
    const StepEstimate& ea = a->estimate;
    const StepEstimate& eb = b->estimate;
    const auto heading = [&](const QString& title, const QString& tooltip = {}) {
      rows.push_back({title, 0, 0, Unit::count, Better::neither, true, tooltip});
    };
    const auto add = [&](const QString& quantity, double va, double vb, Unit unit, Better better,
                         bool skip_if_zero = false, const QString& tooltip = {}) {
      if (skip_if_zero && va == 0 && vb == 0) return;
      rows.push_back({quantity, va, vb, unit, better, false, tooltip});
    };

    heading(tr("Step"));
    add(tr("Step time"), ea.step_time_s, eb.step_time_s, Unit::seconds, Better::lower);
    add(tr("Tokens/s per GPU"), ea.tokens_per_s_per_gpu, eb.tokens_per_s_per_gpu, Unit::tokens_per_s, Better::higher);
    add(tr("MFU"), ea.mfu, eb.mfu, Unit::fraction, Better::higher);
    add(tr("Bubble fraction"), ea.bubble_fraction, eb.bubble_fraction, Unit::fraction, Better::lower, false,
        tr("1 \u2212 \u03a3 busy / (p \u00b7 makespan), read off the simulated schedule"));
    add(tr("Micro-batches"), static_cast<double>(ea.micro_batches), static_cast<double>(eb.micro_batches), Unit::count,
        Better::neither);

    heading(tr("Step-time breakdown (busiest stage)"));
    const StepBreakdown& ba = ea.breakdown;
    const StepBreakdown& bb = eb.breakdown;
    add(tr("Forward compute"), ba.forward_s, bb.forward_s, Unit::seconds, Better::lower, true);
    add(tr("Backward compute"), ba.backward_s, bb.backward_s, Unit::seconds, Better::lower, true);
    add(tr("Recompute"), ba.recompute_s, bb.recompute_s, Unit::seconds, Better::lower, true);
    add(tr("TP exposed"), ba.tp_exposed_s, bb.tp_exposed_s, Unit::seconds, Better::lower, true);
    add(tr("CP exposed"), ba.cp_exposed_s, bb.cp_exposed_s, Unit::seconds, Better::lower, true);
    add(tr("EP exposed"), ba.ep_exposed_s, bb.ep_exposed_s, Unit::seconds, Better::lower, true);
    add(tr("PP send/recv"), ba.pp_p2p_s, bb.pp_p2p_s, Unit::seconds, Better::lower, true);
    add(tr("Pipeline bubble"), ba.bubble_s, bb.bubble_s, Unit::seconds, Better::lower, true);
    add(tr("DP exposed"), ba.dp_exposed_s, bb.dp_exposed_s, Unit::seconds, Better::lower, true);
    add(tr("Optimizer step"), ba.optimizer_s, bb.optimizer_s, Unit::seconds, Better::lower, true);

    const RankMemory* ma = worst_rank(a->memory);
    const RankMemory* mb = worst_rank(b->memory);
    heading(tr("Memory of the worst rank"),
            tr("A: %1<br>B: %2")
                .arg(ma != nullptr ? rank_label(*ma).toHtmlEscaped() : QStringLiteral("\u2014"),
                     mb != nullptr ? rank_label(*mb).toHtmlEscaped() : QStringLiteral("\u2014")));
    const double peak_a = ma != nullptr ? ma->total_bytes() : 0;
    const double peak_b = mb != nullptr ? mb->total_bytes() : 0;
    add(tr("Peak"), peak_a, peak_b, Unit::bytes, Better::lower);
    add(tr("Headroom"), a->memory.usable_bytes - peak_a, b->memory.usable_bytes - peak_b, Unit::bytes, Better::higher);
    for (int c = 0; c < kMemoryCategoryCount; ++c) {
      const auto category = static_cast<MemoryCategory>(c);
      add(category_label(category), ma != nullptr ? ma->bytes(category) : 0, mb != nullptr ? mb->bytes(category) : 0,
          Unit::bytes, Better::lower, true);
    }

    heading(tr("Communication per step"), tr("Every collective of the axis per optimizer step, per rank; time with "
                                             "all groups of the axis running at once"));
    std::set<MeshAxis> axes;
    for (const AxisComm& axis : ea.comm.axes) axes.insert(axis.axis);
    for (const AxisComm& axis : eb.comm.axes) axes.insert(axis.axis);
    for (const MeshAxis axis : axes) {
      const AxisComm* ca = find_axis(ea.comm, axis);
      const AxisComm* cb = find_axis(eb.comm, axis);
      const std::string_view name_view = mesh_axis_name(axis);
      const QString name = QString::fromUtf8(name_view.data(), static_cast<qsizetype>(name_view.size())).toUpper();
      const auto group = [](const AxisComm* entry) {
        return entry != nullptr ? QString::number(static_cast<qlonglong>(entry->group_size)) : QStringLiteral("\u2014");
      };
      const QString tip = tr("Group size A: %1, B: %2").arg(group(ca), group(cb));
      add(tr("%1 bytes").arg(name), ca != nullptr ? ca->bytes_per_step : 0, cb != nullptr ? cb->bytes_per_step : 0,
          Unit::bytes, Better::lower, true, tip);
      add(tr("%1 time").arg(name), ca != nullptr ? ca->time_per_step_s : 0, cb != nullptr ? cb->time_per_step_s : 0,
          Unit::seconds, Better::lower, true, tip);
    }
  }
  std::vector<SnapshotColumn<Row>> columns = compare_columns(a ? a->label : QString(), b ? b->label : QString());
  setRowsAndColumns(std::move(rows), std::move(columns), [&] {
    a_ = std::move(a);
    b_ = std::move(b);
  });
}

int LayoutCompareModel::rowOf(const QString& quantity) const {
  for (size_t i = 0; i < rows().size(); ++i)
    if (!rows()[i].heading && rows()[i].quantity == quantity) return static_cast<int>(i);
  return -1;
}

LayoutCompareWidget::LayoutCompareWidget(Evaluator* evaluator, QWidget* parent)
    : QWidget(parent), model_(new LayoutCompareModel(this)), title_(new QLabel(this)), view_(new QTableView(this)) {
  if (evaluator != nullptr)
    connect(evaluator, &Evaluator::evaluated, this,
            [this](const std::shared_ptr<const Evaluation>& evaluation) { showEvaluation(*evaluation); });
  title_->setTextFormat(Qt::RichText);
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  view_->setModel(model_);
  style_table(view_, {.alternating_rows = false, .row_headers = false, .select_rows = true, .highlight_header = false});
  view_->horizontalHeader()->setSectionResizeMode(LayoutCompareModel::kQuantity, QHeaderView::Stretch);
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    view_->clearSpans();
    for (int row = 0; row < model_->rowCount(); ++row)
      if (!model_->index(row, LayoutCompareModel::kA).data().isValid())
        view_->setSpan(row, 0, 1, LayoutCompareModel::kColumnCount);
  });
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(view_, 1);
  clear();
}

void LayoutCompareWidget::showEvaluation(const Evaluation& evaluation) {
  const LayoutComparison* comparison = evaluation.pinned_comparison.get();
  if (comparison == nullptr || comparison->sides.size() < 2) {
    if (!shown_pair_.isEmpty()) clear();
    shown_pair_.clear();
    const QString error = comparison ? QString::fromStdString(comparison->error) : QString();
    if (!error.isEmpty() && error != shown_error_) emit comparisonFailed(error);
    shown_error_ = error;
    return;
  }
  shown_error_.clear();
  const auto side = [](const ComparedLayout& compared) {
    return CompareSide{ranked_layout_text(compared.ranked), compared.estimate, compared.memory};
  };
  CompareSide a = side(comparison->sides[0]);
  CompareSide b = side(comparison->sides[1]);
  const QString pair = a.label + QLatin1Char('\n') + b.label;
  setComparison(std::move(a), std::move(b));
  if (pair != shown_pair_) {
    shown_pair_ = pair;
    emit comparisonShown();
  }
}

void LayoutCompareWidget::setComparison(CompareSide a, CompareSide b) {
  title_->setText(
      tr("<b>A</b>: %1<br><b>B</b>: %2<br>\u0394 = B \u2212 A: <span style=\"color:%3\">better</span> "
         "or <span style=\"color:%4\">worse</span> for B")
          .arg(a.label.toHtmlEscaped(), b.label.toHtmlEscaped(), kBetterColour.name(), kWorseColour.name()));
  model_->setSides(std::make_shared<const CompareSide>(std::move(a)),
                   std::make_shared<const CompareSide>(std::move(b)));
}

void LayoutCompareWidget::clear() {
  title_->setText(tr("Pin two layouts in the ranked layouts view to compare them."));
  model_->setSides(nullptr, nullptr);
}

}  // namespace meshscope::ui
