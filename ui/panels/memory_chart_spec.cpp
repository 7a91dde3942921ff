#include "ui/panels/memory_chart_spec.hpp"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/nice_step.hpp"

namespace meshscope::ui {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

MemoryChartSpec::Headroom headroom_of(double usable_bytes, double total_bytes) {
  MemoryChartSpec::Headroom headroom;
  headroom.bytes = usable_bytes - total_bytes;
  const double gib = std::abs(headroom.bytes) / kBytesPerGib;
  if (headroom.overflow()) {
    headroom.text = QObject::tr("%1 over").arg(gib_text(-headroom.bytes));
    headroom.short_text = QStringLiteral("\u2212%1 GiB").arg(gib, 0, 'f', 1);
    headroom.tiny_text = QStringLiteral("\u2212%1").arg(gib, 0, 'f', 0);
  } else {
    headroom.text = QObject::tr("+%1 free").arg(gib_text(headroom.bytes));
    headroom.short_text = QStringLiteral("+%1 GiB").arg(gib, 0, 'f', 1);
    headroom.tiny_text = QStringLiteral("+%1").arg(gib, 0, 'f', 0);
  }
  return headroom;
}

}  // namespace

QString memory_segment_tooltip(const RankMemory& rank, const MemoryItem& item) {
  const double total = rank.total_bytes();
  QString tip = QObject::tr("<b>%1</b> \u00b7 %2")
                    .arg(category_label(item.category).toHtmlEscaped(), rank_label(rank).toHtmlEscaped());
  tip += QObject::tr("<br>%1 = %2").arg(gib_text(item.bytes), exact_bytes_text(item.bytes));
  if (total > 0)
    tip += QObject::tr(" \u00b7 %1 % of the rank's %2").arg(100.0 * item.bytes / total, 0, 'f', 1).arg(gib_text(total));
  if (!item.formula.empty())
    tip += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(item.formula).toHtmlEscaped());
  return tip;
}

MemoryChartSpec memory_chart_spec(const MemoryBudget& budget) {
  MemoryChartSpec spec;
  spec.convention = QString::fromStdString(budget.convention);
  spec.fits = budget.ranks.empty() || budget.fits();
  spec.capacity_gib = budget.capacity_bytes / kBytesPerGib;
  if (budget.usable_bytes > 0 && budget.usable_bytes < budget.capacity_bytes)
    spec.usable_gib = budget.usable_bytes / kBytesPerGib;
  const double peak = budget.peak_total_bytes();
  spec.title = QObject::tr("Memory per rank \u00b7 peak %1 of %2").arg(gib_text(peak), gib_text(budget.capacity_bytes));
  if (spec.usable_gib) spec.title += QObject::tr(" (%1 usable)").arg(gib_text(budget.usable_bytes));

  for (const RankMemory& rank : budget.ranks) {
    spec.bar_labels << rank_label(rank);
    spec.bar_short_labels << (rank.pp_stages.size() == 1 ? QObject::tr("stage %1") : QObject::tr("stages %1"))
                                 .arg(stage_ranges_text(rank.pp_stages));
    spec.bar_tiny_labels << stage_ranges_text(rank.pp_stages);
    spec.headroom.push_back(headroom_of(budget.usable_bytes, rank.total_bytes()));
  }
  for (int c = 0; c < kMemoryCategoryCount; ++c) {
    const auto category = static_cast<MemoryCategory>(c);
    const bool present = std::any_of(budget.ranks.begin(), budget.ranks.end(),
                                     [&](const RankMemory& rank) { return rank.bytes(category) > 0; });
    if (!present) continue;
    MemoryChartSpec::CategorySet set;
    set.category = category;
    set.label = category_label(category);
    set.colour = memory_category_colour(category);
    for (const RankMemory& rank : budget.ranks) {
      const auto item = std::find_if(rank.items.begin(), rank.items.end(),
                                     [&](const MemoryItem& candidate) { return candidate.category == category; });
      set.gib.push_back(rank.bytes(category) / kBytesPerGib);
      set.tooltips.push_back(item != rank.items.end() ? memory_segment_tooltip(rank, *item) : QString());
    }
    spec.sets.push_back(std::move(set));
  }

  const double top = std::max(spec.capacity_gib, peak / kBytesPerGib) * 1.04;
  spec.axis_step_gib = top > 0 ? nice_step(top, 6) : 1.0;
  spec.axis_max_gib = std::max(1.0, std::ceil(top / spec.axis_step_gib)) * spec.axis_step_gib;
  return spec;
}

}  // namespace meshscope::ui
