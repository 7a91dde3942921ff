#pragma once
// The strip above every view: the project and its verdict (fits, or why the layout is not
// valid), the predicted numbers, and a banner for a file that failed to open or import.
#include <QWidget>

#include <vector>

#include "core/memory/memory.hpp"
#include "core/project/project.hpp"
#include "core/workload/layout.hpp"
#include "ui/document/evaluator.hpp"

class QLabel;

namespace meshscope::ui {

// The header text (rich text) for a project whose budget was computed.
[[nodiscard]] QString budget_header_html(const Project& project, const MemoryBudget& budget);
// The header text (rich text) listing why a project's layout is invalid.
[[nodiscard]] QString problems_header_html(const Project& project, const std::vector<LayoutProblem>& problems);

class SummaryStrip final : public QWidget {
  Q_OBJECT

 public:
  // Shows each of `evaluator`'s evaluations.
  explicit SummaryStrip(Evaluator* evaluator, QWidget* parent = nullptr);

  void showEvaluation(const Evaluation& evaluation);
  // Empty: the banner is hidden.
  void setError(const QString& message);
  [[nodiscard]] QString error() const;

 private:
  QLabel* error_banner_ = nullptr;
  QLabel* header_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace meshscope::ui
