#include "ui/window/main_window.hpp"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTextBrowser>

#include <utility>
#include <vector>

#include "ui/document/project_commands.hpp"
#include "ui/kit/view_text.hpp"
#include "ui/panels/communication_panel.hpp"
#include "ui/panels/explain_text.hpp"
#include "ui/panels/memory_panel.hpp"
#include "ui/panels/pipeline_panel.hpp"
#include "ui/panels/serving_panel.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/profile/profile_view.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/window/summary_strip.hpp"

// The main window showing an evaluation: the header, every view, the ranked layouts, the serving
// curves and the pinned comparison.
namespace meshscope::ui {

using namespace view_text;

void MainWindow::show_evaluation(std::shared_ptr<const Evaluation> evaluation) {
  evaluation_ = std::move(evaluation);
  const Evaluation& e = *evaluation_;
  const Project& p = e.project;
  // An edit that evaluates cleanly is autosaved at once (the timer catches the others).
  if (autosave_pending_ && e.problems.empty() && e.cluster_error.empty()) autosaveNow();
  workload_->setStatus(e.problems, e.budget ? QString::fromStdString(e.budget->convention) : QString(),
                       QString::fromStdString(e.cluster_error));
  summary_->showEvaluation(e);
  memory_->setBudget(e.budget);
  if (editor_needs_cluster_ && e.cluster) load_editor_cluster(*e.cluster, p);
  if (e.estimate && e.placement && !editor_needs_cluster_)
    topology_->setCommPlan(e.estimate->comm, p.layout, *e.placement);
  else if (e.serving_traffic && !editor_needs_cluster_)
    topology_->setLinkLoads(e.serving_traffic->loads, e.serving_traffic->placement);
  else
    topology_->clearCommMap();
  serving_->showResults(evaluation_.get(), search_.get());
  pipeline_->showEvaluation(e);
  communication_->showEvaluation(e);
  explain_->setHtml(explain_html(e));
  update_profile_prediction();
  status_->setText(tr("Evaluated in %1 ms").arg(1000 * e.elapsed_s, 0, 'f', 1));
  emit viewsUpdated();
}

void MainWindow::show_search(std::shared_ptr<const SearchEvaluation> search) {
  search_ = std::move(search);
  search_progress_->hide();
  cancel_search_->hide();
  if (!search_->error.empty()) {
    status_->setText(tr("Search: %1").arg(QString::fromStdString(search_->error)));
    return;
  }
  if (search_->training) {
    status_->setText(tr("Searched %1 candidates in %2 s: %3 valid")
                         .arg(static_cast<qlonglong>(search_->training->evaluated))
                         .arg(search_->elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search_->training->valid)));
    updating_ranked_ = true;
    ranked_->setResult(search_->training, RankObjective::throughput);
    updating_ranked_ = false;
    if (options_.select_best_layout && !search_->training->layouts.empty()) {
      options_.select_best_layout = false;
      apply_ranked(search_->training->layouts.front());
      updating_ranked_ = true;
      ranked_->selectRank(1);
      updating_ranked_ = false;
    }
  } else if (search_->serving) {
    status_->setText(tr("Searched %1 serving layouts in %2 s: %3 meet the target")
                         .arg(static_cast<qlonglong>(search_->serving->evaluated))
                         .arg(search_->elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search_->serving->valid)));
    updating_ranked_ = true;
    ranked_->setServingResult(search_->serving, search_->target);
    updating_ranked_ = false;
    serving_->showResults(evaluation_.get(), search_.get());
  }
  emit viewsUpdated();
}

void MainWindow::apply_ranked(const RankedLayout& ranked) {
  document_->push(new ApplyRankedLayout(
      document_,
      {ranked.layout, ranked.recompute, ranked.zero_stage, ranked.schedule, ranked.order, ranked.tp_comm_overlap},
      ranked_layout_text(ranked)));
}

void MainWindow::update_profile_prediction() {
  if (evaluation_ && evaluation_->estimate && evaluation_->cluster)
    profile_->setPrediction(*evaluation_->estimate, evaluation_->project.layout, *evaluation_->cluster);
  else
    profile_->clearPrediction();
}

ServingTarget MainWindow::serving_target() const {
  return serving_target_of(project());
}

void MainWindow::update_compare() {
  if (pinned_.size() < 2 || !evaluation_ || !evaluation_->cluster) {
    compare_->clear();
    return;
  }
  // Both pinned layouts estimated in full (event simulation, per-axis communication) for the
  // current model, workload and cluster: a few milliseconds each.
  const Router router(*evaluation_->cluster);
  std::vector<CompareSide> sides;
  for (size_t i = 0; i < 2; ++i) {
    const RankedLayout& ranked = pinned_[i];
    const Project& project = this->project();
    TrainingWorkload workload = project.training;
    workload.recompute = ranked.recompute;
    workload.zero_stage = ranked.zero_stage;
    workload.tp_comm_overlap = ranked.tp_comm_overlap;
    workload.schedule = ranked.schedule;
    auto options = project_estimate_options(project);
    if (!options) return show_inline_error(QString::fromStdString(options.error().to_string()));
    options->order = ranked.order;
    auto estimate = estimate_step(project.model, workload, ranked.layout, *evaluation_->cluster, router, *options);
    if (!estimate) {
      compare_->clear();
      return show_inline_error(QString::fromStdString(estimate.error().to_string()));
    }
    const GpuSpec gpu = cluster_gpu(*evaluation_->cluster);
    sides.push_back({ranked_layout_text(ranked), std::move(*estimate),
                     training_memory(project.model, workload, ranked.layout, gpu)});
  }
  compare_->setComparison(std::move(sides[0]), std::move(sides[1]));
  showView(QStringLiteral("compare"));
}

}  // namespace meshscope::ui
