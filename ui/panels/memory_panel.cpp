#include "ui/panels/memory_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/charts/memory_chart.hpp"
#include "ui/kit/table_style.hpp"
#include "ui/panels/memory_table_model.hpp"

namespace meshscope::ui {

namespace {

// A table view as large as its cells plus the scroll bars it shows. AdjustToContents alone
// reserves room for the scroll bars even while they are hidden (Qt 6.4 asks the bars, not their
// hidden containers), and does not ask for more height when a horizontal scroll bar appears.
class ContentSizedTableView final : public QTableView {
 public:
  explicit ContentSizedTableView(QWidget* parent) : QTableView(parent) {
    for (const QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
      connect(bar, &QScrollBar::rangeChanged, this, [this] { updateGeometry(); });
  }
  [[nodiscard]] QSize sizeHint() const override {
    const int frame = 2 * frameWidth();
    QSize hint = viewportSizeHint() + QSize(frame, frame);
    if (horizontalScrollBar()->isVisible()) hint.rheight() += horizontalScrollBar()->sizeHint().height();
    if (verticalScrollBar()->isVisible()) hint.rwidth() += verticalScrollBar()->sizeHint().width();
    return hint;
  }
};

}  // namespace

MemoryPanel::MemoryPanel(Evaluator* evaluator, QWidget* parent) : QWidget(parent) {
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { setBudget(evaluation->budget); });
  auto* layout = new QHBoxLayout(this);
  chart_ = new MemoryChart(this);
  chart_->setObjectName(QStringLiteral("memory_chart"));
  chart_->setMinimumWidth(480);
  auto* table_box = new QWidget(this);
  auto* table_layout = new QVBoxLayout(table_box);
  model_ = new MemoryTableModel(this);
  table_ = new ContentSizedTableView(table_box);
  table_->setObjectName(QStringLiteral("memory_table"));
  table_->setModel(model_);
  // Tighter than the other tables: it sits beside the chart.
  style_table(table_, {.compact = true});
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  table_layout->addWidget(table_, 0, Qt::AlignLeft | Qt::AlignTop);
  table_layout->addStretch(1);
  layout->addWidget(chart_, 1);
  layout->addWidget(table_box, 0);
}

void MemoryPanel::setBudget(const std::shared_ptr<const MemoryBudget>& budget) {
  model_->setBudget(budget);
  chart_->setBudget(budget);
}

}  // namespace meshscope::ui
