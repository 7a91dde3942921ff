#pragma once
// The ranked layouts view's item models: the valid training layouts of a search (best first), its
// rejected examples with their reason, and the ranked serving layouts. Each holds an immutable
// snapshot replaced whole in a model reset.
//
// Roles (all three models):
//   Qt::DisplayRole   text with units ("12.3 s", "41.2 %", "8.50 GiB")
//   SortRole          (= Qt::UserRole) the cell's raw number as a double (seconds, bytes, a
//                     fraction in [0, 1], tokens/s, the rank) or, for text columns, the text;
//                     set it as a QSortFilterProxyModel's sortRole to sort numerically
//   Qt::ToolTipRole   per row: why it ranks where it does, or why it was rejected
#include <QString>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "ui/kit/snapshot_table_model.hpp"

namespace meshscope::ui {

// "TP 8 · PP 4 (v 2) · DP 2 · SP · ZeRO-1 · mb 1 · selective · 1F1B" (layout_summary, then the
// knobs; the schedule only when there is a pipeline, "interleaved" for interleaved 1F1B).
[[nodiscard]] QString ranked_layout_text(const RankedLayout& ranked);
// The knobs a rejection example had reached (RejectedScope): "TP 16 · PP 1 · DP 4" for a mesh
// rejection, "… · mb 8" once the micro-batch was chosen, everything for a whole candidate.
[[nodiscard]] QString rejected_layout_text(const RejectedLayout& rejected);
// "2 × TP 4 · DP 2 · EP 8" (2 replicas); disaggregated: "prefill TP 8 → decode 2 × TP 4".
[[nodiscard]] QString serving_layout_text(const RankedServing& ranked);
// "1F1B", "interleaved 1F1B", "ZB-H1", "GPipe", "DualPipe".
[[nodiscard]] QString pipeline_schedule_label(PipelineSchedule schedule);
// "41.2 %" for 0.412.
[[nodiscard]] QString percent_text(double fraction);
// "1,234,567" (English grouping whatever the locale).
[[nodiscard]] QString count_text(double count);
// "does not fit in GPU memory: 1,234 · global batch not divisible by DP×micro-batch: 12", most
// frequent first.
[[nodiscard]] QString rejected_totals_text(const std::map<std::string, int64_t>& rejected);

enum : int { SortRole = Qt::UserRole };

class RankedLayoutsModel final : public SnapshotTableModel<RankedLayout> {
  Q_OBJECT

 public:
  enum Column { kRank, kTie, kLayout, kFrameworks, kStepTime, kTokensPerGpu, kMfu, kPeakMemory, kHeadroom, kBubble };
  static constexpr int kColumnCount = kBubble + 1;

  explicit RankedLayoutsModel(QObject* parent = nullptr);

  // Replaces the snapshot; nullptr empties the table. `objective` is the one the search ranked by
  // (named in the tooltips).
  void setResult(std::shared_ptr<const SearchResult> result, RankObjective objective = RankObjective::throughput);
  [[nodiscard]] const std::shared_ptr<const SearchResult>& result() const { return result_; }
  // The layout of a source row (nullptr out of range).
  [[nodiscard]] const RankedLayout* layoutAt(int row) const;
  // Marks pinned rows (oldest first): "A · 3", "B · 7" in the rank column, as the comparison names them.
  void setPinnedRows(std::vector<int> rows);

 private:
  [[nodiscard]] std::vector<SnapshotColumn<RankedLayout>> rankedColumns() const;
  [[nodiscard]] int tieGroupSize(int group) const;  // layouts of the result in tie group `group`
  [[nodiscard]] QString rowToolTip(int row) const;
  std::shared_ptr<const SearchResult> result_;
  RankObjective objective_ = RankObjective::throughput;
  std::vector<int> pinned_rows_;
};

// A row of the rejected table: one example, or (serving) one reason's total.
struct RejectedLayoutRow {
  QString layout;
  QString reason;
  double overflow_bytes = 0;
  double peak_memory_bytes = 0;
  int64_t reason_count = 0;
  bool totals_only = false;
};

// The rejected examples of a search (SearchResult::rejected_examples) and, for a serving ranking,
// which keeps no examples, the reason totals as rows.
class RejectedLayoutsModel final : public SnapshotTableModel<RejectedLayoutRow> {
  Q_OBJECT

 public:
  enum Column { kLayout, kReason, kOverflow };
  static constexpr int kColumnCount = kOverflow + 1;

  explicit RejectedLayoutsModel(QObject* parent = nullptr);

  // One row per rejected example; nullptr empties the table.
  void setResult(std::shared_ptr<const SearchResult> result);
  // One row per reason (layout column: the count), as the serving search keeps no examples.
  void setServingResult(std::shared_ptr<const ServingRankResult> result);
  // Reason → count over every candidate rejected (not only the examples).
  [[nodiscard]] const std::map<std::string, int64_t>& reasonTotals() const { return totals_; }
  [[nodiscard]] int64_t rejectedTotal() const;

 private:
  std::map<std::string, int64_t> totals_;
};

class ServingLayoutsModel final : public SnapshotTableModel<RankedServing> {
  Q_OBJECT

 public:
  enum Column { kRank, kLayout, kGpus, kConcurrency, kTokensPerGpu, kTokens, kTtft, kItl, kBinding };
  static constexpr int kColumnCount = kBinding + 1;

  explicit ServingLayoutsModel(QObject* parent = nullptr);

  // Replaces the snapshot; nullptr empties the table. `target` is the latency target the
  // ranking met (named in the tooltips when finite).
  void setResult(std::shared_ptr<const ServingRankResult> result, ServingTarget target = {});
  [[nodiscard]] const std::shared_ptr<const ServingRankResult>& result() const { return result_; }
  [[nodiscard]] const RankedServing* layoutAt(int row) const;

 private:
  [[nodiscard]] std::vector<SnapshotColumn<RankedServing>> servingColumns() const;
  [[nodiscard]] QString rowToolTip(int row) const;
  std::shared_ptr<const ServingRankResult> result_;
  ServingTarget target_;
};

}  // namespace meshscope::ui
