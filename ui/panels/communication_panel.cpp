#include "ui/panels/communication_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <memory>
#include <string>

#include "core/topology/placement.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/kit/table_style.hpp"
#include "ui/panels/comm_table_model.hpp"

namespace meshscope::ui {

CommunicationPanel::CommunicationPanel(Evaluator* evaluator, QWidget* parent) : QWidget(parent) {
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { showEvaluation(*evaluation); });
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Mesh axis"), this));
  axis_ = new QComboBox(this);
  axis_->setObjectName(QStringLiteral("comm_axis"));
  axis_->addItem(tr("all"), QString());
  for (const char* axis : {"dp", "tp", "pp", "cp", "ep"})
    axis_->addItem(QString::fromLatin1(axis).toUpper(), QString::fromLatin1(axis));
  bar->addWidget(axis_);
  connect(axis_, &QComboBox::currentIndexChanged, this, [this] {
    const QString axis = axis_->currentData().toString();
    std::optional<MeshAxis> chosen;
    for (MeshAxis candidate : {MeshAxis::dp, MeshAxis::tp, MeshAxis::pp, MeshAxis::cp, MeshAxis::ep})
      if (axis == QString::fromStdString(std::string(mesh_axis_name(candidate)))) chosen = candidate;
    emit axisChanged(chosen);
    proxy_->setFilterRegularExpression(axis.isEmpty() ? QRegularExpression()
                                                      : QRegularExpression(QStringLiteral("^%1$").arg(axis),
                                                                           QRegularExpression::CaseInsensitiveOption));
  });
  auto* show_map = new QPushButton(tr("Show on the topology"), this);
  connect(show_map, &QPushButton::clicked, this, &CommunicationPanel::showMapRequested);
  bar->addWidget(show_map);
  bar->addStretch(1);
  layout->addLayout(bar);
  exposed_ = new QLabel(this);
  exposed_->setObjectName(QStringLiteral("comm_exposed"));
  exposed_->setTextFormat(Qt::RichText);
  exposed_->setWordWrap(true);
  layout->addWidget(exposed_);
  model_ = new CommTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setFilterKeyColumn(0);  // the axis
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  auto* view = new QTableView(this);
  view->setObjectName(QStringLiteral("comm_table"));
  view->setModel(proxy_);
  style_table(view, {.row_headers = false});
  layout->addWidget(view, 1);
}

void CommunicationPanel::showEvaluation(const Evaluation& e) {
  if (!e.estimate) {
    model_->setPlan(nullptr);
    exposed_->clear();
    return;
  }
  model_->setPlan(std::shared_ptr<const CommPlan>(e.estimate, &e.estimate->comm));
  // What each axis adds to the step after overlap (docs/estimate.md lists the overlap rules).
  const StepBreakdown& b = e.estimate->breakdown;
  exposed_->setText(tr("<b>Exposed per step</b> (not hidden behind compute): TP %1 · CP %2 · EP %3 · PP send/recv %4 · "
                       "DP %5 — of a %6 step. Time/step below is the collectives' total, overlapped or not.")
                        .arg(duration_text(b.tp_exposed_s), duration_text(b.cp_exposed_s),
                             duration_text(b.ep_exposed_s), duration_text(b.pp_p2p_s), duration_text(b.dp_exposed_s),
                             duration_text(e.estimate->step_time_s)));
}

}  // namespace meshscope::ui
