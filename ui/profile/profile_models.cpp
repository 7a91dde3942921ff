#include "ui/profile/profile_models.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr double kMicro = 1e-6;  // Kineto times are microseconds
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Qt::Alignment kLeft = Qt::AlignLeft | Qt::AlignVCenter;
constexpr Qt::Alignment kRight = Qt::AlignRight | Qt::AlignVCenter;

QString bandwidth_text(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return QStringLiteral("–");
  return QStringLiteral("%1 GB/s").arg(bytes_per_s / 1e9, 0, 'f', 2);
}

QString row_value_text(const TraceCompareRow& row, double value) {
  return row.kind == TraceRowKind::time ? duration_text(value) : bandwidth_text(value);
}

QString op_text(const std::optional<CollectiveOp>& op) {
  return op ? QString::fromUtf8(collective_op_name(*op).data(), static_cast<int>(collective_op_name(*op).size()))
            : QObject::tr("unknown");
}

// Every entry of every rank, ranks in order.
template <typename Entry>
std::vector<ProfileRankRow<Entry>> rank_rows(const KinetoRunAnalysis* run,
                                             const std::vector<Entry> KinetoRankAnalysis::*entries) {
  std::vector<ProfileRankRow<Entry>> rows;
  if (run)
    for (const auto& rank : run->ranks)
      for (const auto& entry : rank.*entries) rows.push_back({&rank, &entry});
  return rows;
}

// ---- Steps ----

using StepRow = ProfileRankRow<KinetoStepBreakdown>;

std::vector<SnapshotColumn<StepRow>> step_columns() {
  using Cell = SnapshotColumn<StepRow>::Cell;
  // Every cell's tooltip is the rank's trace file.
  const Cell origin = [](const StepRow& row, int) { return QString::fromStdString(row.rank->origin); };
  const auto column = [&](const QString& header, Cell display, Cell value, Qt::Alignment alignment = kRight) {
    return SnapshotColumn<StepRow>{header, {}, std::move(display), std::move(value), alignment, origin, {}, {}, {}};
  };
  const auto seconds = [&](const QString& header, double KinetoStepBreakdown::*us) {
    return column(
        header, [us](const StepRow& row, int) { return duration_text(row.entry->*us * kMicro); },
        [us](const StepRow& row, int) { return row.entry->*us * kMicro; });
  };
  return {
      column(
          ProfileStepModel::tr("Rank"), [](const StepRow& row, int) { return QString::number(row.rank->rank); },
          [](const StepRow& row, int) { return static_cast<double>(row.rank->rank); }),
      column(
          ProfileStepModel::tr("Step"), [](const StepRow& row, int) { return QString::fromStdString(row.entry->name); },
          [](const StepRow& row, int) { return static_cast<double>(row.entry->number); }, kLeft),
      seconds(ProfileStepModel::tr("Step time"), &KinetoStepBreakdown::duration_us),
      seconds(ProfileStepModel::tr("Compute"), &KinetoStepBreakdown::compute_us),
      seconds(ProfileStepModel::tr("Communication"), &KinetoStepBreakdown::communication_us),
      seconds(ProfileStepModel::tr("Exposed comm."), &KinetoStepBreakdown::exposed_communication_us),
      seconds(ProfileStepModel::tr("Idle"), &KinetoStepBreakdown::idle_us),
      column(
          ProfileStepModel::tr("GPU events"),
          [](const StepRow& row, int) { return QString::number(row.entry->gpu_events); },
          [](const StepRow& row, int) { return static_cast<double>(row.entry->gpu_events); }),
  };
}

// ---- Collectives ----

using CollectiveRow = ProfileRankRow<KinetoCollectiveSummary>;

