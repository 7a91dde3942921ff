#pragma once
// The profile view: an imported PyTorch profiler (Kineto) trace, one file per rank, beside the prediction for the
// layout it ran with.
//   - a stacked bar per rank: compute / exposed communication / idle per ProfilerStep (mean over the rank's steps),
//     and, once a prediction is set, a "predicted" bar (compute / exposed communication / pipeline bubble);
//   - tables: every ProfilerStep of every rank, every collective of every rank (op, group, count, bytes, time,
//     algbw, busbw), and measured vs predicted (core/calibration/trace_compare.hpp) with the relative error;
//   - an importer: startImport() (or dropping .json / .json.gz files on the view) loads and analyses the files on
//     a worker thread (QtConcurrent), shows a progress bar and a Cancel button, and reports a bad file inline in
//     red (file, line, column, byte) while the trace already shown stays as it was.
// Everything shown is the importer's and the cost core's numbers; nothing here recomputes them: the comparisons
// are the evaluation's (Evaluation::measured, core/session/trace_prediction.hpp), computed on the evaluator's
// worker with the prediction for the trace and log shown here. The tables are ui/profile/profile_models.hpp, the
// chart's data ui/profile/profile_chart_spec.hpp, its drawing ui/charts/profile_chart.hpp.
//
// Integration (main window): a ProfileView on the evaluator hands it the trace and log it shows and shows each
// evaluation; connect imported() to whatever should follow an import. setTrace() takes an analysis made elsewhere
// (the CLI's, a test's); showEvaluation() an evaluation made elsewhere.
#include <QFutureWatcher>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "core/calibration/trace_compare.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/training_log.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/profile/profile_chart_spec.hpp"
#include "ui/profile/profile_models.hpp"

class QLabel;
class QMimeData;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTimer;

namespace meshscope::ui {

class ProfileChart;

// ---- The view -----------------------------------------------------------------------------------------------------

class ProfileView final : public QWidget {
  Q_OBJECT

 public:
  // Hands `evaluator` the trace and log shown and shows each of its evaluations; null: only what it is given.
  explicit ProfileView(Evaluator* evaluator = nullptr, QWidget* parent = nullptr);
  ~ProfileView() override;

  // Shows an analysed run (nullptr: nothing); the comparison follows with the next evaluation of it.
  void setTrace(std::shared_ptr<const KinetoRunAnalysis> run);
  // An evaluation: its prediction, and its comparisons (Evaluation::measured) where they are of the trace and log
  // shown here. When the trace's fails (say the layout's world size is not the trace's), its message is shown
  // inline and the measured side stays.
  void showEvaluation(std::shared_ptr<const Evaluation> evaluation);
  // A training log (core/importers/training_log.hpp; nullptr: none), compared with the prediction in its own tab
  // (core/calibration/log_compare.hpp).
  void setTrainingLog(std::shared_ptr<const MeasuredRun> log);
  // Removes trace, prediction and any message; cancels a running import.
  void clear();

  // Loads and analyses the files (one per rank) on a worker thread; a running import is cancelled (the latest wins).
  void startImport(const QStringList& paths);
  void cancelImport();
  [[nodiscard]] bool isImporting() const;

  // The trace files among dropped URLs: local .json and .json.gz files (drag and drop uses it).
  [[nodiscard]] static QStringList traceFiles(const QMimeData* mime);

  // For tests and the main window.
  [[nodiscard]] const std::shared_ptr<const KinetoRunAnalysis>& trace() const { return run_; }
  [[nodiscard]] const std::shared_ptr<const TraceComparison>& comparison() const { return comparison_; }
  [[nodiscard]] const ProfileChartSpec& chartSpec() const { return spec_; }
  [[nodiscard]] ProfileStepModel* stepModel() const { return steps_; }
  [[nodiscard]] ProfileCollectiveModel* collectiveModel() const { return collectives_; }
  [[nodiscard]] TraceComparisonModel* comparisonModel() const { return compared_; }
  [[nodiscard]] const std::shared_ptr<const MeasuredRun>& trainingLog() const { return log_; }
  [[nodiscard]] const std::shared_ptr<const LogComparison>& logComparison() const { return log_comparison_; }
  [[nodiscard]] LogComparisonModel* logComparisonModel() const { return log_compared_; }
  [[nodiscard]] QString messageText() const;  // the inline error or status line ("" when none)
  [[nodiscard]] bool messageIsError() const { return message_is_error_; }
  // Bar values drawn by the chart adapter (ms), to check it against the spec.
  [[nodiscard]] std::vector<double> drawnValues(int set) const;

  [[nodiscard]] QSize sizeHint() const override;

 signals:
  void imported();     // a successful import replaced the trace
  void importEnded();  // after every import: succeeded, failed or cancelled

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  struct ImportOutcome {
    std::shared_ptr<const KinetoRunAnalysis> run;
    std::optional<Error> error;
    bool cancelled = false;
  };
  struct ImportJob {
    std::atomic<bool> cancel{false};
    std::atomic<int64_t> bytes_read{0};
    int64_t bytes_total = 0;
  };
  // The evaluation's comparisons when it has a prediction (null otherwise).
  [[nodiscard]] const TracePrediction* prediction() const;
  void measuredChanged();  // the trace or log shown changed: the evaluator compares them next
  void recompare();
  void recompareLog();
  void rebuildChart();
  void showMessage(const QString& text, bool error);
  void updateProgress();
  void setImportingUi(bool importing);

  Evaluator* evaluator_ = nullptr;
  std::shared_ptr<const KinetoRunAnalysis> run_;
  std::shared_ptr<const Evaluation> evaluation_;
  std::shared_ptr<const TraceComparison> comparison_;
  std::shared_ptr<const MeasuredRun> log_;
  std::shared_ptr<const LogComparison> log_comparison_;
  ProfileChartSpec spec_;
  bool message_is_error_ = false;

  int job_id_ = 0;
  std::shared_ptr<ImportJob> job_;
  QFutureWatcher<ImportOutcome>* watcher_ = nullptr;
  QTimer* progress_timer_ = nullptr;

  QLabel* title_ = nullptr;
  QLabel* message_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  ProfileChart* chart_ = nullptr;  // ui/charts/profile_chart.hpp
  QTabWidget* tabs_ = nullptr;
  ProfileStepModel* steps_ = nullptr;
  ProfileCollectiveModel* collectives_ = nullptr;
  TraceComparisonModel* compared_ = nullptr;
  QTableView* compared_table_ = nullptr;
  QLabel* notes_ = nullptr;  // process groups → axes and the comparison's notes
  LogComparisonModel* log_compared_ = nullptr;
  QTableView* log_table_ = nullptr;
  QLabel* log_notes_ = nullptr;  // the log's framework, iterations, warm-up and the comparison's notes
};

}  // namespace meshscope::ui
