#include "ui/profile/calibration_controller.hpp"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>

#include <string>
#include <utility>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/report/units.hpp"
#include "core/session/calibrate.hpp"
#include "core/session/trace_prediction.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

CalibrationController::CalibrationController(QWidget* window, ProjectDocument* document, Evaluator* evaluator)
    : WindowController(window), window_(window), document_(document), evaluator_(evaluator) {}

QString CalibrationController::calibrateFromNcclTests(const QStringList& logs) {
  const std::shared_ptr<const Evaluation>& evaluation = evaluator_->latest();
  if (!evaluation || !evaluation->cluster) {
    emit inlineError(tr("Calibration needs a cluster that resolves."));
    return {};
  }
  const Project& project = document_->project();
  // As meshscope-cli calibrate without --gpus (core/session/calibrate.hpp): each log on the cluster's first
  // `ranks` GPUs, the rows of at least 64 MiB, from the project's --comm keys.
  std::vector<std::string> paths;
  for (const QString& path : logs) paths.push_back(QFile::encodeName(path).toStdString());
  auto calibration = calibrate_project_from_nccl_tests(project, *evaluation->cluster, paths);
  if (!calibration) {
    emit inlineError(tr("Could not calibrate — the project is unchanged.\n%1")
                         .arg(QString::fromStdString(calibration.error().to_string())));
    return {};
  }
  emit inlineError({});
  nccl_comparison_.clear();
  for (const NcclCalibrationRow& row : calibration->rows)
    nccl_comparison_.push_back({QString::fromStdString(row.collective), row.bytes, row.measured_time_s,
                                row.before_time_s, row.after_time_s, row.measured_busbw, row.after_busbw});
  const CalibrationResult& fit = calibration->fit;
  QStringList changes;
  for (const std::string& change : fit.changes) changes << QString::fromStdString(change);
  const QString summary = tr("Mean |time error| over %1 rows of at least 64 MiB: %2 % before, %3 % after.\n%4")
                              .arg(fit.rows)
                              .arg(percent(fit.error_before), 0, 'f', 1)
                              .arg(percent(fit.error_after), 0, 'f', 1)
                              .arg(changes.join(QLatin1Char('\n')));
  document_->push(new ApplyCalibration(document_, std::move(calibration->comm_keys), project.efficiency_keys,
                                       tr("Calibrate from nccl-tests logs")));
  emit status(summary.section(QLatin1Char('\n'), 0, 0));
  return summary;
}

void CalibrationController::showNcclComparison(const QString& summary) {
  show_nccl_comparison(window_, summary, nccl_comparison_);
}

QString CalibrationController::calibrateGemmFromTrace() {
  const std::shared_ptr<const Evaluation>& evaluation = evaluator_->latest();
  const Project& project = document_->project();
  // The imported trace against this evaluation's prediction (core/session/trace_prediction.hpp).
  const std::shared_ptr<const TraceComparison> comparison =
      evaluation && evaluation->measured ? evaluation->measured->trace : nullptr;
  const TraceCompareRow* compute = comparison ? comparison->row("compute") : nullptr;
  if (compute == nullptr || !(compute->measured > 0) || !evaluation || !evaluation->cluster ||
      project.mode != Mode::training) {
    emit inlineError(tr("Import a profiler trace of this training layout first (File → Import profiler trace)."));
    return {};
  }
  // The fit is core's (core/session/calibrate.hpp); it is applied as one undoable command.
  auto calibration = calibrate_gemm_efficiency(project, *evaluation->cluster, *comparison);
  if (!calibration) {
    emit inlineError(QString::fromStdString(calibration.error().to_string()));
    return {};
  }
  emit inlineError({});
  const GemmEfficiencyHint& hint = calibration->hint;
  QString summary = tr("GEMM efficiency %1 → %2: predicted compute %3 % → %4 % from the measured %5.")
                        .arg(hint.before, 0, 'f', 3)
                        .arg(hint.after, 0, 'f', 3)
                        .arg(percent(hint.compute_error_before), 0, 'f', 1)
                        .arg(percent(hint.compute_error_after), 0, 'f', 1)
                        .arg(duration_text(calibration->measured_compute_s));
  if (hint.at_limit)
    summary +=
        tr(" The fit hit its limit: GEMMs alone cannot explain the difference (is this the layout the trace ran?).");
  document_->push(new ApplyCalibration(document_, project.comm_keys, std::move(calibration->efficiency_keys),
                                       tr("Calibrate the GEMM efficiency from the trace")));
  emit status(summary);
  return summary;
}

QString CalibrationController::calibrateGemmFromLog() {
  const std::shared_ptr<const Evaluation>& evaluation = evaluator_->latest();
  const Project& project = document_->project();
  const std::shared_ptr<const MeasuredRun>& log = evaluator_->measured().log;
  if (!log || !evaluation || !evaluation->cluster || project.mode != Mode::training) {
    emit inlineError(tr("Import a training log of this training layout first (File → Import training log)."));
    return {};
  }
  auto calibration = calibrate_gemm_from_log(project, *evaluation->cluster, *log);
  if (!calibration) {
    emit inlineError(QString::fromStdString(calibration.error().to_string()));
    return {};
  }
  emit inlineError({});
  const LogGemmHint& hint = calibration->hint;
  QString summary = tr("GEMM efficiency %1 → %2: predicted step time %3 % → %4 % from the logged %5.")
                        .arg(hint.before, 0, 'f', 3)
                        .arg(hint.after, 0, 'f', 3)
                        .arg(percent(hint.step_error_before), 0, 'f', 1)
                        .arg(percent(hint.step_error_after), 0, 'f', 1)
                        .arg(duration_text(calibration->measured_step_s));
  if (hint.at_limit)
    summary +=
        tr(" The fit hit its limit: GEMMs alone cannot explain the difference (is this the layout the log "
           "ran?).");
  document_->push(new ApplyCalibration(document_, project.comm_keys, std::move(calibration->efficiency_keys),
                                       tr("Calibrate the GEMM efficiency from the training log")));
  emit status(summary);
  return summary;
}

// ---- The menu -----------------------------------------------------------------------------------------------------

void CalibrationController::addActions(QMenu* edit) {
  QAction* calibrate_gemm = edit->addAction(tr("Calibrate GEMM efficiency from the imported &trace"));
  connect(calibrate_gemm, &QAction::triggered, this, [this] {
    const QString summary = calibrateGemmFromTrace();
    if (!summary.isEmpty()) QMessageBox::information(window_, tr("Calibration applied"), summary);
  });
  QAction* calibrate_log = edit->addAction(tr("Calibrate GEMM efficiency from the imported training &log"));
  connect(calibrate_log, &QAction::triggered, this, [this] {
    const QString summary = calibrateGemmFromLog();
    if (!summary.isEmpty()) QMessageBox::information(window_, tr("Calibration applied"), summary);
  });
  QAction* calibrate = edit->addAction(tr("&Calibrate from nccl-tests logs…"));
  connect(calibrate, &QAction::triggered, this, [this] {
    const QStringList logs = QFileDialog::getOpenFileNames(window_, tr("nccl-tests logs (run on this cluster's GPUs)"),
                                                           QString(), tr("Logs (*.log *.txt);;All files (*)"));
    if (logs.isEmpty()) return;
    const QString summary = calibrateFromNcclTests(logs);
    if (!summary.isEmpty()) showNcclComparison(summary);
  });
}

}  // namespace meshscope::ui
