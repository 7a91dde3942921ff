// The sweep view (ui/explore/sweep_view.hpp) on a real sweep: the tiny spec the CLI tests run
// (tests/cli/sweep/tiny_spec.json) run here by the core's sweep (core/session/sweep.hpp) into a file, then opened as
// the app opens one. The chart and the table show the file's points and the Pareto front as core reads them
// (core/session/sweep_results.hpp); opening a point makes it the project in one undoable step.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QTemporaryDir>
#include <QUndoStack>

#include <string>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/session/sweep.hpp"
#include "core/session/sweep_results.hpp"
#include "qt_catch.hpp"
#include "ui/charts/sweep_chart.hpp"
#include "ui/explore/sweep_view.hpp"
#include "ui/window/import_controller.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

TEST_CASE("sweep view: a real sweep's points, series and Pareto front; a point opens as the project") {
  const QTemporaryDir dir;
  REQUIRE(dir.isValid());
  auto text = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/tests/cli/sweep/tiny_spec.json");
  REQUIRE(text);
  auto spec = parse_sweep_spec_text(*text);
  REQUIRE(spec);
  auto plan = plan_sweep(*spec);
  REQUIRE(plan);
  const std::string path = dir.filePath(QStringLiteral("tiny.jsonl")).toStdString();
  SweepRunOptions options;
  options.threads = 1;
  REQUIRE(run_sweep_to_file(*plan, plan->points, path, options));
  auto expected = load_sweep_results(path);
  REQUIRE(expected);
  REQUIRE(expected->points.size() == plan->points.size());

  auto project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  REQUIRE(window.imports()->openSweep(QString::fromStdString(path)));
  ui::SweepView* view = window.imports()->sweepView();
  REQUIRE(view != nullptr);
  const QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::Warning);
  CHECK(view->model()->rowCount() == static_cast<int>(expected->points.size()));
  // One series per model and cluster family (2 models × dgx-h100), each point at its GPU count.
  const auto& chart_spec = view->chart()->spec();
  CHECK(chart_spec.series.size() == 2);
  REQUIRE(view->chart()->seriesCount() == 2);
  for (int s = 0; s < 2; ++s) {
    const auto drawn = view->chart()->seriesPoints(s);
    REQUIRE(drawn.size() == chart_spec.series[static_cast<size_t>(s)].points.size());
    for (size_t i = 0; i < drawn.size(); ++i) {
      const SweepResultPoint& p = expected->points[chart_spec.series[static_cast<size_t>(s)].point[i]];
      CHECK(drawn[i].x() == static_cast<double>(p.gpus));
      CHECK(drawn[i].y() == p.tokens_per_s_per_gpu);
    }
  }
  CHECK(view->chart()->frontPoints().size() == sweep_pareto_front(expected->points).size());
  int marked = 0;
  for (int r = 0; r < view->model()->rowCount(); ++r)
    marked += view->model()->data(view->model()->index(r, ui::SweepPointModel::kFront)).toString().isEmpty() ? 0 : 1;
  CHECK(marked == static_cast<int>(sweep_pareto_front(expected->points).size()));

  // Opening the last point (llama3-8b on two nodes): one undo step, and the project is that point's.
  const SweepResultPoint& last = expected->points.back();
  REQUIRE(last.has_layout);
  const int steps = window.undoStack()->count();
  emit view->openPoint(last);
  window.waitForEvaluation();
  CHECK(window.undoStack()->count() == steps + 1);
  CHECK(window.project().model_ref == last.model);
  CHECK(window.project().cluster == last.cluster);
  CHECK(window.project().layout.world_size() == last.gpus);
  CHECK(window.project().name == project->name);
  window.undoStack()->undo();
  window.waitForEvaluation();
  CHECK(window.project().cluster == project->cluster);

  // A file that is not a sweep leaves everything as it was.
  CHECK_FALSE(window.imports()->openSweep(QString::fromStdString(std::string(MESHSCOPE_SOURCE_DIR) + "/README.md")));
  const QString shots = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  if (!shots.isEmpty()) {
    view->resize(1400, 860);
    CHECK(view->grab().save(QDir(shots).filePath(QStringLiteral("sweep.png"))));
  }
}
