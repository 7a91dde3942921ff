#include "ui/ranked_layouts_model.hpp"

#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "ui/formatting.hpp"

namespace meshscope::ui {

namespace {

constexpr Qt::Alignment kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;
const QString kSeparator = QStringLiteral(" \u00b7 ");

QString number(int64_t value) {
  return QString::number(static_cast<qlonglong>(value));
}

// "+0.21 s (+1.7 %)": a signed difference and its share of the reference.
QString signed_duration(double seconds) {
  return (seconds >= 0 ? QStringLiteral("+") : QString()) + duration_text(seconds);
}

QString signed_percent(double fraction) {
  return QStringLiteral("%1%2 %").arg(fraction >= 0 ? QStringLiteral("+") : QString()).arg(100 * fraction, 0, 'f', 1);
}

QString tokens_per_s_text(double tokens_per_s) {
  return QObject::tr("%1 tok/s").arg(QLocale(QLocale::English).toString(tokens_per_s, 'f', 0));
}

// The knobs after the mesh: "ZeRO-1 · mb 1 · selective · 1F1B".
QString knobs_text(const Layout& layout, int zero_stage, RecomputeMode recompute, PipelineSchedule schedule) {
  QStringList parts;
  parts << QStringLiteral("ZeRO-%1").arg(zero_stage);
  parts << QStringLiteral("mb %1").arg(number(layout.micro_batch));
  parts << (recompute == RecomputeMode::none ? QObject::tr("no recompute") : qstring(recompute_name(recompute)));
  // Interleaving already shows as "(v N)" after PP: "interleaved" alone is enough.
  if (layout.pp > 1)
    parts << (schedule == PipelineSchedule::interleaved ? QObject::tr("interleaved")
                                                        : pipeline_schedule_label(schedule));
  return parts.join(kSeparator);
}

QString instance_text(const ServingLayout& layout) {
  QStringList axes;
  axes << QStringLiteral("TP %1").arg(number(layout.tp));
  if (layout.pp > 1) axes << QStringLiteral("PP %1").arg(number(layout.pp));
  if (layout.dp > 1) axes << QStringLiteral("DP %1").arg(number(layout.dp));
  if (layout.ep > 1) axes << QStringLiteral("EP %1").arg(number(layout.ep));
  if (layout.replicas == 1) return axes.join(kSeparator);
  return QStringLiteral("%1 \u00d7 %2").arg(number(layout.replicas), axes.join(kSeparator));
}

QVariant alignment(bool numeric) {
  return numeric ? QVariant(static_cast<int>(kNumberAlignment)) : QVariant();
}

}  // namespace

QString pipeline_schedule_label(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::gpipe:
      return QStringLiteral("GPipe");
    case PipelineSchedule::one_f_one_b:
      return QStringLiteral("1F1B");
    case PipelineSchedule::interleaved:
      return QObject::tr("interleaved 1F1B");
    case PipelineSchedule::zb_h1:
      return QStringLiteral("ZB-H1");
    case PipelineSchedule::zb_h2:
      return QStringLiteral("ZB-H2");
    case PipelineSchedule::dualpipe:
      return QStringLiteral("DualPipe");
  }
  return QStringLiteral("?");
}

QString ranked_layout_text(const RankedLayout& ranked) {
  QString text = layout_summary(ranked.layout) + kSeparator +
                 knobs_text(ranked.layout, ranked.zero_stage, ranked.recompute, ranked.schedule);
  if (ranked.order != AxisOrder::megatron) text += kSeparator + qstring(axis_order_name(ranked.order));
  if (ranked.tp_comm_overlap) text += kSeparator + QObject::tr("TP-overlap");  // Megatron --tp-comm-overlap
  return text;
}

QString rejected_layout_text(const RejectedLayout& rejected) {
  switch (rejected.scope) {
    case RejectedScope::mesh:
      return layout_summary(rejected.layout);
    case RejectedScope::micro_batch:
      return layout_summary(rejected.layout) + kSeparator +
             QStringLiteral("mb %1").arg(number(rejected.layout.micro_batch));
    case RejectedScope::candidate:
      return layout_summary(rejected.layout) + kSeparator +
             knobs_text(rejected.layout, rejected.zero_stage, rejected.recompute, rejected.schedule);
  }
  return layout_summary(rejected.layout);
}

QString serving_layout_text(const RankedServing& ranked) {
  if (!ranked.disaggregated) return instance_text(ranked.layout);
  return QObject::tr("prefill %1 \u2192 decode %2")
      .arg(instance_text(ranked.prefill_layout), instance_text(ranked.layout));
}

QString percent_text(double fraction) {
  return QStringLiteral("%1 %").arg(100 * fraction, 0, 'f', 1);
}

QString count_text(double count) {
  return QLocale(QLocale::English).toString(count, 'f', 0);
}

