// The trade-off explorer's view (ui/explore/tradeoff_view.hpp): its chart spec as data (the categories, the gaps with
// the core's reasons, the capacity line), the adapter against the spec, a click applying a value as one
// undo step and undo restoring the project, and the heat map's cells. Expected values are the core's own
// (tradeoff_curve, evaluate_project), never numbers computed here.
#include <catch2/catch.hpp>

#include <QUndoStack>

#include <cmath>

#include "core/project/project.hpp"
#include "core/session/tradeoff.hpp"
#include "qt_catch.hpp"
#include "ui/charts/tradeoff_chart.hpp"
#include "ui/charts/tradeoff_heatmap.hpp"
#include "ui/document/project_document.hpp"
#include "ui/explore/tradeoff_chart_spec.hpp"
#include "ui/explore/tradeoff_view.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

Project default_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

TradeoffCurve tp_curve(const Project& project) {
  ClusterCache cache;
  auto curve = tradeoff_curve(project, TradeoffAxis::tp, *parse_tradeoff_values(TradeoffAxis::tp, "1,2,4,8,16"), cache);
  REQUIRE(curve);
  return *curve;
}

}  // namespace

TEST_CASE("tradeoff chart spec: one category per value, gaps where the core says invalid, with its reason") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = tp_curve(project);
  const ui::TradeoffChartSpec spec = ui::tradeoff_chart_spec(curve);
  REQUIRE(spec.labels.size() == 5);
  CHECK(spec.tooltips.size() == 5);
  size_t invalid = 0;
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const TradeoffPoint& p = curve.points[i];
    CHECK(spec.is_gap(i) == !p.valid);
    if (p.valid) {
      CHECK(spec.labels[static_cast<qsizetype>(i)] == QString::fromStdString(p.value.label));
      CHECK(spec.mfu_percent[i] == 100 * p.mfu);
      continue;
    }
    ++invalid;
    CHECK(std::isnan(spec.mfu_percent[i]));
    for (const auto& set : spec.step) CHECK(set.values[i] == 0);
    // A layout that does not fit keeps its memory bars (over the capacity line); an invalid one has none.
    double gib = 0;
    for (const auto& set : spec.memory) gib += set.values[i];
    if (p.has_memory)
      CHECK_THAT(gib * 1024.0 * 1024.0 * 1024.0, Catch::Matchers::WithinRel(p.peak_memory_bytes, 1e-9));
    else
      CHECK(gib == 0);
  }
  REQUIRE(spec.gaps.size() == invalid);
  // TP 16 exceeds Llama 3.1 70B's 8 KV heads; TP 1 does not fit in 80 GB.
  const auto reason_of = [&](const char* value) {
    for (const auto& gap : spec.gaps)
      if (gap.value == QStringLiteral("TP %1").arg(QLatin1String(value))) return gap.reason;
    return QString();
  };
  CHECK(reason_of("16").contains(QStringLiteral("KV heads")));
  CHECK(reason_of("1").startsWith(QStringLiteral("does not fit: +")));
  CHECK(spec.capacity_gib == project.gpu.memory_bytes / (1024.0 * 1024.0 * 1024.0));
  CHECK(spec.memory_max_gib >= spec.capacity_gib);
  REQUIRE(spec.capacity_per_value_gib.size() == 5);
  for (double gib : spec.capacity_per_value_gib) CHECK(gib == spec.capacity_gib);
}

TEST_CASE("tradeoff chart spec: the traffic sets are each axis's bytes per step and rank, in GB, none in a gap") {
  const TradeoffCurve curve = tp_curve(default_or_fail());
  const ui::TradeoffChartSpec spec = ui::tradeoff_chart_spec(curve);
  REQUIRE_FALSE(spec.traffic.empty());
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const TradeoffPoint& p = curve.points[i];
    for (const auto& set : spec.traffic) {
      double bytes = 0;
      for (const auto& [axis, b] : p.bytes_per_step)
        if (QString::fromStdString(std::string(enum_name(axis))).toUpper() == set.label) bytes += b;
      CHECK_THAT(set.values[i], Catch::Matchers::WithinAbs(p.valid ? bytes / 1e9 : 0.0, 1e-12));
      CHECK(set.values[i] <= spec.traffic_max_gb);
    }
  }
  // The default project's TP 8 point is valid and talks over TP: its TP set is not empty.
  const auto tp = std::find_if(spec.traffic.begin(), spec.traffic.end(),
                               [](const auto& set) { return set.label == QStringLiteral("TP"); });
  REQUIRE(tp != spec.traffic.end());
  CHECK(tp->values[3] > 0);
}

TEST_CASE("tradeoff chart spec: along the gpu axis the capacity line follows each GPU's capacity") {
  ClusterCache cache;
  auto curve = tradeoff_curve(default_or_fail(), TradeoffAxis::gpu,
                              *parse_tradeoff_values(TradeoffAxis::gpu, "h100-sxm,h200-sxm"), cache);
  REQUIRE(curve);
  const ui::TradeoffChartSpec spec = ui::tradeoff_chart_spec(*curve);
  REQUIRE(spec.capacity_per_value_gib.size() == 2);
  CHECK(spec.capacity_per_value_gib[0] * 1024.0 * 1024.0 * 1024.0 == curve->points[0].capacity_bytes);
  CHECK(spec.capacity_per_value_gib[1] * 1024.0 * 1024.0 * 1024.0 == curve->points[1].capacity_bytes);
  CHECK(spec.capacity_per_value_gib[1] > spec.capacity_per_value_gib[0]);  // 141 GB against 80 GB
}

