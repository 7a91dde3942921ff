#include "ui/comm_table_model.hpp"

#include <string_view>
#include <utility>

#include "core/collective_op.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "ui/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;

}  // namespace

CommTableModel::CommTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CommTableModel::setPlan(std::shared_ptr<const CommPlan> plan) {
  beginResetModel();
  plan_ = std::move(plan);
  rows_.clear();
  if (plan_)
    for (const AxisComm& axis : plan_->axes)
      for (const PlannedCollective& collective : axis.collectives) rows_.push_back({&axis, &collective});
  endResetModel();
}

int CommTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CommTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant CommTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const AxisComm& axis = *row.axis;
  const PlannedCollective& collective = *row.collective;
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::ToolTipRole)
    return QObject::tr("%1<br>source: %2")
        .arg(qstring(collective.what).toHtmlEscaped(), qstring(collective.source).toHtmlEscaped());
  if (role == Qt::TextAlignmentRole)
    return column >= kGroup && column != kTier ? QVariant(static_cast<int>(kNumberAlignment)) : QVariant();
  if (role == ValueRole) {
    switch (column) {
      case kGroup:
        return static_cast<double>(axis.group_size);
      case kBytesPerCall:
        return collective.bytes;
      case kCallsPerStep:
        return collective.count_per_step;
      case kBytesPerStep:
        return collective.bytes_per_step();
      case kTimePerStep:
        return collective.time_per_step_s();
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kAxis:
      return qstring(mesh_axis_name(axis.axis)).toUpper();
    case kCollective:
      return qstring(collective.what);
    case kOp:
      return qstring(collective_op_name(collective.op));
    case kGroup:
      return QObject::tr("%1 \u00d7 %2 groups")
          .arg(static_cast<qlonglong>(axis.group_size))
          .arg(static_cast<qlonglong>(axis.groups));
    case kTier:
      // By what it is made of: "xgmi" for an xGMI mesh, where path_tier_name says "nvlink".
      return qstring(collective.estimate.ranks > 1
                         ? tier_name(collective.estimate.tier, collective.estimate.bottleneck_kind)
                         : path_tier_name(axis.tier));
    case kBytesPerCall:
      return binary_bytes_text(collective.bytes);
    case kCallsPerStep:
      return QString::number(collective.count_per_step, 'g', 6);
    case kBytesPerStep:
      return binary_bytes_text(collective.bytes_per_step());
    case kTimePerStep:
      return duration_text(collective.time_per_step_s());
  }
  return {};
}

QVariant CommTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kHeaders[kColumnCount] = {
      QT_TR_NOOP("Axis"),       QT_TR_NOOP("Collective"), QT_TR_NOOP("Op"),
      QT_TR_NOOP("Group"),      QT_TR_NOOP("Tier"),       QT_TR_NOOP("Per call"),
      QT_TR_NOOP("Calls/step"), QT_TR_NOOP("Per step"),   QT_TR_NOOP("Time/step")};
  if (section < 0 || section >= kColumnCount) return {};
  return tr(kHeaders[section]);
}

}  // namespace meshscope::ui
