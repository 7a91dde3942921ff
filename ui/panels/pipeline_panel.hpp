#pragma once
// The pipeline view: the schedule of the current layout per stage, and below it a second schedule
// to compare with (or, without one, the warm-up zoomed). Its controls (the schedule, the virtual
// stages, the micro-batch size, the comparison) push commands to the project document, as the
// workload panel's do, and follow the project on every change (undo and redo included).
#include <QWidget>

#include "ui/document/evaluator.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace meshscope::ui {

class InFlightChart;
class PipelineAnimation;
class PipelineChart;
class ProjectDocument;

class PipelinePanel final : public QWidget {
  Q_OBJECT

 public:
  // Shows each of `evaluator`'s evaluations.
  PipelinePanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent = nullptr);

  void showEvaluation(const Evaluation& evaluation);
  [[nodiscard]] PipelineChart* chart() const { return chart_; }
  [[nodiscard]] PipelineAnimation* animation() const { return animation_; }
  [[nodiscard]] InFlightChart* inFlightChart() const { return in_flight_; }

 private:
  void sync();  // the controls show the project's values

  ProjectDocument* document_;
  QComboBox* schedule_ = nullptr;
  QSpinBox* vpp_ = nullptr;
  QSpinBox* micro_batch_ = nullptr;
  QComboBox* compare_schedule_ = nullptr;
  QLabel* caption_ = nullptr;
  PipelineChart* chart_ = nullptr;
  PipelineAnimation* animation_ = nullptr;  // the cursor over chart_, and in_flight_ beside it
  InFlightChart* in_flight_ = nullptr;
  QLabel* compare_caption_ = nullptr;
  PipelineChart* compare_chart_ = nullptr;
};

}  // namespace meshscope::ui
