#pragma once
// Background evaluation of a project. Every edit calls request(); the evaluator debounces the
// requests, runs the cost core on a worker thread (QtConcurrent) and publishes only the result of
// the latest request ("latest wins": a result computed for a project that has since changed is
// dropped). The layout search is a second channel: it runs only when what it depends on — model,
// workload, cluster, mode — changed, may take longer, reports progress and can be cancelled.
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/memory.hpp"
#include "core/project.hpp"
#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "core/serving/serving_traffic.hpp"
#include "core/topology/routing.hpp"

namespace meshscope::ui {

// Everything the views show for one state of the project.
struct Evaluation {
  uint64_t generation = 0;
  Project project;
  std::vector<LayoutProblem> problems;           // empty: the layout is valid
  std::shared_ptr<const MemoryBudget> budget;    // valid layouts
  std::shared_ptr<const Cluster> cluster;        // when it resolves
  std::string cluster_error;                     // why it does not
  std::shared_ptr<const StepEstimate> estimate;  // training, valid layout, cluster resolved
  std::shared_ptr<const Placement> placement;    // of the layout on the cluster, with the estimate
  // The same layout under a second pipeline schedule (view state "compare_schedule"), drawn below.
  std::shared_ptr<const StepEstimate> compare_estimate;
  std::string compare_error;  // why the second schedule cannot run this layout
  std::shared_ptr<const ServingEstimate> serving;
  std::shared_ptr<const ServingTrafficMap> serving_traffic;  // the map of one decode iteration
  std::string estimate_error;
  double elapsed_s = 0;
};

struct SearchEvaluation {
  // Serving: the latency–throughput curves of the best colocated layouts, for the chart.
  struct ServingCurveOf {
    ServingLayout layout;
    ServingEstimate estimate;
  };
  uint64_t generation = 0;
  Project project;  // the project searched (its layout is irrelevant)
  std::shared_ptr<const SearchResult> training;
  std::shared_ptr<const ServingRankResult> serving;
  ServingTarget target;
  std::vector<ServingCurveOf> curves;
  std::string error;
  bool cancelled = false;
  double elapsed_s = 0;
};

// Evaluates one project synchronously (the worker's body; also used by tests and the benchmark).
// `cache` keeps the last resolved cluster: generating a 2,048-node cluster is not free.
struct ClusterCache {
  std::string key;
  std::shared_ptr<const Cluster> cluster;
  std::shared_ptr<const Router> router;
};
[[nodiscard]] Evaluation evaluate_project(const Project& project, ClusterCache& cache);
[[nodiscard]] SearchEvaluation search_project(const Project& project, const ServingTarget& target,
                                              const std::atomic<bool>& cancel);

// The key that decides whether a search must run again (everything but the layout and view).
[[nodiscard]] std::string search_key(const Project& project);

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
  // Stops the running search; its result is dropped and searchCancelled() is emitted.
  void cancelSearch();
  // Until the finished handlers have run (QFutureWatcher::isRunning turns false on the worker
  // thread, before the result is delivered here).
  [[nodiscard]] bool searching() const { return search_running_; }
  [[nodiscard]] bool busy() const { return debounce_.isActive() || has_pending_ || evaluating_ || search_running_; }
  [[nodiscard]] const std::shared_ptr<const Evaluation>& latest() const { return latest_result_; }

 signals:
  void evaluated(std::shared_ptr<const meshscope::ui::Evaluation> evaluation);
  void searchStarted();
  void searched(std::shared_ptr<const meshscope::ui::SearchEvaluation> search);
  void searchCancelled();

 private:
  void start();
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
  std::shared_ptr<const Evaluation> latest_result_;

  QFutureWatcher<SearchEvaluation> search_watcher_;
  std::string searched_key_;
  std::optional<Project> search_pending_;
  ServingTarget target_;
  std::shared_ptr<std::atomic<bool>> search_cancel_;
  uint64_t search_generation_ = 0;
};

}  // namespace meshscope::ui
