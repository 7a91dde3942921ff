#pragma once
// Background evaluation of a project. Every edit calls request(); the evaluator debounces the
// requests, runs the cost core on a worker thread (QtConcurrent) and publishes only the result of
// the latest request ("latest wins": a result computed for a project that has since changed is
// dropped). The layout search is a second channel: it runs only when what it depends on — model,
// workload, cluster, mode — changed, may take longer, reports progress and can be cancelled.
// What the views compare with the project is computed with each evaluation on the worker: two
// pinned ranked layouts side by side (setPinned) and imported measurements against the prediction
// (setMeasured); either change re-evaluates the latest project.
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/search/search.hpp"
#include "core/session/evaluate.hpp"
#include "core/session/trace_prediction.hpp"

namespace meshscope::ui {

class Evaluator final : public QObject {
  Q_OBJECT

 public:
  explicit Evaluator(QObject* parent = nullptr);
  ~Evaluator() override;

  static constexpr int kDefaultDebounceMs = 30;
  // Debounce before an evaluation starts; 0 evaluates on the next event-loop turn.
  void setDebounceMs(int ms) { debounce_.setInterval(ms); }
  // A new state of the project; its evaluation replaces any pending one.
  void request(const Project& project);
  void setServingTarget(const ServingTarget& target);
  // The ranked layouts the comparison view shows (two of them: Evaluation::pinned_comparison; fewer: none).
  void setPinned(std::vector<RankedLayout> pinned);
  // The profiler trace and training log the profile view shows (Evaluation::measured).
  void setMeasured(MeasuredRuns measured);
  [[nodiscard]] const MeasuredRuns& measured() const { return measured_; }
  // Stops the running search; its result is dropped and searchCancelled() is emitted.
  void cancelSearch();
  // Until the finished handlers have run (QFutureWatcher::isRunning turns false on the worker
  // thread, before the result is delivered here).
  [[nodiscard]] bool searching() const { return search_running_; }
  [[nodiscard]] bool busy() const { return debounce_.isActive() || has_pending_ || evaluating_ || search_running_; }
  [[nodiscard]] const std::shared_ptr<const Evaluation>& latest() const { return latest_result_; }
  [[nodiscard]] const std::shared_ptr<const SearchEvaluation>& latestSearch() const { return latest_search_; }
  // Sends the latest evaluation again (the chart theme changed: the views rebuild their charts).
  void republish();

 signals:
  void evaluated(std::shared_ptr<const meshscope::Evaluation> evaluation);
  void searchStarted();
  void searched(std::shared_ptr<const meshscope::SearchEvaluation> search);
  void searchCancelled();

 private:
  void start();
  void reevaluate();  // the latest project again, with what it is compared with now
  void start_search();
  void on_finished();
  void on_search_finished();

  QTimer debounce_;
  Project pending_;
  uint64_t generation_ = 0;
  bool has_pending_ = false;
  bool evaluating_ = false;
  bool search_running_ = false;
  QFutureWatcher<Evaluation> watcher_;
  std::shared_ptr<ClusterCache> cache_ = std::make_shared<ClusterCache>();
  std::vector<RankedLayout> pinned_;
  MeasuredRuns measured_;
  std::shared_ptr<const Evaluation> latest_result_;
  std::shared_ptr<const SearchEvaluation> latest_search_;

  QFutureWatcher<SearchEvaluation> search_watcher_;
  std::optional<Project> searched_;  // the search_inputs of the last search started
  std::optional<Project> search_pending_;
  ServingTarget target_;
  std::shared_ptr<std::atomic<bool>> search_cancel_;
  uint64_t search_generation_ = 0;
};

}  // namespace meshscope::ui
