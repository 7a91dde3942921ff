#include "core/session/trace_prediction.hpp"

#include <utility>

namespace meshscope {

TracePrediction compare_with_prediction(const MeasuredRuns& runs, const Evaluation& evaluation) {
  TracePrediction out;
  out.runs = runs;
  out.predicted = evaluation.estimate && evaluation.cluster;
  if (!out.predicted) return out;
  const Layout& layout = evaluation.project.layout;
  if (runs.trace) {
    auto compared = compare_trace(*runs.trace, *evaluation.estimate, layout, *evaluation.cluster);
    if (compared)
      out.trace = std::make_shared<const TraceComparison>(std::move(*compared));
    else
      out.trace_error = compared.error().to_string();
  }
  if (runs.log) {
    auto compared = compare_training_log(*runs.log, *evaluation.estimate, layout);
    if (compared)
      out.log = std::make_shared<const LogComparison>(std::move(*compared));
    else
      out.log_error = compared.error().to_string();
  }
  return out;
}

}  // namespace meshscope
