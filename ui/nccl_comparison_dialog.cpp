#include "ui/nccl_comparison_dialog.hpp"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/formatting.hpp"

namespace meshscope::ui {

void show_nccl_comparison(QWidget* parent, const QString& summary, const std::vector<NcclComparisonRow>& rows) {
  // The fit's summary, then every row: measured against predicted before and after.
  auto* dialog = new QDialog(parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(QObject::tr("Calibration applied"));
  auto* layout = new QVBoxLayout(dialog);
  auto* text = new QLabel(summary.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")), dialog);
  text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(text);
  auto* table = new QTableWidget(static_cast<int>(rows.size()), 8, dialog);
  table->setObjectName(QStringLiteral("nccl_comparison"));
  table->setHorizontalHeaderLabels({QObject::tr("Collective"), QObject::tr("Size"), QObject::tr("Measured"),
                                    QObject::tr("Predicted before"), QObject::tr("Predicted after"),
                                    QObject::tr("Measured busbw"), QObject::tr("Predicted busbw"),
                                    QObject::tr("Error after")});
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  for (int row = 0; row < table->rowCount(); ++row) {
    const NcclComparisonRow& r = rows[static_cast<size_t>(row)];
    const double error = r.after_time_s / r.measured_time_s - 1;
    const QString cells[] = {
        r.collective,
        binary_bytes_text(r.bytes),
        duration_text(r.measured_time_s),
        duration_text(r.before_time_s),
        duration_text(r.after_time_s),
        QStringLiteral("%1 GB/s").arg(r.measured_busbw / 1e9, 0, 'f', 1),
        QStringLiteral("%1 GB/s").arg(r.after_busbw / 1e9, 0, 'f', 1),
        QStringLiteral("%1%2 %").arg(error >= 0 ? QStringLiteral("+") : QString()).arg(100 * error, 0, 'f', 1)};
    for (int column = 0; column < 8; ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table->setItem(row, column, item);
    }
  }
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
  table->horizontalHeader()->setStretchLastSection(true);
  table->resizeColumnsToContents();
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  layout->addWidget(buttons);
  dialog->resize(900, 600);
  dialog->show();
}

}  // namespace meshscope::ui
