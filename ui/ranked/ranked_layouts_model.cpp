#include "ui/ranked/ranked_layouts_model.hpp"

#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "core/framework/framework.hpp"
#include "core/search/ties.hpp"
#include "ui/kit/formatting.hpp"

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

// The frameworks a ranked layout runs in, short enough for a table cell ("Megatron, Bridge"); the
// column's tooltip and the row's name them in full.
QString frameworks_badge(uint32_t bits) {
  if (bits == 0) return QObject::tr("none");
  QStringList names;
  for (const Framework f : frameworks_in(bits)) {
    switch (f) {
      case Framework::megatron_lm:
        names << QStringLiteral("Megatron");
        break;
      case Framework::megatron_bridge:
        names << QStringLiteral("Bridge");
        break;
      case Framework::torchtitan:
        names << QStringLiteral("torchtitan");
        break;
      case Framework::deepspeed:
        names << QStringLiteral("DeepSpeed");
        break;
      case Framework::any:
        break;
    }
  }
  return names.join(QStringLiteral(", "));
}

// The same in full, as the key names them ("megatron-lm, megatron-bridge").
QString frameworks_names(uint32_t bits) {
  QStringList names;
  for (const Framework f : frameworks_in(bits))
    names << QString::fromUtf8(enum_name(f).data(), static_cast<int>(enum_name(f).size()));
  return names.isEmpty() ? QObject::tr("no framework meshscope knows (its schedule or options)")
                         : names.join(QStringLiteral(", "));
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

RankedLayoutsModel::RankedLayoutsModel(QObject* parent) : SnapshotTableModel(SortRole, {}, parent) {
  setRowsAndColumns({}, rankedColumns());
}

std::vector<SnapshotColumn<RankedLayout>> RankedLayoutsModel::rankedColumns() const {
  using Cell = SnapshotColumn<RankedLayout>::Cell;
  const Cell tooltip = [this](const RankedLayout&, int row) { return rowToolTip(row); };
  const auto column = [&](const char* header, const QString& header_tooltip, Cell display, Cell value,
                          bool numeric = true) {
    return SnapshotColumn<RankedLayout>{tr(header),
                                        header_tooltip,
                                        std::move(display),
                                        std::move(value),
                                        numeric ? kNumberAlignment : Qt::Alignment{},
                                        tooltip,
                                        {},
                                        {},
                                        {}};
  };
  return {
      column(
          QT_TR_NOOP("#"), tr("Rank by the search's objective; * re-scored by the full event simulation"),
          [this](const RankedLayout& r, int row) {
            // A star marks layouts re-scored by the full event simulation (SearchOptions::refine); a
            // letter the pinned ones, as the comparison labels them.
            QString rank = QString::number(row + 1);
            if (r.refined) rank += u'*';
            const auto pin = std::find(pinned_rows_.begin(), pinned_rows_.end(), row);
            if (pin != pinned_rows_.end())
              rank =
                  QStringLiteral("%1 \u00b7 %2").arg(QChar(u'A' + static_cast<int>(pin - pinned_rows_.begin())), rank);
            return rank;
          },
          [](const RankedLayout&, int row) { return static_cast<double>(row + 1); }),
      column(
          QT_TR_NOOP("Tie"),
          tr("Layouts with the same = number are within the model's uncertainty of the group's first (the "
             "validation set's median error for the regime, docs/validation.md): the model cannot order them"),
          [this](const RankedLayout& r, int) {
            return tieGroupSize(r.tie_group) > 1 ? QStringLiteral("= %1").arg(r.tie_group) : QString();
          },
          [](const RankedLayout& r, int) { return static_cast<double>(r.tie_group); }),
      column(
          QT_TR_NOOP("Layout"), {}, [](const RankedLayout& r, int) { return ranked_layout_text(r); },
          [](const RankedLayout& r, int) { return ranked_layout_text(r); }, false),
      column(
          QT_TR_NOOP("Runs in"),
          tr("The frameworks that run this layout as ranked (the target framework's table, or under \"any\" every "
             "framework whose table allows it): Megatron = megatron-lm, Bridge = megatron-bridge (NeMo 2), "
             "torchtitan, DeepSpeed"),
          [](const RankedLayout& r, int) { return frameworks_badge(r.frameworks); },
          [](const RankedLayout& r, int) { return frameworks_badge(r.frameworks); }, false),
      column(
          QT_TR_NOOP("Step"),
          tr("Predicted time of one optimizer step; \u26a0 a known gap in the validation (published runs like it "
             "differ by more than 20 %)"),
          [](const RankedLayout& r, int) {
            return r.known_gaps.empty() ? duration_text(r.step_time_s)
                                        : QStringLiteral("\u26a0 ") + duration_text(r.step_time_s);
          },
          [](const RankedLayout& r, int) { return r.step_time_s; }),
      column(
          QT_TR_NOOP("Tok/s/GPU"), tr("Training tokens per second per GPU"),
          [](const RankedLayout& r, int) { return count_text(r.tokens_per_s_per_gpu); },  // the header carries the unit
          [](const RankedLayout& r, int) { return r.tokens_per_s_per_gpu; }),
      column(
          QT_TR_NOOP("MFU"), tr("Model FLOPs utilisation: model FLOPs (no recompute) per second over the dense peak"),
          [](const RankedLayout& r, int) { return percent_text(r.mfu); },
          [](const RankedLayout& r, int) { return r.mfu; }),
      column(
          QT_TR_NOOP("Peak"), tr("Predicted peak memory of the worst rank"),
          [](const RankedLayout& r, int) { return binary_bytes_text(r.peak_memory_bytes); },
          [](const RankedLayout& r, int) { return r.peak_memory_bytes; }),
      column(
          QT_TR_NOOP("Headroom"), tr("GPU memory left on the worst rank"),
          [](const RankedLayout& r, int) { return binary_bytes_text(r.headroom_bytes); },
          [](const RankedLayout& r, int) { return r.headroom_bytes; }),
      column(
          QT_TR_NOOP("Bubble"), tr("Pipeline bubble: 1 \u2212 busy / (stages \u00b7 makespan)"),
          [](const RankedLayout& r, int) { return percent_text(r.bubble_fraction); },
          [](const RankedLayout& r, int) { return r.bubble_fraction; }),
  };
}

void RankedLayoutsModel::setResult(std::shared_ptr<const SearchResult> result, RankObjective objective) {
  // The rows are the result's own layouts (an aliasing pointer: no copy).
  std::shared_ptr<const std::vector<RankedLayout>> rows;
  if (result) rows = std::shared_ptr<const std::vector<RankedLayout>>(result, &result->layouts);
  setRows(std::move(rows), [&] {
    result_ = std::move(result);
    objective_ = objective;
    pinned_rows_.clear();
  });
}

void RankedLayoutsModel::setPinnedRows(std::vector<int> rows) {
  pinned_rows_ = std::move(rows);
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1), {Qt::DisplayRole});
}