QString rejected_totals_text(const std::map<std::string, int64_t>& rejected) {
  std::vector<std::pair<std::string, int64_t>> sorted(rejected.begin(), rejected.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  QStringList parts;
  for (const auto& [reason, count] : sorted)
    parts << QStringLiteral("%1: %2").arg(QString::fromStdString(reason), count_text(static_cast<double>(count)));
  return parts.join(kSeparator);
}

// ---- RankedLayoutsModel -------------------------------------------------------------------------

RankedLayoutsModel::RankedLayoutsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankedLayoutsModel::setResult(std::shared_ptr<const SearchResult> result, RankObjective objective) {
  beginResetModel();
  result_ = std::move(result);
  objective_ = objective;
  pinned_rows_.clear();
  endResetModel();
}

void RankedLayoutsModel::setPinnedRows(std::vector<int> rows) {
  pinned_rows_ = std::move(rows);
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1), {Qt::DisplayRole});
}

const RankedLayout* RankedLayoutsModel::layoutAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(result_->layouts.size())) return nullptr;
  return &result_->layouts[static_cast<size_t>(row)];
}

int RankedLayoutsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->layouts.size());
}

int RankedLayoutsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RankedLayoutsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RankedLayout& r = *layoutAt(index.row());
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::ToolTipRole) return rowToolTip(index.row());
  if (role == Qt::TextAlignmentRole) return alignment(column != kLayout);
  const auto pin = std::find(pinned_rows_.begin(), pinned_rows_.end(), index.row());
  if (role == SortRole) {
    switch (column) {
      case kRank:
        return static_cast<double>(index.row() + 1);
      case kLayout:
        return ranked_layout_text(r);
      case kStepTime:
        return r.step_time_s;
      case kTokensPerGpu:
        return r.tokens_per_s_per_gpu;
      case kMfu:
        return r.mfu;
      case kPeakMemory:
        return r.peak_memory_bytes;
      case kHeadroom:
        return r.headroom_bytes;
      case kBubble:
        return r.bubble_fraction;
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kRank: {
      // A star marks layouts re-scored by the full event simulation (SearchOptions::refine); a
      // letter the pinned ones, as the comparison labels them.
      QString rank = QString::number(index.row() + 1);
      if (r.refined) rank += u'*';
      if (pin != pinned_rows_.end())
        rank = QStringLiteral("%1 \u00b7 %2").arg(QChar(u'A' + static_cast<int>(pin - pinned_rows_.begin())), rank);
      return rank;
    }
    case kLayout:
      return ranked_layout_text(r);
    case kStepTime:
      return duration_text(r.step_time_s);
    case kTokensPerGpu:
      return count_text(r.tokens_per_s_per_gpu);  // the header carries the unit
    case kMfu:
      return percent_text(r.mfu);
    case kPeakMemory:
      return binary_bytes_text(r.peak_memory_bytes);
    case kHeadroom:
      return binary_bytes_text(r.headroom_bytes);
    case kBubble:
      return percent_text(r.bubble_fraction);
  }
  return {};
}

QString RankedLayoutsModel::rowToolTip(int row) const {
  const RankedLayout& r = *layoutAt(row);
  const RankedLayout& best = result_->layouts.front();
  const QString objective = qstring(rank_objective_name(objective_));
  QStringList lines;
  lines << QStringLiteral("<b>%1</b>").arg(ranked_layout_text(r).toHtmlEscaped());
  if (row == 0) {
    lines
        << tr("#1 by %1: the best of %2 valid layouts").arg(objective, count_text(static_cast<double>(result_->valid)));
    if (result_->layouts.size() > 1) {
      const RankedLayout& next = result_->layouts[1];
      lines << tr("#2 takes %1 longer per step (%2)")
                   .arg(signed_duration(next.step_time_s - r.step_time_s),
                        signed_percent(next.step_time_s / r.step_time_s - 1));
    }
  } else {
    switch (objective_) {
      case RankObjective::throughput:
        lines << tr("#%1 by throughput: step time %2, %3 (%4) behind #1 (%5)")
                     .arg(row + 1)
                     .arg(duration_text(r.step_time_s), signed_duration(r.step_time_s - best.step_time_s),
                          signed_percent(r.step_time_s / best.step_time_s - 1), duration_text(best.step_time_s));
        break;
      case RankObjective::memory_headroom:
        lines << tr("#%1 by memory headroom: %2, %3 less than #1 (%4)")
                     .arg(row + 1)
                     .arg(binary_bytes_text(r.headroom_bytes),
                          binary_bytes_text(best.headroom_bytes - r.headroom_bytes),
                          binary_bytes_text(best.headroom_bytes));
        break;
      case RankObjective::cost_per_token:
        lines << tr("#%1 by cost per token: %2 per million tokens, %3 more than #1")
                     .arg(row + 1)
                     .arg(QString::number(r.cost_per_million_tokens, 'g', 4),
                          signed_percent(r.cost_per_million_tokens / best.cost_per_million_tokens - 1));
        break;
    }
  }
  const QString vs_best = row == 0 ? QString() : QStringLiteral(" (#1: %1)");
  const auto compare = [&](const QString& line, const QString& best_text) {
    lines << (row == 0 ? line : line + vs_best.arg(best_text));
  };
  compare(tr("Pipeline bubble %1").arg(percent_text(r.bubble_fraction)), percent_text(best.bubble_fraction));
  compare(tr("MFU %1").arg(percent_text(r.mfu)), percent_text(best.mfu));
  compare(tr("Memory headroom %1 of the GPU (peak %2)")
              .arg(binary_bytes_text(r.headroom_bytes), binary_bytes_text(r.peak_memory_bytes)),
          binary_bytes_text(best.headroom_bytes));
  lines << (r.refined ? tr("Scored by the full event simulation")
                      : tr("Scored by the fast closed-form model (no link sharing between groups)"));
  return lines.join(QStringLiteral("<br>"));
}