std::vector<SnapshotColumn<CollectiveRow>> collective_columns() {
  using Cell = SnapshotColumn<CollectiveRow>::Cell;
  using Model = ProfileCollectiveModel;
  const auto column = [](const QString& header, Cell display, Cell value, Qt::Alignment alignment = kRight,
                         Cell tooltip = {}) {
    return SnapshotColumn<CollectiveRow>{
        header, {}, std::move(display), std::move(value), alignment, std::move(tooltip), {}, {}, {}};
  };
  const auto sized = [](const KinetoCollectiveSummary& c) { return c.count_with_bytes > 0; };
  return {
      column(
          Model::tr("Rank"), [](const CollectiveRow& row, int) { return QString::number(row.rank->rank); },
          [](const CollectiveRow& row, int) { return static_cast<double>(row.rank->rank); }),
      column(
          Model::tr("Collective"),
          [](const CollectiveRow& row, int) {
            return op_text(row.entry->op) + (row.entry->on_cpu ? Model::tr(" (CPU)") : QString());
          },
          {}, kLeft),
      column(
          Model::tr("Group"),
          [](const CollectiveRow& row, int) {
            const KinetoCollectiveSummary& c = *row.entry;
            const QString size = c.group_size > 0 ? QString::number(c.group_size) + (c.group_size_assumed ? "?" : "")
                                                  : QStringLiteral("–");
            return c.process_group.empty() ? size
                                           : Model::tr("pg %1 · %2").arg(QString::fromStdString(c.process_group), size);
          },
          [](const CollectiveRow& row, int) { return static_cast<double>(row.entry->group_size); }, kLeft,
          [](const CollectiveRow& row, int) {
            return row.entry->group_size_assumed ? QVariant(Model::tr("The trace does not say which group ran this "
                                                                      "collective: its size is taken as the world's."))
                                                 : QVariant();
          }),
      column(
          Model::tr("Count"), [](const CollectiveRow& row, int) { return QString::number(row.entry->count); },
          [](const CollectiveRow& row, int) { return static_cast<double>(row.entry->count); }),
      column(
          Model::tr("Bytes"),
          [sized](const CollectiveRow& row, int) {
            return sized(*row.entry) ? binary_bytes_text(row.entry->bytes) : QStringLiteral("–");
          },
          [sized](const CollectiveRow& row, int) { return sized(*row.entry) ? row.entry->bytes : kNaN; }, kRight,
          [sized](const CollectiveRow& row, int) {
            const KinetoCollectiveSummary& c = *row.entry;
            return sized(c) && c.count_with_bytes < c.count
                       ? QVariant(
                             Model::tr("%1 of %2 calls record their message size").arg(c.count_with_bytes).arg(c.count))
                       : QVariant();
          }),
      column(
          Model::tr("Kernel time"),
          [](const CollectiveRow& row, int) { return duration_text(row.entry->time_us * kMicro); },
          [](const CollectiveRow& row, int) { return row.entry->time_us * kMicro; }),
      column(
          Model::tr("algbw"),
          [](const CollectiveRow& row, int) { return bandwidth_text(row.entry->algbw_bytes_per_s); },
          [](const CollectiveRow& row, int) { return row.entry->algbw_bytes_per_s; }),
      column(
          Model::tr("busbw"),
          [](const CollectiveRow& row, int) { return bandwidth_text(row.entry->busbw_bytes_per_s); },
          [](const CollectiveRow& row, int) { return row.entry->busbw_bytes_per_s; }, kRight,
          [](const CollectiveRow&, int) {
            return Model::tr(
                "algbw × bus factor of the op and group size (nccl-tests' busbw); kernel time includes waiting "
                "for the slowest peer");
          }),
  };
}

// ---- Measured vs predicted ----

