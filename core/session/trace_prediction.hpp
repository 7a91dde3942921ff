#pragma once
// What a front end measured (an imported profiler trace, a training log) against an evaluation's prediction: the
// trace's compute, communication and bubble per step (core/calibration/trace_compare.hpp) and the log's step time,
// throughput and memory (core/calibration/log_compare.hpp), as meshscope-cli compare does. The GUI runs it on the
// evaluator's worker thread with each evaluation (ui/document/evaluator.*) and stores the result in the Evaluation
// (core/session/evaluate.hpp); its profile view shows it and the GEMM calibration reads it.
#include <memory>
#include <string>

#include "core/calibration/log_compare.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/training_log.hpp"
#include "core/session/evaluate.hpp"

namespace meshscope {

// The imported measurements; either may be absent.
struct MeasuredRuns {
  std::shared_ptr<const KinetoRunAnalysis> trace;
  std::shared_ptr<const MeasuredRun> log;
};

struct TracePrediction {
  MeasuredRuns runs;       // what was compared (a view shows the comparison only beside the same trace and log)
  bool predicted = false;  // the evaluation has a training estimate on a resolved cluster to compare with
  std::shared_ptr<const TraceComparison> trace;  // runs.trace against the estimate
  std::string trace_error;                       // why not (a trace of another world size, ...)
  std::shared_ptr<const LogComparison> log;      // runs.log against the estimate
  std::string log_error;
};

// `runs` against `evaluation`'s step estimate for its project's layout on its cluster (nothing to compare when
// the evaluation has no estimate or no cluster: predicted is false).
[[nodiscard]] TracePrediction compare_with_prediction(const MeasuredRuns& runs, const Evaluation& evaluation);

}  // namespace meshscope