QVariant RankedLayoutsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
    switch (section) {
      case kRank:
        return tr("Rank by the search's objective; * re-scored by the full event simulation");
      case kStepTime:
        return tr("Predicted time of one optimizer step");
      case kTokensPerGpu:
        return tr("Training tokens per second per GPU");
      case kMfu:
        return tr("Model FLOPs utilisation: model FLOPs (no recompute) per second over the dense peak");
      case kPeakMemory:
        return tr("Predicted peak memory of the worst rank");
      case kHeadroom:
        return tr("GPU memory left on the worst rank");
      case kBubble:
        return tr("Pipeline bubble: 1 \u2212 busy / (stages \u00b7 makespan)");
      default:
        return {};
    }
  }
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kHeaders[kColumnCount] = {QT_TR_NOOP("#"),         QT_TR_NOOP("Layout"), QT_TR_NOOP("Step"),
                                                     QT_TR_NOOP("Tok/s/GPU"), QT_TR_NOOP("MFU"),    QT_TR_NOOP("Peak"),
                                                     QT_TR_NOOP("Headroom"),  QT_TR_NOOP("Bubble")};
  if (section < 0 || section >= kColumnCount) return {};
  return tr(kHeaders[section]);
}

// ---- RejectedLayoutsModel -----------------------------------------------------------------------

RejectedLayoutsModel::RejectedLayoutsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RejectedLayoutsModel::setResult(std::shared_ptr<const SearchResult> result) {
  beginResetModel();
  rows_.clear();
  totals_.clear();
  if (result) {
    totals_ = result->rejected;
    for (const RejectedLayout& example : result->rejected_examples) {
      const auto count = result->rejected.find(example.reason);
      rows_.push_back({rejected_layout_text(example), QString::fromStdString(example.reason), example.overflow_bytes,
                       example.peak_memory_bytes, count == result->rejected.end() ? 0 : count->second, false});
    }
  }
  endResetModel();
}

void RejectedLayoutsModel::setServingResult(std::shared_ptr<const ServingRankResult> result) {
  beginResetModel();
  rows_.clear();
  totals_.clear();
  if (result) {
    totals_ = result->rejected;
    for (const auto& [reason, count] : result->rejected)
      rows_.push_back({tr("%1 layouts").arg(count_text(static_cast<double>(count))), QString::fromStdString(reason), 0,
                       0, count, true});
  }
  endResetModel();
}

int64_t RejectedLayoutsModel::rejectedTotal() const {
  int64_t total = 0;
  for (const auto& [reason, count] : totals_) total += count;
  return total;
}

int RejectedLayoutsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RejectedLayoutsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RejectedLayoutsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::TextAlignmentRole) return alignment(column == kOverflow);
  if (role == Qt::ToolTipRole) {
    const QString count = count_text(static_cast<double>(row.reason_count));
    QString tip = row.totals_only ? tr("%1 serving layouts rejected: %2").arg(count, row.reason.toHtmlEscaped())
                                  : tr("%1 candidates rejected for this reason; this is one example").arg(count);
    if (row.overflow_bytes > 0)
      tip += tr("<br>Predicted peak %1 on the worst rank, %2 over the GPU's capacity")
                 .arg(binary_bytes_text(row.peak_memory_bytes), binary_bytes_text(row.overflow_bytes));
    return tip;
  }
  if (role == SortRole) {
    switch (column) {
      case kLayout:
        return row.totals_only ? QVariant(static_cast<double>(row.reason_count)) : QVariant(row.layout);
      case kReason:
        return row.reason;
      case kOverflow:
        return row.overflow_bytes;
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kLayout:
      return row.layout;
    case kReason:
      return row.reason;
    case kOverflow:
      return row.overflow_bytes > 0 ? binary_bytes_text(row.overflow_bytes) : QString();
  }
  return {};
}

