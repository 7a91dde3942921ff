#include "ui/panels/serving_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>
#include <vector>

#include "ui/charts/serving_chart.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"

namespace meshscope::ui {

namespace {

constexpr int kDefaultTtftMs = 2000;
constexpr int kDefaultItlMs = 50;
constexpr int kMaxTtftMs = 600000;
constexpr int kMaxItlMs = 60000;

// The target in milliseconds as the project stores it (0: none).
std::pair<int, int> target_ms(const Project& project) {
  const auto target = project.view.find("serving_target");
  const bool has = target != project.view.end() && target->is_object();
  // As the spin boxes hold them (their ranges).
  return {std::clamp(has ? target->value("ttft_ms", kDefaultTtftMs) : kDefaultTtftMs, 0, kMaxTtftMs),
          std::clamp(has ? target->value("itl_ms", kDefaultItlMs) : kDefaultItlMs, 0, kMaxItlMs)};
}

}  // namespace

ServingTarget serving_target_of(const Project& project) {
  const auto [ttft_ms, itl_ms] = target_ms(project);
  ServingTarget target;
  if (ttft_ms > 0) target.max_ttft_s = ttft_ms / 1e3;
  if (itl_ms > 0) target.max_itl_s = itl_ms / 1e3;
  return target;
}

ServingPanel::ServingPanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent)
    : QWidget(parent), document_(document) {
  connect(evaluator, &Evaluator::evaluated, this,
          [this, evaluator](const std::shared_ptr<const Evaluation>& evaluation) {
            showResults(evaluation.get(), evaluator->latestSearch().get());
          });
  // A serving ranking brings the best-ranked curves (a training search has none).
  connect(evaluator, &Evaluator::searched, this,
          [this, evaluator](const std::shared_ptr<const SearchEvaluation>& search) {
            if (search->error.empty() && !search->training && search->serving)
              showResults(evaluator->latest().get(), search.get());
          });
  auto* layout = new QVBoxLayout(this);
  auto* target_bar = new QHBoxLayout;
  target_bar->addWidget(new QLabel(tr("Target: TTFT ≤"), this));
  ttft_ = new QSpinBox(this);
  ttft_->setObjectName(QStringLiteral("target_ttft_ms"));
  ttft_->setRange(0, kMaxTtftMs);
  ttft_->setSuffix(tr(" ms"));
  ttft_->setSpecialValueText(tr("none"));
  ttft_->setKeyboardTracking(false);
  target_bar->addWidget(ttft_);
  target_bar->addWidget(new QLabel(tr("ITL ≤"), this));
  itl_ = new QSpinBox(this);
  itl_->setObjectName(QStringLiteral("target_itl_ms"));
  itl_->setRange(0, kMaxItlMs);
  itl_->setSuffix(tr(" ms"));
  itl_->setSpecialValueText(tr("none"));
  itl_->setKeyboardTracking(false);
  target_bar->addWidget(itl_);
  target_bar->addStretch(1);
  layout->addLayout(target_bar);
  for (QSpinBox* spin : {ttft_, itl_})
    connect(spin, &QSpinBox::valueChanged, this,
            [this] { document_->push(new SetServingTarget(document_, ttft_->value(), itl_->value())); });
  chart_ = new ServingCurveChart(this);
  chart_->setObjectName(QStringLiteral("serving_chart"));
  layout->addWidget(chart_, 1);

  connect(document_, &ProjectDocument::changed, this, &ServingPanel::sync);
  sync();
}

void ServingPanel::sync() {
  const QSignalBlocker b1(ttft_), b2(itl_);
  const auto [ttft_ms, itl_ms] = target_ms(document_->project());
  ttft_->setValue(ttft_ms);
  itl_->setValue(itl_ms);
}

void ServingPanel::showResults(const Evaluation* evaluation, const SearchEvaluation* search) {
  std::vector<ServingCurve> curves;
  if (evaluation != nullptr && evaluation->serving)
    curves.push_back({tr("current: %1").arg(serving_layout_label(evaluation->project.serving_layout)),
                      evaluation->project.serving_layout, *evaluation->serving});
  if (search != nullptr && search->serving && evaluation != nullptr && evaluation->project.mode == Mode::serving) {
    int rank = 0;
    for (const SearchEvaluation::ServingCurveOf& curve : search->curves)
      curves.push_back(
          {tr("#%1: %2").arg(++rank).arg(serving_layout_label(curve.layout)), curve.layout, curve.estimate});
  }
  chart_->setCurves(std::move(curves));
  chart_->setTarget(serving_target_of(document_->project()));
}

}  // namespace meshscope::ui