int RankedLayoutsModel::tieGroupSize(int group) const {
  return result_ ? tie_group_size(result_->layouts, group) : 0;
}

const RankedLayout* RankedLayoutsModel::layoutAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(result_->layouts.size())) return nullptr;
  return &result_->layouts[static_cast<size_t>(row)];
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
  lines << tr("Uncertainty \u00b1%1 (the validation set's median error for this regime)")
               .arg(percent_text(r.uncertainty));
  if (tieGroupSize(r.tie_group) > 1)
    lines << tr("Tie group %1: within the model's uncertainty of the group's first layout").arg(r.tie_group);
  lines << tr("Runs in: %1").arg(frameworks_names(r.frameworks));
  lines << (r.refined ? tr("Scored by the full event simulation")
                      : tr("Scored by the fast closed-form model (no link sharing between groups)"));
  if (!r.known_gaps.empty())
    lines << tr("<span style=\"color:#b45309\">\u26a0 known gap in the validation (%1): published runs like this "
                "one differ from the model by more than 20 %; Explain names them</span>")
                 .arg(gap_ids_text(r.known_gaps));
  return lines.join(QStringLiteral("<br>"));
}

// ---- RejectedLayoutsModel -----------------------------------------------------------------------

namespace {

using RejectedCell = SnapshotColumn<RejectedLayoutRow>::Cell;

QVariant rejected_tooltip(const RejectedLayoutRow& row, int) {
  const QString count = count_text(static_cast<double>(row.reason_count));
  QString tip =
      row.totals_only
          ? RejectedLayoutsModel::tr("%1 serving layouts rejected: %2").arg(count, row.reason.toHtmlEscaped())
          : RejectedLayoutsModel::tr("%1 candidates rejected for this reason; this is one example").arg(count);
  if (row.overflow_bytes > 0)
    tip += RejectedLayoutsModel::tr("<br>Predicted peak %1 on the worst rank, %2 over the GPU's capacity")
               .arg(binary_bytes_text(row.peak_memory_bytes), binary_bytes_text(row.overflow_bytes));
  return tip;
}

std::vector<SnapshotColumn<RejectedLayoutRow>> rejected_columns() {
  const auto column = [](const char* header, RejectedCell display, RejectedCell value, bool numeric = false) {
    return SnapshotColumn<RejectedLayoutRow>{RejectedLayoutsModel::tr(header),
                                             {},
                                             std::move(display),
                                             std::move(value),
                                             numeric ? kNumberAlignment : Qt::Alignment{},
                                             rejected_tooltip,
                                             {},
                                             {},
                                             {}};
  };
  return {
      column(
          QT_TR_NOOP("Layout"), [](const RejectedLayoutRow& row, int) { return row.layout; },
          [](const RejectedLayoutRow& row, int) {
            return row.totals_only ? QVariant(static_cast<double>(row.reason_count)) : QVariant(row.layout);
          }),
      column(
          QT_TR_NOOP("Reason"), [](const RejectedLayoutRow& row, int) { return row.reason; },
          [](const RejectedLayoutRow& row, int) { return row.reason; }),
      column(
          QT_TR_NOOP("Over capacity by"),
          [](const RejectedLayoutRow& row, int) {
            return row.overflow_bytes > 0 ? binary_bytes_text(row.overflow_bytes) : QString();
          },
          [](const RejectedLayoutRow& row, int) { return row.overflow_bytes; }, true),
  };
}

}  // namespace

