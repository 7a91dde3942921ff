// The Explain panel's text: the formulas, sources and inputs behind the numbers of an evaluation.
#include "ui/panels/explain_text.hpp"

#include <QObject>

#include <string>
#include <utility>

#include "ui/kit/formatting.hpp"

namespace meshscope::ui {

namespace {

QString html(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

}  // namespace

QString explain_html(const Evaluation& e) {
  QString out = QStringLiteral("<h3>%1</h3>").arg(QObject::tr("How the numbers are computed"));
  if (!e.problems.empty()) {
    out += QObject::tr("<p>The layout is not valid, so nothing is estimated:</p><ul>");
    for (const LayoutProblem& problem : e.problems)
      out += QStringLiteral("<li><b>%1</b>: %2</li>").arg(html(problem.field), html(problem.message));
    return out + QStringLiteral("</ul>");
  }
  if (e.budget) {
    out += QObject::tr(
               "<h4>Memory (%1)</h4><p>Convention: %2. Each row: bytes = formula; the inputs are in the "
               "formula text.</p><table cellspacing=0 cellpadding=3>")
               .arg(gib_text(e.budget->peak_total_bytes()), html(e.budget->convention));
    if (!e.budget->ranks.empty()) {
      const RankMemory& rank = e.budget->ranks.front();
      out += QObject::tr("<tr><td colspan=3><i>%1 (the first distinct rank)</i></td></tr>").arg(html(rank.role));
      for (const MemoryItem& item : rank.items)
        out += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td>= %3</td></tr>")
                   .arg(category_label(item.category), gib_text(item.bytes), html(item.formula));
    }
    out += QStringLiteral("</table>");
  }
  if (e.estimate) {
    const StepEstimate& s = *e.estimate;
    const StepBreakdown& b = s.breakdown;
    out += QObject::tr("<h4>Step time %1 s</h4>").arg(s.step_time_s, 0, 'f', 3);
    if (!s.known_gaps.empty()) {
      // Measured runs like this one differ from the model by more than 20 % (core/estimate/known_gaps.hpp).
      out += QObject::tr("<p style='color:#b45309'><b>Known gap in the validation:</b></p><ul>");
      for (const KnownGap& gap : s.known_gaps)
        out += QStringLiteral("<li style='color:#b45309'>%1</li>").arg(html(gap.text));
      out += QStringLiteral("</ul>");
    }
    out += QObject::tr(
               "<p>The busiest stage's work is run through the %1 schedule's event simulation "
               "(docs/schedules.md); exposed data-parallel communication and the optimizer step follow "
               "(docs/estimate.md). The parts below are disjoint and add up to the step.</p>"
               "<table cellspacing=0 cellpadding=3>")
               .arg(QString::fromStdString(std::string(enum_name(s.pipeline_schedule))));
    const std::pair<QString, double> terms[] = {{QObject::tr("forward compute (busiest stage)"), b.forward_s},
                                                {QObject::tr("backward (input + weight)"), b.backward_s},
                                                {QObject::tr("recompute"), b.recompute_s},
                                                {QObject::tr("TP exposed"), b.tp_exposed_s},
                                                {QObject::tr("CP exposed"), b.cp_exposed_s},
                                                {QObject::tr("EP exposed"), b.ep_exposed_s},
                                                {QObject::tr("PP send/recv on the critical path"), b.pp_p2p_s},
                                                {QObject::tr("pipeline bubble (its idle time)"), b.bubble_s},
                                                {QObject::tr("DP exposed"), b.dp_exposed_s},
                                                {QObject::tr("optimizer"), b.optimizer_s}};
    for (const auto& [label, seconds] : terms)
      out += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(label, duration_text(seconds));
    out += QStringLiteral("</table>");
    out += QObject::tr(
               "<p><b>MFU</b> = model FLOPs per token × tokens/s ÷ (GPUs × dense peak of the compute dtype) "
               "= %1 % (model FLOPs without recompute: Narayanan et al. SC21 Eq. 3 convention; "
               "HFU %2 % counts recompute). Tokens/s per GPU = global batch × sequence ÷ step ÷ GPUs = %3.</p>")
               .arg(100 * s.mfu, 0, 'f', 1)
               .arg(100 * s.hfu, 0, 'f', 1)
               .arg(s.tokens_per_s_per_gpu, 0, 'f', 0);
    out += QObject::tr(
        "<h4>One layer, one micro-batch, on one rank</h4><table cellspacing=0 cellpadding=3>"
        "<tr><th align=left>operation</th><th>GFLOP</th><th>MB moved</th><th>forward</th>"
        "<th>input grad</th><th>weight grad</th></tr>");
    for (const OperationCost& op : s.operations)
      out += QStringLiteral(
                 "<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td>"
                 "<td align=right>%5</td><td align=right>%6</td></tr>")
                 .arg(html(op.name))
                 .arg(op.flops / 1e9, 0, 'f', 1)
                 .arg(op.bytes / 1e6, 0, 'f', 1)
                 .arg(duration_text(op.forward_s), duration_text(op.backward_input_s),
                      duration_text(op.backward_weight_s));
    out += QStringLiteral("</table>");
    {
      // The framework overlap keys as set, with the flag each mirrors (docs/cli.md); how each
      // applied to this layout is in the assumptions below.
      const TrainingWorkload& w = e.project.training;
      const auto on = [](bool value) { return value ? QObject::tr("on") : QObject::tr("off"); };
      const std::pair<QString, QString> keys[] = {
          {QObject::tr("tp_comm_overlap (Megatron --tp-comm-overlap, TE userbuffers)"), on(w.tp_comm_overlap)},
          {QObject::tr("overlap_grad_reduce (Megatron --overlap-grad-reduce)"), on(w.overlap_grad_reduce)},
          {QObject::tr("overlap_param_gather (Megatron --overlap-param-gather)"), on(w.overlap_param_gather)},
          {QObject::tr("overlap_p2p_comm (Megatron-Core, interleaved schedule)"), on(w.overlap_p2p_comm)},
          {QObject::tr("fsdp_prefetch (FSDP2, zero=3)"), on(w.fsdp_prefetch)},
          {QObject::tr("reshard_after_forward (torchtitan, zero=3)"),
           QString::fromStdString(std::string(reshard_after_forward_name(w.reshard_after_forward)))}};
      out += QObject::tr(
          "<h4>Framework overlap</h4><p>What each collective costs after the compute it runs under "
          "(docs/estimate.md §2). With TP-overlap the TP term is the exposed remainder plus the GEMMs' "
          "slowdown on the SMs the communication kernels take.</p><table cellspacing=0 cellpadding=3>");
      for (const auto& [key, value] : keys) out += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(key, value);
      out += QStringLiteral("</table>");
    }
    if (!s.assumptions.empty()) {
      out += QObject::tr("<h4>Assumptions</h4><ul>");
      for (const std::string& assumption : s.assumptions) out += QStringLiteral("<li>%1</li>").arg(html(assumption));
      out += QStringLiteral("</ul>");
    }
  }
  if (e.serving) {
    out += QObject::tr("<h4>Serving</h4><ul>");
    for (const std::string& assumption : e.serving->assumptions)
      out += QStringLiteral("<li>%1</li>").arg(html(assumption));
    out += QStringLiteral("</ul>");
  }
  return out;
}

}  // namespace meshscope::ui
