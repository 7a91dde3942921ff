#pragma once
// The serving view: latency against throughput for the current layout and the best-ranked ones,
// against a target (TTFT and ITL) that the spin boxes set. The target is part of the project (its
// view state); a change is a command on the project document, undone like any other.
#include <QWidget>

#include "core/serving/serving.hpp"
#include "ui/document/evaluator.hpp"

class QSpinBox;

namespace meshscope::ui {

class ProjectDocument;
class ServingCurveChart;

// The project's serving target; without one the interactive defaults, a first token within 2 s
// and 50 ms between tokens (20 tokens/s per user).
[[nodiscard]] ServingTarget serving_target_of(const Project& project);

class ServingPanel final : public QWidget {
  Q_OBJECT

 public:
  // Shows the curves of each of `evaluator`'s evaluations and serving rankings.
  ServingPanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent = nullptr);

  // The curves of the current layout (evaluation) and of the best-ranked ones (search); either may be null.
  void showResults(const Evaluation* evaluation, const SearchEvaluation* search);

 private:
  void sync();  // the spin boxes show the project's target

  ProjectDocument* document_;
  QSpinBox* ttft_ = nullptr;
  QSpinBox* itl_ = nullptr;
  ServingCurveChart* chart_ = nullptr;
};

}  // namespace meshscope::ui