std::vector<SnapshotColumn<TraceCompareRow>> comparison_columns() {
  using Cell = SnapshotColumn<TraceCompareRow>::Cell;
  using Model = TraceComparisonModel;
  const Cell note = [](const TraceCompareRow& row, int) {
    const QString tip = QString::fromStdString(row.note);
    return tip.isEmpty() ? QVariant() : QVariant(tip);
  };
  const auto fixed_tip = [](const QString& tip) -> Cell { return [tip](const TraceCompareRow&, int) { return tip; }; };
  const auto column = [](const QString& header, Cell display, Cell value, Qt::Alignment alignment, Cell tooltip,
                         Cell foreground = {}) {
    return SnapshotColumn<TraceCompareRow>{
        header, {}, std::move(display), std::move(value), alignment, std::move(tooltip), std::move(foreground), {}, {}};
  };
  return {
      column(
          Model::tr("Per step"), [](const TraceCompareRow& row, int) { return QString::fromStdString(row.quantity); },
          {}, kLeft, note),
      column(
          Model::tr("Measured"),
          [](const TraceCompareRow& row, int) {
            return row.ranks > 0 ? row_value_text(row, row.measured) : QStringLiteral("–");
          },
          [](const TraceCompareRow& row, int) { return row.measured; }, kRight, note),
      column(
          Model::tr("Ranks (min – max)"),
          [](const TraceCompareRow& row, int) {
            return row.ranks > 1 ? QStringLiteral("%1 – %2").arg(row_value_text(row, row.measured_min),
                                                                 row_value_text(row, row.measured_max))
                                 : QString();
          },
          {}, kRight, fixed_tip(Model::tr("smallest and largest rank (each the mean over its ProfilerSteps)"))),
      column(
          Model::tr("Predicted"),
          [](const TraceCompareRow& row, int) {
            return row.predicted ? row_value_text(row, *row.predicted) : QStringLiteral("–");
          },
          [](const TraceCompareRow& row, int) { return row.predicted.value_or(kNaN); }, kRight, note),
      column(
          Model::tr("Error"),
          [](const TraceCompareRow& row, int) {
            const std::optional<double> error = row.error();
            return error ? QStringLiteral("%1%2 %")
                               .arg(*error >= 0 ? "+" : "\u2212")
                               .arg(std::abs(100 * *error), 0, 'f', 1)
                         : QStringLiteral("–");
          },
          [](const TraceCompareRow& row, int) { return row.error().value_or(kNaN); }, kRight,
          fixed_tip(Model::tr("predicted / measured − 1 (positive: the model predicts more)")),
          [](const TraceCompareRow& row, int) {
            const std::optional<double> error = row.error();
            return error && std::abs(*error) > 0.5 ? QVariant(profile_error_colour()) : QVariant();
          }),
      column(
          Model::tr("How"), [](const TraceCompareRow& row, int) { return QString::fromStdString(row.note); }, {},
          kRight, note),
  };
}

}  // namespace

QColor profile_error_colour() {
  return {0xC0, 0x1C, 0x28};
}

ProfileStepModel::ProfileStepModel(QObject* parent) : SnapshotTableModel(ValueRole, step_columns(), parent) {}

void ProfileStepModel::setRun(std::shared_ptr<const KinetoRunAnalysis> run) {
  setRows(rank_rows(run.get(), &KinetoRankAnalysis::steps), [&] { run_ = std::move(run); });
}

ProfileCollectiveModel::ProfileCollectiveModel(QObject* parent)
    : SnapshotTableModel(ValueRole, collective_columns(), parent) {}

void ProfileCollectiveModel::setRun(std::shared_ptr<const KinetoRunAnalysis> run) {
  setRows(rank_rows(run.get(), &KinetoRankAnalysis::collectives), [&] { run_ = std::move(run); });
}

