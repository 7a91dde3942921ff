#pragma once
// Edit → Calibrate: the link efficiencies fitted to nccl-tests logs, and the GEMM efficiency fitted to
// the imported trace's or training log's measurement. The fits are core's (core/session/calibrate.hpp);
// each is applied to the project as one undoable command (saved with it).
#include <QString>
#include <QStringList>

#include <vector>

#include "ui/profile/nccl_comparison_dialog.hpp"
#include "ui/window/window_controller.hpp"

class QMenu;
class QWidget;

namespace meshscope::ui {

class Evaluator;
class ProjectDocument;

class CalibrationController final : public WindowController {
  Q_OBJECT

 public:
  // Dialogs open over `window`; the evaluation read is the evaluator's latest (its cluster, its comparisons).
  CalibrationController(QWidget* window, ProjectDocument* document, Evaluator* evaluator);

  // Fits the link efficiencies to nccl-tests logs (the first `ranks` GPUs of the cluster ran
  // each), shows the error before and after, and applies the fit to the project (Edit → Undo
  // reverts it). Returns the summary, empty on error (shown inline).
  QString calibrateFromNcclTests(const QStringList& logs);
  // The last calibration's rows, measured against predicted before and after the fit (every
  // out-of-place row of every log, in log order).
  [[nodiscard]] const std::vector<NcclComparisonRow>& lastNcclComparison() const { return nccl_comparison_; }
  // Shows the last calibration's summary and rows in a window (Edit → Calibrate does it).
  void showNcclComparison(const QString& summary);
  // Fits the GEMM efficiency so that the predicted compute matches the imported trace's measured
  // compute (gemm_efficiency_hint; the evaluation's comparison of the trace), and applies it. Returns the summary,
  // empty on error (shown inline).
  QString calibrateGemmFromTrace();
  // As calibrateGemmFromTrace, on the imported log's median step time (calibrate_gemm_from_log).
  QString calibrateGemmFromLog();

  // Edit: the three calibrations.
  void addActions(QMenu* edit);

 private:
  QWidget* window_;
  ProjectDocument* document_;
  Evaluator* evaluator_;
  std::vector<NcclComparisonRow> nccl_comparison_;
};

}  // namespace meshscope::ui
