// The main window as a composition root: it computes the project's budget and shows it, or
// explains why the layout is invalid. Checked through its widgets, offscreen, without events.
#include <catch2/catch.hpp>

#include <QLabel>
#include <QTableView>

#include "core/project.hpp"
#include "qt_catch.hpp"
#include "ui/main_window.hpp"
#include "ui/pipeline_chart.hpp"

using namespace meshscope;

namespace {

Project project_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

}  // namespace

TEST_CASE("main window: the default project shows its memory table under a summary header") {
  const Project project = project_or_fail();
  const ui::MainWindow window(project);
  CHECK(window.windowTitle() == QStringLiteral("meshscope — ") + QString::fromStdString(project.name));

  const auto* table = window.findChild<QTableView*>();
  REQUIRE(table != nullptr);
  REQUIRE(table->model() != nullptr);
  CHECK(table->model()->rowCount() == kMemoryCategoryCount + 1);

  const auto* header = window.findChild<QLabel*>();
  REQUIRE(header != nullptr);
  CHECK(header->text().contains(QStringLiteral("TP 8 · PP 4 (v 5) · DP 2 · SP")));
  CHECK(header->text().contains(QString::fromStdString(project.gpu.name)));
  CHECK(header->text().contains(QStringLiteral("fits")));
}

TEST_CASE("main window: an invalid layout lists its problems instead of a table") {
  Project project = project_or_fail();
  project.layout.tp = 7;  // 64 attention heads cannot be split over 7 ranks
  const ui::MainWindow window(project);
  CHECK(window.findChild<QTableView*>() == nullptr);
  const auto* header = window.findChild<QLabel*>();
  REQUIRE(header != nullptr);
  CHECK(header->text().contains(QStringLiteral("not valid")));
  CHECK(header->text().contains(QStringLiteral("<b>tp</b>")));
}

TEST_CASE("main window: a serving project shows the serving budget") {
  Project project = project_or_fail();
  project.mode = Mode::serving;
  project.layout = Layout{};
  project.layout.tp = 8;
  project.layout.dp = 8;
  const ui::MainWindow window(project);
  const auto* table = window.findChild<QTableView*>();
  REQUIRE(table != nullptr);
  CHECK(table->model()->columnCount() == 1);
  CHECK(window.findChild<QLabel*>()->text().contains(QStringLiteral("serving")));
}

TEST_CASE("main window: the default project shows its pipeline schedule, whole and zoomed on the warm-up") {
  const Project project = project_or_fail();
  const ui::MainWindow window(project);
  const QList<ui::PipelineChart*> charts = window.findChildren<ui::PipelineChart*>();
  REQUIRE(charts.size() == 2);
  // p stages × m micro-batches × v chunks, forward and backward each (Megatron interleaved 1F1B).
  const int64_t micro_batches = num_micro_batches(project.training, project.layout);
  const auto expected = static_cast<size_t>(2 * project.layout.pp * project.layout.vpp * micro_batches);
  for (const ui::PipelineChart* chart : charts) CHECK(chart->schedule().events.size() == expected);
}

TEST_CASE("main window: the communication view lists the plan and can be brought to the front") {
  const Project project = project_or_fail();
  ui::MainWindow window(project);
  const auto* table = window.findChild<QTableView*>(QStringLiteral("comm_table"));
  REQUIRE(table != nullptr);
  CHECK(table->model()->rowCount() > 0);
  CHECK(window.showView(QStringLiteral("communication")));
  CHECK(window.showView(QStringLiteral("pipeline")));
  CHECK_FALSE(window.showView(QStringLiteral("no such view")));
}
