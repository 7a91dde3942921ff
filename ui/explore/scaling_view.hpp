#pragma once
// The scaling view (issue 17 §2): weak or strong scaling of the current project's model and workload over its
// cluster family (its generator string, the node count varied) from one GPU count to another (powers of two):
// the layout search's best layout at each size, throughput, tokens/s per GPU and the scaling efficiency with
// its baseline and definition stated, and where the best layout changes — a chart and a table. The searches
// run in the background (latest request wins, the previous one cancelled); double-clicking a point applies its
// GPU count, global batch and best layout to the project as one undoable command.
#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/project/project.hpp"
#include "core/search/scaling_result.hpp"
#include "ui/kit/snapshot_table_model.hpp"

class QComboBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace meshscope::ui {

class ProjectDocument;
class ScalingChart;

class ScalingPointModel final : public SnapshotTableModel<ScalingPoint> {
  Q_OBJECT

 public:
  enum Column { kGpus, kBatch, kLayout, kStep, kTokens, kTokensPerGpu, kMfu, kEfficiency, kChange };
  enum Role { ValueRole = Qt::UserRole + 1 };
  explicit ScalingPointModel(QObject* parent = nullptr);
  void setResult(const std::shared_ptr<const ScalingResult>& result);
};

class ScalingView final : public QWidget {
  Q_OBJECT

 public:
  explicit ScalingView(ProjectDocument* document, QWidget* parent = nullptr);
  ~ScalingView() override;

  // The controls; each change starts a new run (once the view is shown).
  void setMode(ScalingMode mode);
  void setRange(int64_t from_gpus, int64_t to_gpus);
  [[nodiscard]] bool computing() const { return running_; }
  [[nodiscard]] const std::shared_ptr<const ScalingResult>& result() const { return result_; }
  [[nodiscard]] ScalingChart* chart() const { return chart_; }
  [[nodiscard]] ScalingPointModel* model() const { return model_; }
  [[nodiscard]] QTableView* table() const { return table_; }
  // Applies a point of the result (its index) to the project: one undo step. False if it is not valid.
  bool applyPoint(size_t point);

 signals:
  void computed();  // a run finished (result() or the error caption is current)

 private:
  struct Outcome {
    std::shared_ptr<const ScalingResult> result;
    QString error;
  };
  void projectChanged();
  void request();  // start() now when shown, else when next shown (a hidden tab runs no searches)
  void start();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void finished(uint64_t generation, const Outcome& outcome);

  ProjectDocument* document_;
  QComboBox* mode_ = nullptr;
  QSpinBox* from_ = nullptr;
  QSpinBox* to_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* caption_ = nullptr;
  ScalingChart* chart_ = nullptr;
  ScalingPointModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  std::shared_ptr<const ScalingResult> result_;
  std::optional<Project> inputs_;  // search_inputs of the project last run
  std::shared_ptr<std::atomic<bool>> cancel_;
  uint64_t generation_ = 0;
  bool running_ = false;
  bool stale_ = false;
};

}  // namespace meshscope::ui
