#include "ui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTableView>
#include <QTextBrowser>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <utility>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/catalogue.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/node_topology.hpp"
#include "core/model_io.hpp"
#include "core/report.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "ui/comm_table_model.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/formatting.hpp"
#include "ui/layout_compare.hpp"
#include "ui/main_window_text.hpp"
#include "ui/memory_chart.hpp"
#include "ui/memory_table_model.hpp"
#include "ui/padded_item_delegate.hpp"
#include "ui/pipeline_chart.hpp"
#include "ui/profile_view.hpp"
#include "ui/ranked_layouts_model.hpp"
#include "ui/ranked_layouts_panel.hpp"
#include "ui/serving_chart.hpp"
#include "ui/topology_editor.hpp"
#include "ui/workload_panel.hpp"

// The main window showing an evaluation: the header, every view, the ranked layouts, the serving
// curves and the pinned comparison.
namespace meshscope::ui {

using namespace window_text;

void MainWindow::show_evaluation(std::shared_ptr<const Evaluation> evaluation) {
  evaluation_ = std::move(evaluation);
  const Evaluation& e = *evaluation_;
  const Project& p = e.project;
  // An edit that evaluates cleanly is autosaved at once (the timer catches the others).
  if (autosave_pending_ && e.problems.empty() && e.cluster_error.empty()) autosaveNow();
  workload_->setStatus(e.problems, e.budget ? QString::fromStdString(e.budget->convention) : QString(),
                       QString::fromStdString(e.cluster_error));
  if (!e.problems.empty()) {
    header_->setText(problems_header_html(p, e.problems));
  } else if (e.budget) {
    header_->setText(budget_header_html(p, *e.budget));
  }
  memory_model_->setBudget(e.budget);
  memory_chart_->setBudget(e.budget);
  if (editor_needs_cluster_ && e.cluster) {
    editor_needs_cluster_ = false;
    loading_cluster_ = true;
    topology_->setCluster(*e.cluster);
    loading_cluster_ = false;
    if (const auto state = p.view.find("topology"); state != p.view.end() && state->is_object())
      topology_->setViewState(*state);
  }
  if (e.estimate && e.placement && !editor_needs_cluster_)
    topology_->setCommPlan(e.estimate->comm, p.layout, *e.placement);
  else if (e.serving_traffic && !editor_needs_cluster_)
    topology_->setLinkLoads(e.serving_traffic->loads, e.serving_traffic->placement);
  else
    topology_->clearCommMap();
  update_serving_chart();

  QString summary;
  if (e.estimate) {
    const StepEstimate& s = *e.estimate;
    summary = tr("Predicted step <b>%1 s</b> · %2 tokens/s per GPU · MFU <b>%3 %</b> · bubble %4 %")
                  .arg(s.step_time_s, 0, 'f', 2)
                  .arg(s.tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(100 * s.mfu, 0, 'f', 1)
                  .arg(100 * s.bubble_fraction, 0, 'f', 1);
    if (e.cluster) summary += tr(" · on %1").arg(html(e.cluster->name));
  } else if (e.serving) {
    const ServingEstimate& s = *e.serving;
    summary = tr("TTFT <b>%1</b> · ITL <b>%2</b> · %3 output tokens/s per GPU · max batch %4 · bound by %5")
                  .arg(duration_text(s.point.ttft_s), duration_text(s.point.itl_s))
                  .arg(s.output_tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(static_cast<qlonglong>(s.max_batch))
                  .arg(QString::fromStdString(std::string(serving_binding_name(s.point.binding))));
  } else if (!e.estimate_error.empty()) {
    summary = QStringLiteral("<span style=\"color:%1\">%2</span>").arg(kProblemColour, html(e.estimate_error));
  }
  summary_->setText(summary);

  if (e.estimate) {
    pipeline_caption_->setText(schedule_caption(*e.estimate));
    pipeline_chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    comm_model_->setPlan(std::shared_ptr<const CommPlan>(e.estimate, &e.estimate->comm));
    // What each axis adds to the step after overlap (docs/estimate.md lists the overlap rules).
    const StepBreakdown& b = e.estimate->breakdown;
    comm_exposed_->setText(
        tr("<b>Exposed per step</b> (not hidden behind compute): TP %1 · CP %2 · EP %3 · PP send/recv %4 · "
           "DP %5 — of a %6 step. Time/step below is the collectives' total, overlapped or not.")
            .arg(duration_text(b.tp_exposed_s), duration_text(b.cp_exposed_s), duration_text(b.ep_exposed_s),
                 duration_text(b.pp_p2p_s), duration_text(b.dp_exposed_s), duration_text(e.estimate->step_time_s)));
  } else {
    pipeline_caption_->setText(e.problems.empty() ? tr("No pipeline (serving, or no cluster).")
                                                  : tr("The layout is not valid."));
    pipeline_chart_->setSchedule({}, PipelineSchedule::one_f_one_b);
    comm_model_->setPlan(nullptr);
    comm_exposed_->clear();
  }
  // The second chart: the comparison schedule on the same time axis, or else a zoom on the
  // warm-up, where with hundreds of micro-batches the bubble and the block numbers are legible.
  pipeline_chart_->setTimeWindow(0, 0);
  const double warm_up_end = e.estimate ? warm_up_window_s(e.estimate->schedule) : 0.0;
  if (e.compare_estimate) {
    compare_caption_->setText(tr("compared with ") + schedule_caption(*e.compare_estimate));
    compare_chart_->setSchedule(e.compare_estimate->schedule, e.compare_estimate->pipeline_schedule);
    const double end = std::max(e.estimate->schedule.makespan_s, e.compare_estimate->schedule.makespan_s);
    pipeline_chart_->setTimeWindow(0, end);
    compare_chart_->setTimeWindow(0, end);
  } else if (warm_up_end > 0) {
    compare_caption_->setText(tr("the warm-up, zoomed: first %1").arg(duration_text(warm_up_end)));
    compare_chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    compare_chart_->setTimeWindow(0, warm_up_end);
  }
  if (!e.compare_error.empty()) {
    compare_caption_->setText(QStringLiteral("<span style=\"color:%1\">%2</span>")
                                  .arg(kProblemColour, tr("Cannot compare: %1").arg(html(e.compare_error))));
    compare_caption_->show();
  }
  const bool second = e.compare_estimate != nullptr || warm_up_end > 0;
  compare_chart_->setVisible(second);
  compare_caption_->setVisible(second || !e.compare_error.empty());
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
    update_serving_chart();
  }
  emit viewsUpdated();
}

void MainWindow::apply_ranked(const RankedLayout& ranked) {
  document_->push(new ApplyRankedLayout(
      document_, {ranked.layout, ranked.recompute, ranked.zero_stage, ranked.schedule, ranked.order},
      ranked_layout_text(ranked)));
}

void MainWindow::update_profile_prediction() {
  if (evaluation_ && evaluation_->estimate && evaluation_->cluster)
    profile_->setPrediction(*evaluation_->estimate, evaluation_->project.layout, *evaluation_->cluster);
  else
    profile_->clearPrediction();
}

ServingTarget MainWindow::serving_target() const {
  ServingTarget target;
  if (ttft_target_->value() > 0) target.max_ttft_s = ttft_target_->value() / 1e3;
  if (itl_target_->value() > 0) target.max_itl_s = itl_target_->value() / 1e3;
  return target;
}

void MainWindow::update_serving_chart() {
  std::vector<ServingCurve> curves;
  if (evaluation_ && evaluation_->serving)
    curves.push_back({tr("current: %1").arg(serving_layout_label(evaluation_->project.serving_layout)),
                      evaluation_->project.serving_layout, *evaluation_->serving});
  if (search_ && search_->serving && evaluation_ && evaluation_->project.mode == Mode::serving) {
    int rank = 0;
    for (const SearchEvaluation::ServingCurveOf& curve : search_->curves)
      curves.push_back(
          {tr("#%1: %2").arg(++rank).arg(serving_layout_label(curve.layout)), curve.layout, curve.estimate});
  }
  serving_chart_->setCurves(std::move(curves));
  serving_chart_->setTarget(serving_target());
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
    auto options = project_estimate_options(project);
    if (!options) return show_inline_error(QString::fromStdString(options.error().to_string()));
    options->schedule = ranked.schedule;
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
