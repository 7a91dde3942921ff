// The communication table over the default project's plan (Llama-3.1-70B, TP 8 · PP 4 (v 5) ·
// DP 2 · SP on 8 DGX H100): one row per planned collective of every axis, each cell the plan's
// own number, checked through QAbstractItemModelTester.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>

#include <memory>

#include "core/estimate/step.hpp"
#include "core/project/project.hpp"
#include "core/topology/generators.hpp"
#include "qt_catch.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/panels/comm_table_model.hpp"

using namespace meshscope;
using meshscope::test::QtWarningRecorder;
using meshscope::ui::CommTableModel;

namespace {

std::shared_ptr<const CommPlan> default_plan() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  const Result<Cluster> cluster = resolve_cluster(project->cluster);
  REQUIRE(cluster);
  const Router router(*cluster);
  Result<StepEstimate> estimate = estimate_step(project->model, project->training, project->layout, *cluster, router);
  REQUIRE(estimate);
  return std::make_shared<const CommPlan>(std::move(estimate->comm));
}

}  // namespace

TEST_CASE("comm table: one row per planned collective, values straight from the plan") {
  const QtWarningRecorder recorder;
  CommTableModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  const std::shared_ptr<const CommPlan> plan = default_plan();
  model.setPlan(plan);

  int row = 0;
  for (const AxisComm& axis : plan->axes) {
    for (const PlannedCollective& collective : axis.collectives) {
      REQUIRE(row < model.rowCount());
      const auto value = [&](int column) {
        return model.data(model.index(row, column), CommTableModel::ValueRole).toDouble();
      };
      CHECK(model.data(model.index(row, CommTableModel::kAxis)).toString() ==
            QString::fromStdString(std::string(mesh_axis_name(axis.axis))).toUpper());
      CHECK(model.data(model.index(row, CommTableModel::kCollective)).toString() ==
            QString::fromStdString(collective.what));
      CHECK(value(CommTableModel::kGroup) == static_cast<double>(axis.group_size));
      CHECK(value(CommTableModel::kBytesPerCall) == collective.bytes);
      CHECK(value(CommTableModel::kBytesPerStep) == collective.count_per_step * collective.bytes);
      CHECK(value(CommTableModel::kTimePerStep) == collective.count_per_step * collective.time_s);
      CHECK(model.data(model.index(row, CommTableModel::kBytesPerStep)).toString() ==
            ui::binary_bytes_text(collective.bytes_per_step()));
      CHECK(model.data(model.index(row, CommTableModel::kCollective), Qt::ToolTipRole)
                .toString()
                .contains(QString::fromStdString(collective.source).toHtmlEscaped()));
      ++row;
    }
  }
  CHECK(row == model.rowCount());
  // The default layout uses TP (with SP), PP and DP: each has at least one collective.
  QStringList axes;
  for (int r = 0; r < model.rowCount(); ++r) axes << model.data(model.index(r, CommTableModel::kAxis)).toString();
  CHECK(axes.contains(QStringLiteral("TP")));
  CHECK(axes.contains(QStringLiteral("PP")));
  CHECK(axes.contains(QStringLiteral("DP")));

  model.setPlan(nullptr);
  CHECK(model.rowCount() == 0);
  CHECK(recorder.warnings().isEmpty());
}

TEST_CASE("formatting: binary byte units and durations pick the unit by size") {
  CHECK(ui::binary_bytes_text(512) == QStringLiteral("512 B"));
  CHECK(ui::binary_bytes_text(1536) == QStringLiteral("1.5 KiB"));
  CHECK(ui::binary_bytes_text(16.0 * 1024 * 1024) == QStringLiteral("16.0 MiB"));
  CHECK(ui::binary_bytes_text(2.5 * 1024 * 1024 * 1024) == QStringLiteral("2.50 GiB"));
  CHECK(ui::binary_bytes_text(2560.0 * 1024 * 1024 * 1024) == QStringLiteral("2.50 TiB"));
  CHECK(ui::duration_text(0) == QStringLiteral("0"));
  CHECK(ui::duration_text(850e-6) == QStringLiteral("850 \u00b5s"));
  CHECK(ui::duration_text(0.0125) == QStringLiteral("12.5 ms"));
  CHECK(ui::duration_text(0.25) == QStringLiteral("250 ms"));
  CHECK(ui::duration_text(3.2) == QStringLiteral("3.20 s"));
  CHECK(ui::duration_text(63.27) == QStringLiteral("63.3 s"));
}
