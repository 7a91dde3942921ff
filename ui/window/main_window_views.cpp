// The main window following the document and the evaluator: the evaluation's requests, the topology
// editor's cluster and communication map, the status line, and the best-ranked layout applied once.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <utility>
#include <vector>

#include "ui/document/project_commands.hpp"
#include "ui/panels/serving_panel.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/window/main_window.hpp"

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

}  // namespace meshscope::ui
