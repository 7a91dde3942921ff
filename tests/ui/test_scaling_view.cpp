// The scaling view (ui/explore/scaling_view.hpp) on a small project (GPT-2 on one to four DGX H100 nodes): the chart
// spec is the core's scaling result as data (core/session/scaling.hpp), the adapter draws what the spec says, the table
// is the result's points, and double-clicking a point applies its size and best layout in one undo step.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSpinBox>
#include <QUndoStack>

#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/session/scaling.hpp"
#include "qt_catch.hpp"
#include "ui/charts/scaling_chart.hpp"
#include "ui/document/project_document.hpp"
#include "ui/explore/scaling_chart_spec.hpp"
#include "ui/explore/scaling_view.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

Project small_project() {
  Project project = *default_project();
  project.model = *model_preset("gpt2");
  project.model_ref = "gpt2";
  project.cluster = "dgx-h100:nodes=1";
  project.gpu_count = 8;
  project.training.seq_len = 1024;
  project.training.global_batch = 16;
  project.layout = Layout{};
  project.layout.dp = 8;
  return project;
}

void wait_for(const ui::ScalingView& view) {
  while (view.computing()) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
  QApplication::processEvents();
}

}  // namespace

TEST_CASE("scaling chart spec: throughput, per-GPU throughput and efficiency by GPU count, baseline stated") {
  const auto result = scale_project(small_project(), ScalingMode::weak, {8, 16, 32});
  REQUIRE(result);
  const ui::ScalingChartSpec spec = ui::scaling_chart_spec(*result);
  REQUIRE(spec.tokens.points.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const ScalingPoint& p = result->points[i];
    CHECK(spec.tokens.points[i] == QPointF(static_cast<double>(p.gpus), p.tokens_per_s));
    CHECK(spec.per_gpu.points[i] == QPointF(static_cast<double>(p.gpus), p.best.tokens_per_s_per_gpu));
    CHECK(spec.efficiency.points[i] == QPointF(static_cast<double>(p.gpus), 100 * p.scaling_efficiency));
    CHECK(spec.tokens.tooltips[i].contains(ui::ranked_layout_text(p.best).toHtmlEscaped()));
  }
  CHECK(spec.efficiency.points.front().y() == 100.0);
  CHECK(spec.efficiency_title == QStringLiteral("Efficiency %"));
  CHECK(spec.efficiency.name.contains(QStringLiteral("baseline, 8 GPUs")));
  CHECK(spec.caption.startsWith(QString::fromStdString(result->efficiency_definition)));
  CHECK(spec.caption.contains(QStringLiteral("N_b = 8 GPUs")));
  CHECK(spec.x_title.contains(QStringLiteral("log₂")));
  CHECK(spec.x_min < 8);
  CHECK(spec.x_max > 32);
  size_t changes = 0;
  for (const ScalingPoint& p : result->points) changes += p.layout_changed ? 1 : 0;
  REQUIRE(spec.changes.size() == changes);
  for (const auto& change : spec.changes) {
    CHECK(result->points[change.point].layout_changed);
    CHECK(change.label.contains(QString::fromStdString(result->points[change.point].layout_change)));
  }
}

TEST_CASE("scaling chart spec: an invalid size is left out of the series and named in the caption") {
  ScalingResult result;
  result.efficiency_definition = "definition";
  ScalingPoint bad;
  bad.gpus = 16;
  bad.error = "no valid layout: 12 candidates rejected";
  result.points.push_back(bad);
  const ui::ScalingChartSpec spec = ui::scaling_chart_spec(result);
  CHECK(spec.tokens.points.empty());
  CHECK(spec.caption.contains(QStringLiteral("16 GPUs: no valid layout")));
}

TEST_CASE("scaling view: computed in the background for the project; a double-click applies a point, undoably") {
  ui::ProjectDocument document(small_project());
  ui::ScalingView view(&document);
  view.resize(1200, 800);
  view.setRange(8, 32);
  CHECK(!view.computing());  // hidden: nothing runs
  view.show();
  wait_for(view);
  REQUIRE(view.result());
  const auto expected = scale_project(small_project(), ScalingMode::weak, {8, 16, 32});
  REQUIRE(expected);
  REQUIRE(view.result()->points.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(view.result()->points[i].best.layout == expected->points[i].best.layout);
    CHECK(view.result()->points[i].tokens_per_s == expected->points[i].tokens_per_s);
  }
  const QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::Warning);
  REQUIRE(view.model()->rowCount() == 3);
  CHECK(view.model()->index(2, ui::ScalingPointModel::kGpus).data(ui::ScalingPointModel::ValueRole).toDouble() == 32);
  CHECK(view.model()->index(0, ui::ScalingPointModel::kEfficiency).data().toString() == QStringLiteral("100.0 %"));
  // The adapter draws the spec.
  const auto& spec = view.chart()->spec();
  for (int s = 0; s < 3; ++s) {
    const auto& series = s == 0 ? spec.tokens : s == 1 ? spec.per_gpu : spec.efficiency;
    CHECK(view.chart()->seriesPoints(s) == series.points);
  }
  CHECK(view.chart()->seriesPoints(3).size() == spec.changes.size());

  // Strong scaling keeps the batch.
  view.setMode(ScalingMode::strong);
  wait_for(view);
  REQUIRE(view.result());
  for (const ScalingPoint& p : view.result()->points) CHECK(p.global_batch == 16);

  // Apply the 32-GPU point: cluster, batch and layout in one step; undo restores the project.
  const Project before = document.project();
  const ScalingPoint point = view.result()->points[2];
  REQUIRE(view.applyPoint(2));
  CHECK(document.project().cluster == point.cluster);
  CHECK(document.project().gpu_count == 32);
  CHECK(document.project().training.global_batch == point.global_batch);
  CHECK(document.project().layout == point.best.layout);
  CHECK(document.project().training.schedule == point.best.schedule);
  CHECK(document.undoStack()->count() == 1);
  document.undoStack()->undo();
  CHECK(document.project() == before);
}

TEST_CASE("scaling view: an inline cluster has no family and says so") {
  Project project = small_project();
  auto cluster = project_cluster(project);
  REQUIRE(cluster);
  project.cluster_inline = *cluster;
  ui::ProjectDocument document(project);
  ui::ScalingView view(&document);
  view.show();
  view.setRange(8, 16);
  wait_for(view);
  CHECK(!view.result());
  CHECK(!view.applyPoint(0));
}

TEST_CASE("scaling view: a family whose node does not divide the range starts at one node") {
  Project project = small_project();
  project.cluster = "gb200-nvl72:racks=1";
  project.gpu_count = 72;
  ui::ProjectDocument document(project);
  ui::ScalingView view(&document);
  auto* from = view.findChildren<QSpinBox*>().at(0);
  auto* to = view.findChildren<QSpinBox*>().at(1);
  CHECK(from->value() == 72);
  CHECK(to->value() == 72 * 128);
}