QVariant RejectedLayoutsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kHeaders[kColumnCount] = {QT_TR_NOOP("Layout"), QT_TR_NOOP("Reason"),
                                                     QT_TR_NOOP("Over capacity by")};
  if (section < 0 || section >= kColumnCount) return {};
  return tr(kHeaders[section]);
}

// ---- ServingLayoutsModel ------------------------------------------------------------------------

ServingLayoutsModel::ServingLayoutsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ServingLayoutsModel::setResult(std::shared_ptr<const ServingRankResult> result, ServingTarget target) {
  beginResetModel();
  result_ = std::move(result);
  target_ = target;
  endResetModel();
}

const RankedServing* ServingLayoutsModel::layoutAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(result_->layouts.size())) return nullptr;
  return &result_->layouts[static_cast<size_t>(row)];
}

int ServingLayoutsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->layouts.size());
}

int ServingLayoutsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ServingLayoutsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RankedServing& r = *layoutAt(index.row());
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::ToolTipRole) return rowToolTip(index.row());
  if (role == Qt::TextAlignmentRole) return alignment(column != kLayout && column != kBinding);
  if (role == SortRole) {
    switch (column) {
      case kRank:
        return static_cast<double>(index.row() + 1);
      case kLayout:
        return serving_layout_text(r);
      case kGpus:
        return static_cast<double>(r.gpus_used);
      case kConcurrency:
        return static_cast<double>(r.concurrency);
      case kTokensPerGpu:
        return r.output_tokens_per_s_per_gpu;
      case kTokens:
        return r.output_tokens_per_s;
      case kTtft:
        return r.ttft_s;
      case kItl:
        return r.itl_s;
      case kBinding:
        return qstring(serving_binding_name(r.binding));
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kRank:
      return QString::number(index.row() + 1);
    case kLayout:
      return serving_layout_text(r);
    case kGpus:
      return number(r.gpus_used);
    case kConcurrency:
      return number(r.concurrency);
    case kTokensPerGpu:
      return tokens_per_s_text(r.output_tokens_per_s_per_gpu);
    case kTokens:
      return tokens_per_s_text(r.output_tokens_per_s);
    case kTtft:
      return duration_text(r.ttft_s);
    case kItl:
      return duration_text(r.itl_s);
    case kBinding:
      return r.bound_by.empty()
                 ? qstring(serving_binding_name(r.binding))
                 : QStringLiteral("%1 (%2)").arg(qstring(serving_binding_name(r.binding)), qstring(r.bound_by));
  }
  return {};
}

QString ServingLayoutsModel::rowToolTip(int row) const {
  const RankedServing& r = *layoutAt(row);
  const RankedServing& best = result_->layouts.front();
  QStringList lines;
  lines << QStringLiteral("<b>%1</b>").arg(serving_layout_text(r).toHtmlEscaped());
  if (row == 0)
    lines << tr("#1 by output tokens/s per GPU among %1 layouts that meet the target")
                 .arg(count_text(static_cast<double>(result_->valid)));
  else
    lines << tr("#%1 by output tokens/s per GPU: %2, %3 vs #1 (%4)")
                 .arg(row + 1)
                 .arg(tokens_per_s_text(r.output_tokens_per_s_per_gpu),
                      signed_percent(r.output_tokens_per_s_per_gpu / best.output_tokens_per_s_per_gpu - 1),
                      tokens_per_s_text(best.output_tokens_per_s_per_gpu));
  QString ttft = tr("TTFT %1").arg(duration_text(r.ttft_s));
  if (std::isfinite(target_.max_ttft_s)) ttft += tr(" (target ≤ %1)").arg(duration_text(target_.max_ttft_s));
  QString itl = tr("ITL %1").arg(duration_text(r.itl_s));
  if (std::isfinite(target_.max_itl_s)) itl += tr(" (target ≤ %1)").arg(duration_text(target_.max_itl_s));
  lines << ttft << itl;
  lines << tr("Bound by %1 at %2 sequences").arg(qstring(serving_binding_name(r.binding)), number(r.concurrency));
  return lines.join(QStringLiteral("<br>"));
}

QVariant ServingLayoutsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kHeaders[kColumnCount] = {
      QT_TR_NOOP("#"),     QT_TR_NOOP("Layout"), QT_TR_NOOP("GPUs"), QT_TR_NOOP("Batch"),   QT_TR_NOOP("Tok/s/GPU"),
      QT_TR_NOOP("Tok/s"), QT_TR_NOOP("TTFT"),   QT_TR_NOOP("ITL"),  QT_TR_NOOP("Bound by")};
  if (section < 0 || section >= kColumnCount) return {};
  return tr(kHeaders[section]);
}

}  // namespace meshscope::ui
