// The main window following the document and the evaluator: the evaluation's requests, the topology
// editor's cluster and communication map, the status line, the best-ranked layout applied once, and
// the pinned comparison.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <utility>
#include <vector>

#include "ui/document/project_commands.hpp"
#include "ui/panels/serving_panel.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/summary_strip.hpp"

namespace meshscope::ui {

void MainWindow::on_document_changed(ProjectDocument::Change change) {
  if (change == ProjectDocument::Change::reset) {
    // A new project: its arrangement, and its evaluation at once.
    editor_needs_cluster_ = true;
    applyViewState(project().view);
    evaluator_->setServingTarget(serving_target_of(project()));
    evaluator_->setDebounceMs(0);
    evaluator_->request(project());
    evaluator_->setDebounceMs(Evaluator::kDefaultDebounceMs);
    return;
  }
  if (change == ProjectDocument::Change::serving_target) {
    evaluator_->setServingTarget(serving_target_of(project()));
    return;
  }
  // A cluster chosen elsewhere (a generator, an import, their undo or redo) replaces the one in
  // the editor at once: the topology steps next to this one in the history were made on it.
  if (change == ProjectDocument::Change::cluster) {
    if (project().cluster_inline) {
      load_editor_cluster(*project().cluster_inline, project());
    } else if (Result<Cluster> cluster = project_cluster(project())) {
      load_editor_cluster(*cluster, project());
    } else {
      editor_needs_cluster_ = true;  // the evaluation says why it does not resolve
    }
  }
  evaluator_->request(project());
}

void MainWindow::load_editor_cluster(const Cluster& cluster, const Project& project) {
  editor_needs_cluster_ = false;
  loading_cluster_ = true;
  topology_->setCluster(cluster);
  loading_cluster_ = false;
  if (const auto state = project.view.find("topology"); state != project.view.end() && state->is_object())
    topology_->setViewState(*state);
}

void MainWindow::on_evaluated(const Evaluation& e) {
  if (editor_needs_cluster_ && e.cluster) load_editor_cluster(*e.cluster, e.project);
  if (e.estimate && e.placement && !editor_needs_cluster_)
    topology_->setCommPlan(e.estimate->comm, e.project.layout, *e.placement);
  else if (e.serving_traffic && !editor_needs_cluster_)
    topology_->setLinkLoads(e.serving_traffic->loads, e.serving_traffic->placement);
  else
    topology_->clearCommMap();
  status_->setText(tr("Evaluated in %1 ms").arg(1000 * e.elapsed_s, 0, 'f', 1));
  emit viewsUpdated();
}

void MainWindow::on_searched(const SearchEvaluation& search) {
  search_progress_->hide();
  cancel_search_->hide();
  if (!search.error.empty()) {
    status_->setText(tr("Search: %1").arg(QString::fromStdString(search.error)));
    return;
  }
  if (search.training) {
    status_->setText(tr("Searched %1 candidates in %2 s: %3 valid")
                         .arg(static_cast<qlonglong>(search.training->evaluated))
                         .arg(search.elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search.training->valid)));
    if (select_best_layout_ && !search.training->layouts.empty()) {
      select_best_layout_ = false;
      apply_ranked(search.training->layouts.front());
      ranked_->selectRank(1, false);
    }
  } else if (search.serving) {
    status_->setText(tr("Searched %1 serving layouts in %2 s: %3 meet the target")
                         .arg(static_cast<qlonglong>(search.serving->evaluated))
                         .arg(search.elapsed_s, 0, 'f', 2)
                         .arg(static_cast<qlonglong>(search.serving->valid)));
  }
  emit viewsUpdated();
}

void MainWindow::apply_ranked(const RankedLayout& ranked) {
  document_->push(new ApplyRankedLayout(
      document_,
      {ranked.layout, ranked.recompute, ranked.zero_stage, ranked.schedule, ranked.order, ranked.tp_comm_overlap},
      ranked_layout_text(ranked)));
}

void MainWindow::update_compare(const std::vector<RankedLayout>& pinned) {
  const std::shared_ptr<const Evaluation>& evaluation = evaluator_->latest();
  if (pinned.size() < 2 || !evaluation || !evaluation->cluster) {
    compare_->clear();
    return;
  }
  // Both pinned layouts estimated in full (event simulation, per-axis communication) for the
  // current model, workload and cluster: a few milliseconds each.
  const Router router(*evaluation->cluster);
  std::vector<CompareSide> sides;
  for (size_t i = 0; i < 2; ++i) {
    const RankedLayout& ranked = pinned[i];
    const Project& project = this->project();
    TrainingWorkload workload = project.training;
    workload.recompute = ranked.recompute;
    workload.zero_stage = ranked.zero_stage;
    workload.tp_comm_overlap = ranked.tp_comm_overlap;
    workload.schedule = ranked.schedule;
    auto options = project_estimate_options(project);
    if (!options) return summary_->setError(QString::fromStdString(options.error().to_string()));
    options->order = ranked.order;
    auto estimate = estimate_step(project.model, workload, ranked.layout, *evaluation->cluster, router, *options);
    if (!estimate) {
      compare_->clear();
      return summary_->setError(QString::fromStdString(estimate.error().to_string()));
    }
    const GpuSpec gpu = cluster_gpu(*evaluation->cluster);
    sides.push_back({ranked_layout_text(ranked), std::move(*estimate),
                     training_memory(project.model, workload, ranked.layout, gpu)});
  }
  compare_->setComparison(std::move(sides[0]), std::move(sides[1]));
  showView(QStringLiteral("compare"));
}

}  // namespace meshscope::ui
