// The memory table model over the default project's budget (Llama-3.1-70B, TP 8 · PP 4 (v 5) ·
// DP 2 · SP on H100 SXM5). Checked as text dumps and through QAbstractItemModelTester.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QFont>

#include <algorithm>
#include <memory>

#include "core/memory/memory.hpp"
#include "core/project/project.hpp"
#include "qt_catch.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/panels/memory_table_model.hpp"

using namespace meshscope;
using meshscope::test::QtWarningRecorder;
using meshscope::ui::MemoryTableModel;

namespace {

std::shared_ptr<const MemoryBudget> default_budget() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  REQUIRE(project->mode == Mode::training);
  return std::make_shared<const MemoryBudget>(
      training_memory(project->model, project->training, project->layout, project->gpu));
}

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role).toString();
}

// One line per row, cells joined by " | ": the column headers first, then each row's header and
// its cells' display texts.
QStringList dump(const QAbstractItemModel& model) {
  QStringList lines;
  QStringList header{QString()};
  for (int column = 0; column < model.columnCount(); ++column)
    header << model.headerData(column, Qt::Horizontal).toString();
  lines << header.join(QStringLiteral(" | "));
  for (int row = 0; row < model.rowCount(); ++row) {
    QStringList cells{model.headerData(row, Qt::Vertical).toString()};
    for (int column = 0; column < model.columnCount(); ++column) cells << cell(model, row, column);
    lines << cells.join(QStringLiteral(" | "));
  }
  return lines;
}

int row_of(MemoryCategory category) {
  return static_cast<int>(category);
}

}  // namespace

TEST_CASE("ui: the memory table model passes QAbstractItemModelTester through every reset") {
  const QtWarningRecorder recorder;
  MemoryTableModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  const auto budget = default_budget();
  model.setBudget(budget);
  model.setBudget(nullptr);
  model.setBudget(budget);
  CHECK(QtWarningRecorder::warnings().join(u'\n') == QString());
}

TEST_CASE("ui: the memory table has a row per memory category plus Total and a column per distinct rank") {
  MemoryTableModel model;
  CHECK(model.rowCount() == 0);
  CHECK(model.columnCount() == 0);

  const auto budget = default_budget();
  model.setBudget(budget);
  CHECK(model.rowCount() == kMemoryCategoryCount + 1);
  CHECK(model.columnCount() == static_cast<int>(budget->ranks.size()));
  CHECK(model.headerData(MemoryTableModel::kTotalRow, Qt::Vertical).toString() == QStringLiteral("Total"));
}

TEST_CASE("ui: the memory table reads as stage columns of GiB per category") {
  MemoryTableModel model;
  model.setBudget(default_budget());
  const QStringList lines = dump(model);
  REQUIRE(lines.size() == kMemoryCategoryCount + 2);

  // Interleaved 1F1B keeps a different number of micro-batches in flight on every stage, so no two
  // stages share a budget.
  CHECK(lines[0] == QStringLiteral(" | first stage (0) | middle stage (1) | middle stage (2) | last stage (3)"));
  // Training keeps no KV cache; every rank holds the 1 GiB CUDA runtime assumption.
  CHECK(lines[1 + row_of(MemoryCategory::kv_cache)] == QStringLiteral("KV cache | – | – | – | –"));
  CHECK(lines[1 + row_of(MemoryCategory::runtime)] ==
        QStringLiteral("Runtime | 1.00 GiB | 1.00 GiB | 1.00 GiB | 1.00 GiB"));

  QStringList row_labels;
  for (const QString& line : lines.mid(1)) row_labels << line.section(QStringLiteral(" | "), 0, 0);
  CHECK(row_labels.join(u',') == QStringLiteral("Parameters,Gradients,Optimizer state,Activations,KV cache,"
                                                "Temporary,Communication,Runtime,Allocator headroom,Total"));
}

TEST_CASE("ui: the Total row of the memory table is the sum of the category rows") {
  MemoryTableModel model;
  const auto budget = default_budget();
  model.setBudget(budget);
  for (int column = 0; column < model.columnCount(); ++column) {
    double sum = 0;
    for (int row = 0; row < kMemoryCategoryCount; ++row)
      sum += model.data(model.index(row, column), MemoryTableModel::BytesRole).toDouble();
    const QModelIndex total = model.index(MemoryTableModel::kTotalRow, column);
    CHECK_THAT(total.data(MemoryTableModel::BytesRole).toDouble(), Catch::Matchers::WithinRel(sum, 1e-12));
    CHECK(total.data().toString() == ui::gib_text(budget->ranks[static_cast<size_t>(column)].total_bytes()));
    CHECK(total.data(Qt::FontRole).value<QFont>().bold());
  }
}

TEST_CASE("ui: a memory cell's tooltip gives the formula and the exact bytes") {
  MemoryTableModel model;
  const auto budget = default_budget();
  model.setBudget(budget);
  const MemoryItem& item = budget->ranks.front().items[static_cast<size_t>(row_of(MemoryCategory::optimizer_state))];
  REQUIRE(item.category == MemoryCategory::optimizer_state);
  const QString tooltip = cell(model, row_of(MemoryCategory::optimizer_state), 0, Qt::ToolTipRole);
  CHECK(tooltip.startsWith(QString::fromStdString(item.formula) + u'\n'));
  CHECK(tooltip.contains(ui::exact_bytes_text(item.bytes)));
}

TEST_CASE("ui: only the Total cells of ranks over the usable memory are marked") {
  const auto budget = default_budget();
  // Usable memory equal to the smallest rank's total: that rank fits exactly, every other one is over.
  auto tight = std::make_shared<MemoryBudget>(*budget);
  const auto smallest = std::min_element(tight->ranks.begin(), tight->ranks.end(), [](const auto& a, const auto& b) {
    return a.total_bytes() < b.total_bytes();
  });
  tight->usable_bytes = smallest->total_bytes();

  MemoryTableModel model;
  model.setBudget(tight);
  for (int column = 0; column < model.columnCount(); ++column) {
    const bool over = tight->ranks[static_cast<size_t>(column)].total_bytes() > tight->usable_bytes;
    CAPTURE(column);
    CHECK(model.index(MemoryTableModel::kTotalRow, column).data(Qt::BackgroundRole).isValid() == over);
    CHECK_FALSE(model.index(0, column).data(Qt::BackgroundRole).isValid());
  }
}
