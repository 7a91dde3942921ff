// The table kit (ui/kit/snapshot_table_model.hpp) and the nccl-tests comparison table built on it: a column
// table answers every role, a snapshot replaces the rows whole, and the models pass QAbstractItemModelTester.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QColor>

#include <vector>

#include "qt_catch.hpp"
#include "ui/kit/snapshot_table_model.hpp"
#include "ui/profile/nccl_comparison_dialog.hpp"

using meshscope::test::QtWarningRecorder;
using meshscope::ui::NcclComparisonModel;
using meshscope::ui::NcclComparisonRow;
using meshscope::ui::SnapshotColumn;
using meshscope::ui::SnapshotTableModel;

namespace {

struct Fruit {
  QString name;
  double grams = 0;
  bool heading = false;
};

constexpr int kGramsRole = Qt::UserRole + 7;

// A two-column model: name (left) and grams (right, red above 100 g); headings leave the second cell blank.
class FruitModel final : public SnapshotTableModel<Fruit> {
 public:
  FruitModel()
      : SnapshotTableModel(kGramsRole,
                           {SnapshotColumn<Fruit>{QStringLiteral("Fruit"),
                                                  QStringLiteral("what it is"),
                                                  [](const Fruit& f, int) { return f.name; },
                                                  [](const Fruit& f, int) { return f.name; },
                                                  {},
                                                  [](const Fruit& f, int row) {
                                                    return QStringLiteral("%1 at row %2").arg(f.name).arg(row);
                                                  },
                                                  {},
                                                  {},
                                                  {}},
                            SnapshotColumn<Fruit>{QStringLiteral("Grams"),
                                                  {},
                                                  [](const Fruit& f, int) { return QString::number(f.grams); },
                                                  [](const Fruit& f, int) { return f.grams; },
                                                  Qt::AlignRight | Qt::AlignVCenter,
                                                  {},
                                                  [](const Fruit& f, int) {
                                                    return f.grams > 100 ? QVariant(QBrush(Qt::red)) : QVariant();
                                                  },
                                                  {},
                                                  {}}},
                           nullptr) {
    setBlank([](const Fruit& f, int column) { return f.heading && column == 1; });
  }
  void show(std::vector<Fruit> fruit) { setRows(std::move(fruit)); }
};

NcclComparisonRow nccl_row(double bytes, double measured_s, double after_s) {
  return {QStringLiteral("all-gather"), bytes, measured_s, 2 * measured_s, after_s, 100e9, 90e9};
}

}  // namespace

TEST_CASE("table kit: a column table answers display, value, alignment, tooltip and colour roles") {
  const QtWarningRecorder recorder;
  FruitModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  CHECK(model.rowCount() == 0);
  CHECK(model.columnCount() == 2);
  model.show({{QStringLiteral("Fruit"), 0, true}, {QStringLiteral("apple"), 150}, {QStringLiteral("fig"), 40}});
  REQUIRE(model.rowCount() == 3);
  CHECK(model.headerData(0, Qt::Horizontal).toString() == QStringLiteral("Fruit"));
  CHECK(model.headerData(0, Qt::Horizontal, Qt::ToolTipRole).toString() == QStringLiteral("what it is"));
  CHECK_FALSE(model.headerData(1, Qt::Horizontal, Qt::ToolTipRole).isValid());
  CHECK_FALSE(model.headerData(2, Qt::Horizontal).isValid());
  CHECK(model.headerData(1, Qt::Vertical).toInt() == 2);  // Qt's row numbers without a row header
  CHECK(model.index(1, 0).data().toString() == QStringLiteral("apple"));
  CHECK(model.index(1, 1).data(kGramsRole).toDouble() == 150);
  CHECK(model.index(1, 0).data(Qt::ToolTipRole).toString() == QStringLiteral("apple at row 1"));
  CHECK(model.index(1, 1).data(Qt::TextAlignmentRole).toInt() == static_cast<int>(Qt::AlignRight | Qt::AlignVCenter));
  CHECK_FALSE(model.index(1, 0).data(Qt::TextAlignmentRole).isValid());
  CHECK(model.index(1, 1).data(Qt::ForegroundRole).value<QBrush>().color() == QColor(Qt::red));
  CHECK_FALSE(model.index(2, 1).data(Qt::ForegroundRole).isValid());
  // A blank cell answers nothing, whatever the role.
  CHECK(model.index(0, 0).data().toString() == QStringLiteral("Fruit"));
  CHECK_FALSE(model.index(0, 1).data().isValid());
  CHECK_FALSE(model.index(0, 1).data(Qt::TextAlignmentRole).isValid());
  model.show({});
  CHECK(model.rowCount() == 0);
  CHECK(QtWarningRecorder::warnings().join(u'\n') == QString());
}

TEST_CASE("nccl comparison: one row per log row, the error after the fit signed, under QAbstractItemModelTester") {
  const QtWarningRecorder recorder;
  NcclComparisonModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.setComparison({nccl_row(1 << 20, 1e-3, 1.1e-3), nccl_row(1 << 30, 2e-2, 1.9e-2)});
  REQUIRE(model.rowCount() == 2);
  REQUIRE(model.columnCount() == NcclComparisonModel::kColumnCount);
  CHECK(model.headerData(NcclComparisonModel::kErrorAfter, Qt::Horizontal).toString() == QStringLiteral("Error after"));
  CHECK(model.index(0, NcclComparisonModel::kCollective).data().toString() == QStringLiteral("all-gather"));
  CHECK(model.index(0, NcclComparisonModel::kErrorAfter).data().toString() == QStringLiteral("+10.0 %"));
  CHECK(model.index(1, NcclComparisonModel::kErrorAfter).data().toString() == QStringLiteral("-5.0 %"));
  CHECK_THAT(model.index(1, NcclComparisonModel::kErrorAfter).data(NcclComparisonModel::ValueRole).toDouble(),
             Catch::Matchers::WithinRel(-0.05, 1e-9));
  CHECK(model.index(0, NcclComparisonModel::kMeasuredBusbw).data().toString() == QStringLiteral("100.0 GB/s"));
  CHECK(model.index(0, NcclComparisonModel::kSize).data(Qt::TextAlignmentRole).toInt() ==
        static_cast<int>(Qt::AlignRight | Qt::AlignVCenter));
  CHECK_FALSE(model.index(0, NcclComparisonModel::kCollective).data(Qt::TextAlignmentRole).isValid());
  model.setComparison({});
  CHECK(model.rowCount() == 0);
  CHECK(QtWarningRecorder::warnings().join(u'\n') == QString());
}
