#pragma once
// The ranked layouts view: the valid layouts of a search, best first, and the rejected ones with
// their reason, in two tabs of sortable, filterable tables, with a status line of the search's
// totals. Training results (SearchResult) and serving rankings (ServingRankResult) share it; the
// last one set decides the columns.
//
// Integration:
//   panel->setResult(search_snapshot, objective);           // or setServingResult(...)
//   connect(panel, &RankedLayoutsPanel::layoutActivated, ...);   // the user selected a row
//   connect(panel, &RankedLayoutsPanel::pinnedChanged, ...);     // feed a LayoutCompareWidget
//   export_csv(panel->validModel());                              // the table as shown
#include <QWidget>

#include <memory>
#include <vector>

#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "ui/document/evaluator.hpp"

class QAbstractItemModel;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QModelIndex;

namespace meshscope::ui {

class LayoutFilterProxy;
class RankedLayoutsModel;
class RejectedLayoutsModel;
class ServingLayoutsModel;

class RankedLayoutsPanel final : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kMaxPinned = 2;

  // Shows each of `evaluator`'s searches (showSearch); null: only what it is given.
  explicit RankedLayoutsPanel(Evaluator* evaluator = nullptr, QWidget* parent = nullptr);

  // Shows a training search (training columns); nullptr empties the view. Clears the pins.
  void setResult(std::shared_ptr<const SearchResult> result, RankObjective objective = RankObjective::throughput);
  // Shows a serving ranking (serving columns; pins are for training layouts and are disabled).
  void setServingResult(std::shared_ptr<const ServingRankResult> result, ServingTarget target = {});
  // A search's training ranking (by throughput) or serving ranking; a failed search changes nothing. The rows
  // the new result selects do not activate a layout.
  void showSearch(const SearchEvaluation& search);

  // Selects the layout ranked `rank` (1 = best) in the valid tab; false when there is no such
  // rank or the filter hides it. activate false: no layoutActivated (the caller applied that layout itself).
  bool selectRank(int rank, bool activate = true);
  // The valid table as the user sees it (sorted and filtered), for CSV export: display text per
  // cell, raw numbers under SortRole (ranked_layouts_model.hpp).
  [[nodiscard]] QAbstractItemModel* validModel() const;
  [[nodiscard]] QAbstractItemModel* rejectedModel() const;
  // The filter text: whitespace-separated words that must all occur in the layout, spaces inside
  // "TP 8" optional ("tp8 zero-1 mb2"); a word ending in a digit does not match a longer number
  // ("tp1" does not match TP 16).
  void setFilterText(const QString& text);
  [[nodiscard]] std::vector<RankedLayout> pinned() const;

 public slots:
  // Pins the selected training layout (or unpins it if pinned); a third pin drops the oldest.
  void togglePinCurrent();
  void clearPins();

 signals:
  void layoutActivated(const meshscope::RankedLayout& layout);
  // The selected ranked layout, to be written as its framework's own launcher config.
  void exportRequested(const meshscope::RankedLayout& layout);
  void servingLayoutActivated(const meshscope::RankedServing& layout);
  // The pinned layouts, oldest first (at most kMaxPinned).
  void pinnedChanged(const std::vector<meshscope::RankedLayout>& pinned);

 private:
  void onCurrentRowChanged(const QModelIndex& current);
  void updateTitles();
  void updatePinButton();
  [[nodiscard]] int currentSourceRow() const;

  RankedLayoutsModel* ranked_model_;
  ServingLayoutsModel* serving_model_;
  RejectedLayoutsModel* rejected_model_;
  LayoutFilterProxy* valid_proxy_;
  LayoutFilterProxy* rejected_proxy_;
  QLineEdit* filter_;
  QPushButton* pin_button_;
  QPushButton* clear_pins_button_;
  QPushButton* export_button_;
  QLabel* pinned_label_;
  QTabWidget* tabs_;
  QTableView* valid_view_;
  QTableView* rejected_view_;
  QLabel* rejected_totals_;
  QLabel* status_;
  bool serving_ = false;
  bool quiet_ = false;  // the selection changes because of a new result or a caller's selectRank: no activation
  std::vector<int> pinned_rows_;  // source rows of the ranked model, oldest first
};

}  // namespace meshscope::ui