TEST_CASE("tradeoff chart spec: the memory sets are the busiest rank's categories and add up to its peak") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = tp_curve(project);
  const ui::TradeoffChartSpec spec = ui::tradeoff_chart_spec(curve);
  CHECK_FALSE(spec.memory.empty());
  CHECK(spec.memory.size() <= static_cast<size_t>(kMemoryCategoryCount));
  CHECK_FALSE(spec.step.empty());
  CHECK(spec.step.front().label == QStringLiteral("compute"));
  for (size_t i = 0; i < curve.points.size(); ++i) {
    if (!curve.points[i].valid) continue;
    double gib = 0, seconds = 0;
    for (const auto& set : spec.memory) gib += set.values[i];
    for (const auto& set : spec.step) seconds += set.values[i];
    CHECK_THAT(gib * 1024.0 * 1024.0 * 1024.0, Catch::Matchers::WithinRel(curve.points[i].peak_memory_bytes, 1e-9));
    CHECK_THAT(seconds, Catch::Matchers::WithinRel(curve.points[i].step_time_s, 1e-6));
  }
}

TEST_CASE("tradeoff chart: the adapter draws the spec's sets and categories and lists the gaps") {
  const TradeoffCurve curve = tp_curve(default_or_fail());
  ui::TradeoffChart chart;
  chart.resize(1200, 500);
  chart.setSpec(ui::tradeoff_chart_spec(curve));
  CHECK(chart.memorySetCount() == static_cast<int>(chart.spec().memory.size()));
  CHECK(chart.stepSetCount() == static_cast<int>(chart.spec().step.size()));
  CHECK(chart.categories() == chart.spec().labels);
  for (const auto& gap : chart.spec().gaps) CHECK(chart.gapText().contains(gap.value));
  for (const auto& set : chart.spec().memory) CHECK(chart.memoryLegendText().contains(set.label.toHtmlEscaped()));
  for (const auto& set : chart.spec().step) CHECK(chart.stepLegendText().contains(set.label.toHtmlEscaped()));
  CHECK(chart.memoryLegendText().contains(QStringLiteral("capacity")));
}

TEST_CASE("tradeoff view: clicking a value applies it as one named undo step, and undo restores the layout") {
  ui::ProjectDocument document(default_or_fail());
  ui::TradeoffView view(&document);
  view.setAxes(TradeoffAxis::pp);
  REQUIRE(view.curve() != nullptr);
  const Layout before = document.project().layout;
  int index = -1;
  for (size_t i = 0; i < view.curve()->points.size(); ++i)
    if (view.curve()->points[i].value.number == 8) index = static_cast<int>(i);
  REQUIRE(index >= 0);
  const int steps = document.undoStack()->count();
  view.applyValue(index);
  REQUIRE(document.undoStack()->count() == steps + 1);
  CHECK(document.undoStack()->undoText() == QStringLiteral("Trade-off: PP 8"));
  CHECK(document.project().layout.pp == 8);
  CHECK(document.project().layout == view.curve()->points[static_cast<size_t>(index)].layout);
  document.undoStack()->undo();
  CHECK(document.project().layout == before);
}

TEST_CASE("tradeoff view: a heat map's cells are the grid's, hatched where the layout does not fit") {
  ui::ProjectDocument document(default_or_fail());
  ui::TradeoffView view(&document);
  view.setAxes(TradeoffAxis::tp, TradeoffAxis::pp);
  view.setValues(QStringLiteral("1,2,4,8,16"));
  view.setValues2(QStringLiteral("2,4,8"));
  REQUIRE(view.grid() != nullptr);
  const TradeoffGrid& grid = *view.grid();
  const ui::TradeoffHeatmapSpec& spec = view.heatmap()->spec();
  REQUIRE(spec.cells.size() == 15);
  REQUIRE(spec.x_labels.size() == 5);
  REQUIRE(spec.y_labels.size() == 3);
  bool hatched = false, valid = false;
  for (size_t iy = 0; iy < 3; ++iy) {
    for (size_t ix = 0; ix < 5; ++ix) {
      const TradeoffPoint& p = grid.at(ix, iy);
      const auto& cell = spec.at(ix, iy);
      CHECK(cell.valid == p.valid);
      CHECK(cell.does_not_fit == (p.has_memory && p.peak_memory_bytes > p.capacity_bytes));
      CHECK(cell.tooltip.contains(QString::fromStdString(p.reason).toHtmlEscaped()));
      if (p.valid) CHECK(cell.tokens_per_s_per_gpu == p.tokens_per_s_per_gpu);
      if (cell.does_not_fit) CHECK(cell.text.startsWith(QLatin1Char('+')));
      hatched = hatched || cell.does_not_fit;
      valid = valid || cell.valid;
    }
  }
  CHECK(hatched);
  CHECK(valid);
  // Clicking a cell applies both values.
  view.heatmap()->resize(800, 500);
  view.applyCell(4, 0);  // TP 16 × PP 2: applied although invalid (8 KV heads); the views then say why
  CHECK(document.project().layout.tp == 16);
  CHECK(document.project().layout.pp == 2);
  CHECK(document.undoStack()->undoText() == QStringLiteral("Trade-off: TP 16, PP 2"));
}

TEST_CASE("tradeoff view: the main window has it as the Trade-offs dock") {
  ui::MainWindow window(default_or_fail());
  REQUIRE(window.showView(QStringLiteral("tradeoff")));
  auto* view = qobject_cast<ui::TradeoffView*>(window.view(QStringLiteral("tradeoff")));
  REQUIRE(view != nullptr);
  CHECK(window.viewNames().contains(QStringLiteral("tradeoff")));
}
