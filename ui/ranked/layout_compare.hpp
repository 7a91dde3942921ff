#pragma once
// Two layouts side by side: the step-time breakdown, the worst rank's memory by category, the
// bubble, and the communication bytes and time per mesh axis, with the difference B − A as a
// signed amount and a percentage. Fed by the ranked layouts view's pins: the evaluator estimates both
// pinned layouts with each evaluation (Evaluation::pinned_comparison, core/session/compare_layouts.hpp).
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/kit/snapshot_table_model.hpp"

class QLabel;
class QTableView;

namespace meshscope::ui {

// One side of the comparison: a label ("A: #1 TP 8 · PP 4 …") and its predictions.
struct CompareSide {
  QString label;
  StepEstimate estimate;
  MemoryBudget memory;
};

// A row: a section heading or a quantity of both sides.
struct LayoutCompareRow {
  enum class Unit { seconds, bytes, fraction, tokens_per_s, count };
  enum class Better { lower, higher, neither };
  QString quantity;
  double a = 0, b = 0;
  Unit unit = Unit::seconds;
  Better better = Better::lower;
  bool heading = false;
  QString tooltip;
};

// Rows: section headings, then quantities. Columns: quantity, A, B, Δ (B − A), Δ %.
// Roles: DisplayRole text with units; SortRole (= Qt::UserRole) the raw number (A, B: the value;
// Δ: B − A; Δ %: B / A − 1, absent when A is 0); Qt::ForegroundRole on Δ cells colours an
// improvement of B over A bluish green and a regression vermillion (Okabe–Ito), for quantities
// with a better direction; Qt::FontRole bold on section headings.
class LayoutCompareModel final : public SnapshotTableModel<LayoutCompareRow> {
  Q_OBJECT

 public:
  enum Column { kQuantity, kA, kB, kDelta, kDeltaPercent };
  static constexpr int kColumnCount = kDeltaPercent + 1;
  using Unit = LayoutCompareRow::Unit;
  using Better = LayoutCompareRow::Better;

  explicit LayoutCompareModel(QObject* parent = nullptr);

  // Replaces both sides; either nullptr empties the table.
  void setSides(std::shared_ptr<const CompareSide> a, std::shared_ptr<const CompareSide> b);
  // The row of a quantity by its label ("Step time", "TP time"); -1 if absent.
  [[nodiscard]] int rowOf(const QString& quantity) const;

 private:
  std::shared_ptr<const CompareSide> a_, b_;
};

class LayoutCompareWidget final : public QWidget {
  Q_OBJECT

 public:
  // Shows each of `evaluator`'s evaluations (showEvaluation); null: only what it is given.
  explicit LayoutCompareWidget(Evaluator* evaluator = nullptr, QWidget* parent = nullptr);

  // The evaluation's pinned comparison; without one the table is empty.
  void showEvaluation(const Evaluation& evaluation);
  void setComparison(CompareSide a, CompareSide b);
  void clear();
  [[nodiscard]] LayoutCompareModel* model() const { return model_; }

 signals:
  // Another pair of layouts is shown (not the same pair estimated again after an edit).
  void comparisonShown();
  // The pinned layouts could not be estimated: why (once per message; the table is empty).
  void comparisonFailed(const QString& message);

 private:
  LayoutCompareModel* model_;
  QLabel* title_;
  QTableView* view_;
  QString shown_pair_;   // the labels of the pair shown ("" when none)
  QString shown_error_;  // the last comparisonFailed message
};

}  // namespace meshscope::ui
