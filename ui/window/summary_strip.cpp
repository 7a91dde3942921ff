#include "ui/window/summary_strip.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QStringList>

#include <QVBoxLayout>
#include "core/framework/framework.hpp"

#include <string>

#include "ui/kit/formatting.hpp"
#include "ui/kit/view_text.hpp"

namespace meshscope::ui {

using namespace view_text;

QString budget_header_html(const Project& project, const MemoryBudget& budget) {
  QStringList lines;
  lines << title_line(project);
  lines << layout_line(project).toHtmlEscaped();
  lines << html(budget.convention);
  if (project.mode == Mode::serving && budget.max_concurrency > 0)
    lines << QObject::tr("KV cache %1 per token, at most %2 concurrent sequences")
                 .arg(exact_bytes_text(budget.kv_bytes_per_token))
                 .arg(static_cast<qlonglong>(budget.max_concurrency));
  const bool fits = budget.fits();
  lines << QObject::tr("peak %1 of %2 \u2014 <span style=\"color:%3\"><b>%4</b></span>")
               .arg(gib_text(budget.peak_total_bytes()), gib_text(budget.usable_bytes),
                    fits ? kFitsColour : kProblemColour, fits ? QObject::tr("fits") : QObject::tr("does not fit"));
  return lines.join(QStringLiteral("<br>"));
}

QString problems_header_html(const Project& project, const std::vector<LayoutProblem>& problems) {
  QString text = title_line(project) + QStringLiteral("<br>") + layout_line(project).toHtmlEscaped();
  text += QStringLiteral("<p style=\"color:%1\"><b>%2</b></p><ul style=\"color:%1\">")
              .arg(kProblemColour, QObject::tr("This layout is not valid:"));
  for (const LayoutProblem& problem : problems)
    text += QStringLiteral("<li><b>%1</b>: %2</li>").arg(html(problem.field), html(problem.message));
  return text + QStringLiteral("</ul>");
}

SummaryStrip::SummaryStrip(Evaluator* evaluator, QWidget* parent) : QWidget(parent) {
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { showEvaluation(*evaluation); });
  setObjectName(QStringLiteral("summary_strip"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 4, 8, 4);
  error_banner_ = new QLabel(this);
  error_banner_->setObjectName(QStringLiteral("error_banner"));
  error_banner_->setWordWrap(true);
  error_banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_banner_->setStyleSheet(
      QStringLiteral("QLabel { background: #fdecea; color: #8e1b1b; border: 1px solid #e0a0a0; padding: 6px; }"));
  error_banner_->hide();
  layout->addWidget(error_banner_);
  auto* strip = new QHBoxLayout;
  strip->setSpacing(24);
  header_ = new QLabel(this);
  header_->setObjectName(QStringLiteral("header"));
  header_->setTextFormat(Qt::RichText);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  strip->addWidget(header_, 3);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  strip->addWidget(summary_, 2);
  layout->addLayout(strip);
}

void SummaryStrip::setError(const QString& message) {
  error_banner_->setText(message);
  error_banner_->setVisible(!message.isEmpty());
}

QString SummaryStrip::error() const {
  return error_banner_->isHidden() ? QString() : error_banner_->text();
}

void SummaryStrip::showEvaluation(const Evaluation& e) {
  const Project& p = e.project;
  if (!e.problems.empty()) {
    header_->setText(problems_header_html(p, e.problems));
  } else if (e.budget) {
    header_->setText(budget_header_html(p, *e.budget));
  }
  QString summary;
  if (e.estimate) {
    const StepEstimate& s = *e.estimate;
    summary = tr("Predicted step <b>%1 s</b> · %2 tokens/s per GPU · MFU <b>%3 %</b> · bubble %4 %")
                  .arg(s.step_time_s, 0, 'f', 2)
                  .arg(s.tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(100 * s.mfu, 0, 'f', 1)
                  .arg(100 * s.bubble_fraction, 0, 'f', 1);
    if (e.cluster) summary += tr(" · on %1").arg(html(e.cluster->name));
    // The target framework (core/framework/framework.hpp): which one the numbers assume, and
    // whether it runs this layout.
    const FrameworkSpec& framework = framework_spec(p.training.framework);
    summary += tr(" · framework %1").arg(html(std::string(enum_name(framework.id))));
    if (auto why =
            framework_rejects(framework, p.layout, p.training, p.training.schedule, p.order == AxisOrder::tp_pp_dp))
      summary += tr("<br><span style=\"color:%1\">%2</span>").arg(kProblemColour, html(*why));
    // A validation gap (core/estimate/known_gaps.hpp): measured runs like this one differ by more
    // than 20 %; the Explain panel says how and where.
    if (!s.known_gaps.empty())
      summary += tr("<br><span style=\"color:#b45309\">known gap in the validation (%1): see Explain</span>")
                     .arg(gap_ids_text(s.known_gaps));
  } else if (e.serving) {
    const ServingEstimate& s = *e.serving;
    summary = tr("TTFT <b>%1</b> · ITL <b>%2</b> · %3 output tokens/s per GPU · max batch %4 · bound by %5")
                  .arg(duration_text(s.point.ttft_s), duration_text(s.point.itl_s))
                  .arg(s.output_tokens_per_s_per_gpu, 0, 'f', 0)
                  .arg(static_cast<qlonglong>(s.max_batch))
                  .arg(QString::fromStdString(std::string(serving_binding_name(s.point.binding))));
  } else if (!e.estimate_error.empty()) {
    summary = QStringLiteral("<span style=\"color:%1\">%2</span>").arg(kProblemColour, html(e.estimate_error));
  }
  summary_->setText(summary);
}

}  // namespace meshscope::ui
