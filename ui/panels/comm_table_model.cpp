#include "ui/panels/comm_table_model.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "core/comm/collective_op.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;
using Row = CommTableRow;

QVariant row_tooltip(const Row& row, int) {
  return QObject::tr("%1<br>source: %2")
      .arg(qstring(row.collective->what).toHtmlEscaped(), qstring(row.collective->source).toHtmlEscaped());
}

std::vector<SnapshotColumn<Row>> comm_columns() {
  // Every cell's tooltip is its row's: what the collective is and the formula's source.
  const auto column = [](const char* header, SnapshotColumn<Row>::Cell display, SnapshotColumn<Row>::Cell value = {},
                         Qt::Alignment alignment = {}) {
    return SnapshotColumn<Row>{
        CommTableModel::tr(header), {}, std::move(display), std::move(value), alignment, row_tooltip, {}, {}, {}};
  };
  return {
      column(QT_TR_NOOP("Axis"), [](const Row& r, int) { return qstring(mesh_axis_name(r.axis->axis)).toUpper(); }),
      column(QT_TR_NOOP("Collective"), [](const Row& r, int) { return qstring(r.collective->what); }),
      column(QT_TR_NOOP("Op"), [](const Row& r, int) { return qstring(collective_op_name(r.collective->op)); }),
      column(
          QT_TR_NOOP("Group"),
          [](const Row& r, int) {
            return QObject::tr("%1 \u00d7 %2 groups")
                .arg(static_cast<qlonglong>(r.axis->group_size))
                .arg(static_cast<qlonglong>(r.axis->groups));
          },
          [](const Row& r, int) { return static_cast<double>(r.axis->group_size); }, kNumberAlignment),
      column(QT_TR_NOOP("Tier"),
             [](const Row& r, int) {
               // By what it is made of: "xgmi" for an xGMI mesh, where path_tier_name says "nvlink".
               const PlannedCollective& c = *r.collective;
               return qstring(c.estimate.ranks > 1 ? tier_name(c.estimate.tier, c.estimate.bottleneck_kind)
                                                   : path_tier_name(r.axis->tier));
             }),
      column(
          QT_TR_NOOP("Per call"), [](const Row& r, int) { return binary_bytes_text(r.collective->bytes); },
          [](const Row& r, int) { return r.collective->bytes; }, kNumberAlignment),
      column(
          QT_TR_NOOP("Calls/step"),
          [](const Row& r, int) { return QString::number(r.collective->count_per_step, 'g', 6); },
          [](const Row& r, int) { return r.collective->count_per_step; }, kNumberAlignment),
      column(
          QT_TR_NOOP("Per step"), [](const Row& r, int) { return binary_bytes_text(r.collective->bytes_per_step()); },
          [](const Row& r, int) { return r.collective->bytes_per_step(); }, kNumberAlignment),
      column(
          QT_TR_NOOP("Time/step"), [](const Row& r, int) { return duration_text(r.collective->time_per_step_s()); },
          [](const Row& r, int) { return r.collective->time_per_step_s(); }, kNumberAlignment),
  };
}

}  // namespace

CommTableModel::CommTableModel(QObject* parent) : SnapshotTableModel(ValueRole, comm_columns(), parent) {}

void CommTableModel::setPlan(std::shared_ptr<const CommPlan> plan) {
  std::vector<Row> rows;
  if (plan)
    for (const AxisComm& axis : plan->axes)
      for (const PlannedCollective& collective : axis.collectives) rows.push_back({&axis, &collective});
  setRows(std::move(rows), [&] { plan_ = std::move(plan); });
}

}  // namespace meshscope::ui
