#include "ui/document/evaluator.hpp"

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "core/session/compare_layouts.hpp"
#include "ui/document/project_commands.hpp"

namespace meshscope::ui {

namespace {

// The pipeline view's comparison is view state ("compare_schedule", saved with the project); the
// core is asked for it explicitly.
EvaluateRequest request_of(const Project& project) {
  EvaluateRequest request;
  const auto compare = project.view.find(kCompareScheduleKey);
  if (compare != project.view.end() && compare->is_string())
    request.compare_schedule = parse_enum_ignoring_case<PipelineSchedule>(compare->get<std::string>());
  return request;
}

// What the views compare with the evaluation, computed with it on the worker thread: the pinned ranked layouts
// side by side (on the cluster the evaluation resolved, with its router), and the measurements against the prediction.
void add_comparisons(Evaluation& evaluation, const ClusterCache& cache, const std::vector<RankedLayout>& pinned,
                     const MeasuredRuns& measured) {
  if (pinned.size() >= 2 && evaluation.cluster && cache.router)
    evaluation.pinned_comparison = std::make_shared<const LayoutComparison>(
        compare_layouts(evaluation.project, *evaluation.cluster, *cache.router, pinned));
  if (measured.trace || measured.log)
    evaluation.measured = std::make_shared<const TracePrediction>(compare_with_prediction(measured, evaluation));
}

}  // namespace

Evaluator::Evaluator(QObject* parent) : QObject(parent) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(kDefaultDebounceMs);
  connect(&debounce_, &QTimer::timeout, this, &Evaluator::start);
  connect(&watcher_, &QFutureWatcher<Evaluation>::finished, this, &Evaluator::on_finished);
  connect(&search_watcher_, &QFutureWatcher<SearchEvaluation>::finished, this, &Evaluator::on_search_finished);
}

Evaluator::~Evaluator() {
  // The workers hold copies of everything they use; wait so that no signal outlives us.
  if (search_cancel_) search_cancel_->store(true);
  watcher_.waitForFinished();
  search_watcher_.waitForFinished();
}

void Evaluator::request(const Project& project) {
  pending_ = project;
  has_pending_ = true;
  ++generation_;
  debounce_.start();
  // (Copying the project without its layout and comparing it field by field, an inline cluster included, is the
  // costly part: once per request.)
  if (Project inputs = search_inputs(project); !searched_ || *searched_ != inputs) {
    searched_ = std::move(inputs);
    search_pending_ = project;
    if (!search_running_) start_search();
  }
}

void Evaluator::setServingTarget(const ServingTarget& target) {
  target_ = target;
  if (latest_result_ && latest_result_->project.mode == Mode::serving) {
    search_pending_ = latest_result_->project;
    if (!search_running_) start_search();
  }
}

void Evaluator::setPinned(std::vector<RankedLayout> pinned) {
  pinned_ = std::move(pinned);
  reevaluate();
}

void Evaluator::setMeasured(MeasuredRuns measured) {
  measured_ = std::move(measured);
  reevaluate();
}

void Evaluator::reevaluate() {
  if (generation_ == 0) return;  // nothing requested yet: the first request takes them
  has_pending_ = true;
  ++generation_;
  debounce_.start();
}

void Evaluator::start() {
  if (!has_pending_) return;
  if (evaluating_) return;  // on_finished starts the latest request
  has_pending_ = false;
  evaluating_ = true;
  const uint64_t generation = generation_;
  std::shared_ptr<ClusterCache> cache = cache_;
  watcher_.setFuture(QtConcurrent::run([project = pending_, generation, cache, pinned = pinned_, measured = measured_] {
    Evaluation evaluation = evaluate_project(project, *cache, request_of(project));
    evaluation.generation = generation;
    add_comparisons(evaluation, *cache, pinned, measured);
    return evaluation;
  }));
}

void Evaluator::on_finished() {
  evaluating_ = false;
  Evaluation result = watcher_.result();
  if (result.generation == generation_) {
    latest_result_ = std::make_shared<const Evaluation>(std::move(result));
    emit evaluated(latest_result_);
  }
  if (has_pending_ && !debounce_.isActive()) start();
}

void Evaluator::start_search() {
  if (!search_pending_) return;
  search_cancel_ = std::make_shared<std::atomic<bool>>(false);
  search_running_ = true;
  const uint64_t generation = ++search_generation_;
  emit searchStarted();
  search_watcher_.setFuture(
      QtConcurrent::run([project = std::move(*search_pending_), target = target_, cancel = search_cancel_, generation] {
        SearchEvaluation search = search_project(project, target, *cancel);
        search.generation = generation;
        return search;
      }));
  search_pending_.reset();
}

void Evaluator::cancelSearch() {
  if (!search_running_) return;
  search_cancel_->store(true);
  search_pending_.reset();
  emit searchCancelled();
}

void Evaluator::on_search_finished() {
  search_running_ = false;
  SearchEvaluation result = search_watcher_.result();
  // A newer search waits: this one is stale.
  if (search_pending_) {
    start_search();
    return;
  }
  if (result.cancelled) {
    searched_.reset();  // a later edit searches again
    return;
  }
  latest_search_ = std::make_shared<const SearchEvaluation>(std::move(result));
  emit searched(latest_search_);
}

void Evaluator::republish() {
  if (latest_result_) emit evaluated(latest_result_);
}

}  // namespace meshscope::ui