namespace {

// ---- A training log vs predicted ----

QString log_value_text(const LogCompareRow& row, double value) {
  if (row.unit == "s") return duration_text(value);
  if (row.unit == "B") return binary_bytes_text(value);
  if (row.unit == "fraction") return QStringLiteral("%1 %").arg(100 * value, 0, 'f', 1);
  return QStringLiteral("%L1 %2").arg(value, 0, 'f', value >= 100 ? 0 : 1).arg(QString::fromStdString(row.unit));
}

// The range's ends without the unit (it is in Measured and Predicted), times and sizes as usual.
QString log_range_text(const LogCompareRow& row, double value) {
  if (row.unit == "s" || row.unit == "B" || row.unit == "fraction") return log_value_text(row, value);
  return QStringLiteral("%L1").arg(value, 0, 'f', value >= 100 ? 0 : 1);
}

std::vector<SnapshotColumn<LogCompareRow>> log_comparison_columns() {
  using Cell = SnapshotColumn<LogCompareRow>::Cell;
  using Model = LogComparisonModel;
  const Cell note = [](const LogCompareRow& row, int) {
    return row.note.empty() ? QVariant() : QVariant(QString::fromStdString(row.note));
  };
  const auto column = [](const QString& header, Cell display, Cell value, Qt::Alignment alignment, Cell tooltip) {
    return SnapshotColumn<LogCompareRow>{
        header, {}, std::move(display), std::move(value), alignment, std::move(tooltip), {}, {}, {}};
  };
  return {
      column(
          Model::tr("Per step"), [](const LogCompareRow& row, int) { return QString::fromStdString(row.quantity); }, {},
          kLeft, note),
      column(
          Model::tr("Measured"), [](const LogCompareRow& row, int) { return log_value_text(row, row.measured); },
          [](const LogCompareRow& row, int) { return row.measured; }, kRight, note),
      column(
          Model::tr("Min – max (n)"),
          [](const LogCompareRow& row, int) {
            return row.measured_min && row.measured_max
                       ? QStringLiteral("%1 – %2 (%3)")
                             .arg(log_range_text(row, *row.measured_min), log_range_text(row, *row.measured_max))
                             .arg(row.samples)
                       : QString();
          },
          {}, kRight, [](const LogCompareRow&, int) { return Model::tr("after warm-up; median in Measured"); }),
      column(
          Model::tr("Predicted"),
          [](const LogCompareRow& row, int) {
            return row.predicted ? log_value_text(row, *row.predicted) : QStringLiteral("–");
          },
          [](const LogCompareRow& row, int) { return row.predicted.value_or(kNaN); }, kRight, note),
      column(
          Model::tr("Error"),
          [](const LogCompareRow& row, int) {
            const std::optional<double> error = row.error();
            return error ? QStringLiteral("%1%2 %")
                               .arg(*error >= 0 ? "+" : "\u2212")
                               .arg(std::abs(100 * *error), 0, 'f', 1)
                         : QStringLiteral("–");
          },
          [](const LogCompareRow& row, int) { return row.error().value_or(kNaN); }, kRight,
          [](const LogCompareRow&, int) { return Model::tr("predicted / measured − 1"); }),
      column(
          Model::tr("Note"), [](const LogCompareRow& row, int) { return QString::fromStdString(row.note); }, {}, kLeft,
          note),
  };
}

}  // namespace

LogComparisonModel::LogComparisonModel(QObject* parent)
    : SnapshotTableModel(ValueRole, log_comparison_columns(), parent) {}

void LogComparisonModel::setComparison(std::shared_ptr<const LogComparison> comparison) {
  std::shared_ptr<const std::vector<LogCompareRow>> rows;
  if (comparison) rows = std::shared_ptr<const std::vector<LogCompareRow>>(comparison, &comparison->rows);
  setRows(std::move(rows), [&] { comparison_ = std::move(comparison); });
}

TraceComparisonModel::TraceComparisonModel(QObject* parent)
    : SnapshotTableModel(ValueRole, comparison_columns(), parent) {}

void TraceComparisonModel::setComparison(std::shared_ptr<const TraceComparison> comparison) {
  // The rows are the comparison's own (an aliasing pointer: no copy).
  std::shared_ptr<const std::vector<TraceCompareRow>> rows;
  if (comparison) rows = std::shared_ptr<const std::vector<TraceCompareRow>>(comparison, &comparison->rows);
  setRows(std::move(rows), [&] { comparison_ = std::move(comparison); });
}

}  // namespace meshscope::ui
