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
// Everything shown is the importer's and the cost core's numbers; nothing here recomputes them.
//
// Integration (main window): create a ProfileView; call setPrediction() whenever the project's estimate changes
// (it needs the cluster too: collective bandwidths are predicted on the trace's groups); connect imported() to
// whatever should follow an import. setTrace() takes an analysis made elsewhere (the CLI's, a test's).
#include <QAbstractTableModel>
#include <QColor>
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

class QBarCategoryAxis;
class QChartView;
class QLabel;
class QMimeData;
class QProgressBar;
class QPushButton;
class QStackedBarSeries;
class QTabWidget;
class QTableView;
class QTimer;
class QValueAxis;

namespace meshscope::ui {

// ---- Item models (immutable snapshots, replaced whole in a model reset) --------------------------------------

// One row per ProfilerStep of every rank, ranks in order.
class ProfileStepModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kRank, kStep, kStepTime, kCompute, kCommunication, kExposed, kIdle, kGpuEvents };
  static constexpr int kColumnCount = kGpuEvents + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: seconds, or a count

  explicit ProfileStepModel(QObject* parent = nullptr);
  void setRun(std::shared_ptr<const KinetoRunAnalysis> run);  // nullptr empties the table

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    const KinetoRankAnalysis* rank;
    const KinetoStepBreakdown* step;
  };
  std::shared_ptr<const KinetoRunAnalysis> run_;
  std::vector<Row> rows_;
};

// One row per collective (op × process group) of every rank.
class ProfileCollectiveModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kRank, kOp, kGroup, kCount, kBytes, kTime, kAlgbw, kBusbw };
  static constexpr int kColumnCount = kBusbw + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: bytes, seconds, bytes/s (NaN when unknown), a count

  explicit ProfileCollectiveModel(QObject* parent = nullptr);
  void setRun(std::shared_ptr<const KinetoRunAnalysis> run);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    const KinetoRankAnalysis* rank;
    const KinetoCollectiveSummary* collective;
  };
  std::shared_ptr<const KinetoRunAnalysis> run_;
  std::vector<Row> rows_;
};

// The rows of a TraceComparison: quantity, measured (mean, and min–max over ranks), predicted, error, how the numbers
// were obtained.
class TraceComparisonModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kQuantity, kMeasured, kRange, kPredicted, kError, kNote };
  static constexpr int kColumnCount = kNote + 1;
  enum Role { ValueRole = Qt::UserRole + 1 };  // raw value: seconds or bytes/s; the error as a fraction; NaN: none

  explicit TraceComparisonModel(QObject* parent = nullptr);
  void setComparison(std::shared_ptr<const TraceComparison> comparison);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const TraceComparison> comparison_;
};

// ---- The breakdown chart as data --------------------------------------------------------------------------------

struct ProfileChartSpec {
  struct Set {
    QString label;           // "Compute", "Exposed communication", "Idle / bubble"
    QColor colour;           // Okabe–Ito
    std::vector<double> ms;  // one per bar: mean per step, milliseconds (the value axis' unit)
    std::vector<QString> tooltips;
  };
  QString title;            // "Step breakdown per rank · mean of 3 ProfilerSteps"
  QStringList bar_labels;   // "0", "1", ... (ranks), "predicted" ("pred." after 8 ranks)
  std::vector<Set> sets;    // compute, exposed communication, idle / bubble
  double axis_max_ms = 0;   // a whole number of steps above the tallest bar
  double axis_step_ms = 0;  // 1, 2 or 5 × 10^k
};
// One bar per rank with ProfilerSteps; a "predicted" bar when `estimate` is given.
[[nodiscard]] ProfileChartSpec profile_chart_spec(const KinetoRunAnalysis& run, const StepEstimate* estimate);

// ---- The view -----------------------------------------------------------------------------------------------------

class ProfileView final : public QWidget {
  Q_OBJECT

 public:
  explicit ProfileView(QWidget* parent = nullptr);
  ~ProfileView() override;

  // Shows an analysed run (nullptr: nothing). Keeps the prediction and recomputes the comparison.
  void setTrace(std::shared_ptr<const KinetoRunAnalysis> run);
  // The prediction for the layout the trace ran with, on `cluster` (copied). The comparison is recomputed whenever
  // trace or prediction changes; when it fails (say the layout's world size is not the trace's), its message is
  // shown inline and the measured side stays.
  void setPrediction(const StepEstimate& estimate, const Layout& layout, const Cluster& cluster,
                     const TraceCompareOptions& options = {});
  void clearPrediction();
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
  void recompare();
  void rebuildChart();
  void showMessage(const QString& text, bool error);
  void importFinished(int job);
  void updateProgress();
  void setImportingUi(bool importing);

  std::shared_ptr<const KinetoRunAnalysis> run_;
  std::optional<StepEstimate> estimate_;
  Layout layout_;
  std::optional<Cluster> cluster_;
  TraceCompareOptions options_;
  std::shared_ptr<const TraceComparison> comparison_;
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
  QChartView* chart_view_ = nullptr;
  QStackedBarSeries* bars_ = nullptr;
  QBarCategoryAxis* categories_ = nullptr;
  QValueAxis* values_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  ProfileStepModel* steps_ = nullptr;
  ProfileCollectiveModel* collectives_ = nullptr;
  TraceComparisonModel* compared_ = nullptr;
  QTableView* compared_table_ = nullptr;
  QLabel* notes_ = nullptr;  // process groups → axes and the comparison's notes
};

}  // namespace meshscope::ui
