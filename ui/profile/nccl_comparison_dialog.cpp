#include "ui/profile/nccl_comparison_dialog.hpp"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <utility>

#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"

namespace meshscope::ui {

namespace {

using Row = NcclComparisonRow;
using Cell = SnapshotColumn<Row>::Cell;

double error_after(const Row& r) {
  return r.after_time_s / r.measured_time_s - 1;
}

std::vector<SnapshotColumn<Row>> nccl_columns() {
  const auto column = [](const QString& header, Cell display, Cell value, bool numeric = true) {
    return SnapshotColumn<Row>{header,
                               {},
                               std::move(display),
                               std::move(value),
                               numeric ? Qt::AlignRight | Qt::AlignVCenter : Qt::Alignment{},
                               {},
                               {},
                               {},
                               {}};
  };
  const auto busbw_text = [](double bytes_per_s) {
    return QStringLiteral("%1 GB/s").arg(bytes_per_s / 1e9, 0, 'f', 1);
  };
  return {
      column(
          QObject::tr("Collective"), [](const Row& r, int) { return r.collective; },
          [](const Row& r, int) { return r.collective; }, false),
      column(
          QObject::tr("Size"), [](const Row& r, int) { return binary_bytes_text(r.bytes); },
          [](const Row& r, int) { return r.bytes; }),
      column(
          QObject::tr("Measured"), [](const Row& r, int) { return duration_text(r.measured_time_s); },
          [](const Row& r, int) { return r.measured_time_s; }),
      column(
          QObject::tr("Predicted before"), [](const Row& r, int) { return duration_text(r.before_time_s); },
          [](const Row& r, int) { return r.before_time_s; }),
      column(
          QObject::tr("Predicted after"), [](const Row& r, int) { return duration_text(r.after_time_s); },
          [](const Row& r, int) { return r.after_time_s; }),
      column(
          QObject::tr("Measured busbw"), [busbw_text](const Row& r, int) { return busbw_text(r.measured_busbw); },
          [](const Row& r, int) { return r.measured_busbw; }),
      column(
          QObject::tr("Predicted busbw"), [busbw_text](const Row& r, int) { return busbw_text(r.after_busbw); },
          [](const Row& r, int) { return r.after_busbw; }),
      column(
          QObject::tr("Error after"),
          [](const Row& r, int) {
            const double error = error_after(r);
            return QStringLiteral("%1%2 %")
                .arg(error >= 0 ? QStringLiteral("+") : QString())
                .arg(100 * error, 0, 'f', 1);
          },
          [](const Row& r, int) { return error_after(r); }),
  };
}

}  // namespace

NcclComparisonModel::NcclComparisonModel(QObject* parent) : SnapshotTableModel(ValueRole, nccl_columns(), parent) {}

void NcclComparisonModel::setComparison(std::vector<NcclComparisonRow> rows) {
  setRows(std::move(rows));
}

void show_nccl_comparison(QWidget* parent, const QString& summary, const std::vector<NcclComparisonRow>& rows) {
  // The fit's summary, then every row: measured against predicted before and after.
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(QObject::tr("Calibration applied"));
  auto* layout = new QVBoxLayout(dialog);
  auto* text = new QLabel(summary.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")), dialog);
  text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(text);
  auto* model = new NcclComparisonModel(dialog);
  model->setComparison(rows);
  auto* table = new QTableView(dialog);
  table->setObjectName(QStringLiteral("nccl_comparison"));
  table->setModel(model);
  style_table(
      table,
      {.alternating_rows = false, .row_headers = false, .resize_to_contents = false, .stretch_last_section = true});
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
  table->resizeColumnsToContents();
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  layout->addWidget(buttons);
  dialog->resize(900, 600);
  dialog->show();
}

}  // namespace meshscope::ui
