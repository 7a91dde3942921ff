#pragma once
// The sweep view: a sweep's JSON lines (meshscope-cli sweep, docs/sweeps.md) as a chart — the best layout's
// tokens/s per GPU, tokens/s or cost per million tokens against the GPU count, one series per model and cluster
// family, the Pareto front of speed against efficiency ringed — and a table of every point (its inputs, best
// layout, figures, and why nothing fits where nothing does). Double-clicking a point (chart or table) asks the
// main window to open it as the project. Everything shown is the file's: nothing is re-estimated.
#include <QWidget>

#include <cstddef>
#include <memory>

#include "core/session/sweep_results.hpp"
#include "ui/explore/sweep_chart_spec.hpp"
#include "ui/kit/snapshot_table_model.hpp"

class QComboBox;
class QLabel;
class QTableView;

namespace meshscope::ui {

class SweepChart;

struct SweepRow {
  SweepResultPoint point;
  bool on_front = false;
};

class SweepPointModel final : public SnapshotTableModel<SweepRow> {
  Q_OBJECT

 public:
  enum Column {
    kIndex,
    kModel,
    kCluster,
    kGpus,
    kWorkload,
    kObjective,
    kLayout,
    kTokensPerGpu,
    kMfu,
    kStep,
    kCost,
    kFront,
    kReason
  };
  enum Role { ValueRole = Qt::UserRole + 1 };
  explicit SweepPointModel(QObject* parent = nullptr);
  void setResults(const SweepResults& results);
};

class SweepView final : public QWidget {
  Q_OBJECT

 public:
  explicit SweepView(QWidget* parent = nullptr);
  void setResults(std::shared_ptr<const SweepResults> results, const QString& origin);
  void setMetric(SweepMetric metric);
  [[nodiscard]] const std::shared_ptr<const SweepResults>& results() const { return results_; }
  [[nodiscard]] SweepChart* chart() const { return chart_; }
  [[nodiscard]] SweepPointModel* model() const { return model_; }
  [[nodiscard]] QSize sizeHint() const override { return {1400, 860}; }

 signals:
  void openPoint(const meshscope::SweepResultPoint& point);

 private:
  void rebuild();

  std::shared_ptr<const SweepResults> results_;
  SweepMetric metric_ = SweepMetric::tokens_per_s_per_gpu;
  QLabel* title_ = nullptr;
  QComboBox* metric_box_ = nullptr;
  SweepChart* chart_ = nullptr;
  SweepPointModel* model_ = nullptr;
  QTableView* table_ = nullptr;
};

}  // namespace meshscope::ui