RejectedLayoutsModel::RejectedLayoutsModel(QObject* parent)
    : SnapshotTableModel(SortRole, rejected_columns(), parent) {}

void RejectedLayoutsModel::setResult(std::shared_ptr<const SearchResult> result) {
  std::vector<RejectedLayoutRow> rows;
  if (result)
    for (const RejectedLayout& example : result->rejected_examples) {
      const auto count = result->rejected.find(example.reason);
      rows.push_back({rejected_layout_text(example), QString::fromStdString(example.reason), example.overflow_bytes,
                      example.peak_memory_bytes, count == result->rejected.end() ? 0 : count->second, false});
    }
  setRows(std::move(rows), [&] { totals_ = result ? result->rejected : std::map<std::string, int64_t>{}; });
}

void RejectedLayoutsModel::setServingResult(std::shared_ptr<const ServingRankResult> result) {
  std::vector<RejectedLayoutRow> rows;
  if (result)
    for (const auto& [reason, count] : result->rejected)
      rows.push_back({tr("%1 layouts").arg(count_text(static_cast<double>(count))), QString::fromStdString(reason), 0,
                      0, count, true});
  setRows(std::move(rows), [&] { totals_ = result ? result->rejected : std::map<std::string, int64_t>{}; });
}

int64_t RejectedLayoutsModel::rejectedTotal() const {
  int64_t total = 0;
  for (const auto& [reason, count] : totals_) total += count;
  return total;
}

// ---- ServingLayoutsModel ------------------------------------------------------------------------

ServingLayoutsModel::ServingLayoutsModel(QObject* parent) : SnapshotTableModel(SortRole, {}, parent) {
  setRowsAndColumns({}, servingColumns());
}

std::vector<SnapshotColumn<RankedServing>> ServingLayoutsModel::servingColumns() const {
  using Cell = SnapshotColumn<RankedServing>::Cell;
  const Cell tooltip = [this](const RankedServing&, int row) { return rowToolTip(row); };
  const auto column = [&](const char* header, Cell display, Cell value, bool numeric = true) {
    return SnapshotColumn<RankedServing>{
        tr(header), {}, std::move(display), std::move(value), numeric ? kNumberAlignment : Qt::Alignment{}, tooltip, {},
        {},         {}};
  };
  return {
      column(
          QT_TR_NOOP("#"), [](const RankedServing&, int row) { return QString::number(row + 1); },
          [](const RankedServing&, int row) { return static_cast<double>(row + 1); }),
      column(
          QT_TR_NOOP("Layout"), [](const RankedServing& r, int) { return serving_layout_text(r); },
          [](const RankedServing& r, int) { return serving_layout_text(r); }, false),
      column(
          QT_TR_NOOP("GPUs"), [](const RankedServing& r, int) { return number(r.gpus_used); },
          [](const RankedServing& r, int) { return static_cast<double>(r.gpus_used); }),
      column(
          QT_TR_NOOP("Batch"), [](const RankedServing& r, int) { return number(r.concurrency); },
          [](const RankedServing& r, int) { return static_cast<double>(r.concurrency); }),
      column(
          QT_TR_NOOP("Tok/s/GPU"),
          [](const RankedServing& r, int) { return tokens_per_s_text(r.output_tokens_per_s_per_gpu); },
          [](const RankedServing& r, int) { return r.output_tokens_per_s_per_gpu; }),
      column(
          QT_TR_NOOP("Tok/s"), [](const RankedServing& r, int) { return tokens_per_s_text(r.output_tokens_per_s); },
          [](const RankedServing& r, int) { return r.output_tokens_per_s; }),
      column(
          QT_TR_NOOP("TTFT"), [](const RankedServing& r, int) { return duration_text(r.ttft_s); },
          [](const RankedServing& r, int) { return r.ttft_s; }),
      column(
          QT_TR_NOOP("ITL"), [](const RankedServing& r, int) { return duration_text(r.itl_s); },
          [](const RankedServing& r, int) { return r.itl_s; }),
      column(
          QT_TR_NOOP("Bound by"),
          [](const RankedServing& r, int) {
            return r.bound_by.empty()
                       ? qstring(serving_binding_name(r.binding))
                       : QStringLiteral("%1 (%2)").arg(qstring(serving_binding_name(r.binding)), qstring(r.bound_by));
          },
          [](const RankedServing& r, int) { return qstring(serving_binding_name(r.binding)); }, false),
  };
}

void ServingLayoutsModel::setResult(std::shared_ptr<const ServingRankResult> result, ServingTarget target) {
  std::shared_ptr<const std::vector<RankedServing>> rows;
  if (result) rows = std::shared_ptr<const std::vector<RankedServing>>(result, &result->layouts);
  setRows(std::move(rows), [&] {
    result_ = std::move(result);
    target_ = target;
  });
}

const RankedServing* ServingLayoutsModel::layoutAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(result_->layouts.size())) return nullptr;
  return &result_->layouts[static_cast<size_t>(row)];
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

}  // namespace meshscope::ui
