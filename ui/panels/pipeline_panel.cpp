#include "ui/panels/pipeline_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <string>

#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/kit/view_text.hpp"
#include "ui/panels/pipeline_animation.hpp"
#include "ui/panels/pipeline_chart.hpp"

namespace meshscope::ui {

using namespace view_text;

namespace {}  // namespace

PipelinePanel::PipelinePanel(ProjectDocument* document, Evaluator* evaluator, QWidget* parent)
    : QWidget(parent), document_(document) {
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { showEvaluation(*evaluation); });
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  // The schedule, the virtual stages and the micro-batch size, switched here as in the workload panel.
  bar->addWidget(new QLabel(tr("Schedule"), this));
  schedule_ = new QComboBox(this);
  schedule_->setObjectName(QStringLiteral("pipeline_schedule_here"));
  for (const auto& [value, name] : EnumNames<PipelineSchedule>::table)
    schedule_->addItem(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())),
                       QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
  connect(schedule_, &QComboBox::activated, this, [this] {
    if (const auto schedule = parse_enum<PipelineSchedule>(schedule_->currentData().toString().toStdString()))
      document_->push(new SetSchedule(document_, *schedule));
  });
  bar->addWidget(schedule_);
  bar->addWidget(new QLabel(tr("virtual stages"), this));
  vpp_ = new QSpinBox(this);
  vpp_->setRange(1, 64);
  vpp_->setKeyboardTracking(false);
  connect(vpp_, &QSpinBox::valueChanged, this, [this](int value) {
    Layout edited = document_->project().layout;
    edited.vpp = value;
    document_->push(new SetLayout(document_, edited, QStringLiteral("vpp"), QString::number(value)));
  });
  bar->addWidget(vpp_);
  bar->addWidget(new QLabel(tr("micro-batch size"), this));
  micro_batch_ = new QSpinBox(this);
  micro_batch_->setRange(1, 4096);
  micro_batch_->setKeyboardTracking(false);
  connect(micro_batch_, &QSpinBox::valueChanged, this, [this](int value) {
    Layout edited = document_->project().layout;
    edited.micro_batch = value;
    document_->push(new SetLayout(document_, edited, QStringLiteral("micro_batch"), QString::number(value)));
  });
  bar->addWidget(micro_batch_);
  bar->addSpacing(24);
  bar->addWidget(new QLabel(tr("Compare with"), this));
  compare_schedule_ = new QComboBox(this);
  compare_schedule_->setObjectName(QStringLiteral("compare_schedule"));
  compare_schedule_->addItem(tr("(none)"), QString());
  for (const auto& [value, name] : EnumNames<PipelineSchedule>::table)
    compare_schedule_->addItem(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())),
                               QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
  connect(compare_schedule_, &QComboBox::activated, this,
          [this] { document_->push(new SetCompareSchedule(document_, compare_schedule_->currentData().toString())); });
  bar->addWidget(compare_schedule_);
  bar->addStretch(1);
  layout->addLayout(bar);
  caption_ = new QLabel(this);
  caption_->setTextFormat(Qt::RichText);
  layout->addWidget(caption_);
  chart_ = new PipelineChart(this);
  // The animation: a cursor moved over the schedule, the activations in flight beside it.
  animation_ = new PipelineAnimation(this);
  layout->addWidget(animation_);
  auto* row = new QHBoxLayout;
  row->addWidget(chart_, 1);
  in_flight_ = new InFlightChart(chart_, this);
  // A click on the schedule gives the keys (space, arrows) to the animation.
  chart_->setFocusPolicy(Qt::ClickFocus);
  chart_->setFocusProxy(animation_);
  row->addWidget(in_flight_);
  layout->addLayout(row);
  connect(animation_, &PipelineAnimation::timeChanged, this, [this](double t_s) {
    chart_->setCursorTime(t_s);
    in_flight_->setTime(t_s);
  });
  compare_caption_ = new QLabel(this);
  compare_caption_->setTextFormat(Qt::RichText);
  layout->addWidget(compare_caption_);
  compare_chart_ = new PipelineChart(this);
  compare_chart_->setObjectName(QStringLiteral("compare_chart"));
  // The cursor on the second chart too (the zoomed warm-up, or the comparison on the same clock).
  connect(animation_, &PipelineAnimation::timeChanged, compare_chart_,
          [this](double t_s) { compare_chart_->setCursorTime(t_s); });
  layout->addWidget(compare_chart_);
  layout->addStretch(1);

  connect(document_, &ProjectDocument::changed, this, &PipelinePanel::sync);
  sync();
}

void PipelinePanel::sync() {
  const Project& project = document_->project();
  const QSignalBlocker b1(schedule_), b2(vpp_), b3(micro_batch_), b4(compare_schedule_);
  const QString schedule = QString::fromStdString(std::string(enum_name(project.training.schedule)));
  schedule_->setCurrentIndex(std::max(0, schedule_->findData(schedule)));
  vpp_->setValue(static_cast<int>(project.layout.vpp));
  micro_batch_->setValue(static_cast<int>(project.layout.micro_batch));
  const auto compare = project.view.find("compare_schedule");
  compare_schedule_->setCurrentIndex(
      std::max(0, compare_schedule_->findData(compare != project.view.end() && compare->is_string()
                                                  ? QString::fromStdString(compare->get<std::string>())
                                                  : QString())));
}

void PipelinePanel::showEvaluation(const Evaluation& e) {
  if (e.estimate) {
    caption_->setText(schedule_caption(*e.estimate));
    chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    in_flight_->setSchedule(e.estimate->schedule);
    animation_->setSchedule(e.estimate->schedule);
  } else {
    caption_->setText(e.problems.empty() ? tr("No pipeline (serving, or no cluster).")
                                         : tr("The layout is not valid."));
    chart_->setSchedule({}, PipelineSchedule::one_f_one_b);
    in_flight_->setSchedule({});
    animation_->setSchedule({});
  }
  // The second chart: the comparison schedule on the same time axis, or else a zoom on the
  // warm-up, where with hundreds of micro-batches the bubble and the block numbers are legible.
  chart_->setTimeWindow(0, 0);
  const double warm_up_end = e.estimate ? warm_up_window_s(e.estimate->schedule) : 0.0;
  if (e.compare_estimate) {
    compare_caption_->setText(tr("compared with ") + schedule_caption(*e.compare_estimate));
    compare_chart_->setSchedule(e.compare_estimate->schedule, e.compare_estimate->pipeline_schedule);
    const double end = std::max(e.estimate->schedule.makespan_s, e.compare_estimate->schedule.makespan_s);
    chart_->setTimeWindow(0, end);
    compare_chart_->setTimeWindow(0, end);
  } else if (warm_up_end > 0) {
    compare_caption_->setText(tr("the warm-up, zoomed: first %1").arg(duration_text(warm_up_end)));
    compare_chart_->setSchedule(e.estimate->schedule, e.estimate->pipeline_schedule);
    compare_chart_->setTimeWindow(0, warm_up_end);
  }
  if (!e.compare_error.empty()) {
    compare_caption_->setText(QStringLiteral("<span style=\"color:%1\">%2</span>")
                                  .arg(kProblemColour, tr("Cannot compare: %1").arg(html(e.compare_error))));
    compare_caption_->show();
  }
  const bool second = e.compare_estimate != nullptr || warm_up_end > 0;
  compare_chart_->setVisible(second);
  compare_caption_->setVisible(second || !e.compare_error.empty());
}

}  // namespace meshscope::ui
