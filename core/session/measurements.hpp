#pragma once
// Measurements every front end reads the same way: the files of a profiled run (a list of files and folders),
// the run loaded and analysed with progress and cancellation (the app's import, the CLI's and Python's
// import --trace), and the run compared with the prediction of the layout it ran (compare --trace).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/session/inputs.hpp"

namespace meshscope {

// The trace files `entries` name, in order: a file as given, a folder as its *.json and *.json.gz files sorted by
// name (one per rank). Errors (located by the entry, or by `option` when nothing is named): a folder that cannot be
// listed or holds no trace; no entry at all.
[[nodiscard]] Result<std::vector<std::string>> expand_trace_paths(const std::vector<std::string>& entries,
                                                                  const std::string& option);

// Called as the files load with the bytes read so far over all of them (the files' own sizes: compressed where
// they are); return false to cancel, and the load fails with kKinetoCancelled.
using TraceRunProgress = std::function<bool(int64_t bytes_read)>;
// Every file loaded (load_kineto_trace), then the run analysed as one (analyze_kineto_run). The first file that
// fails to load is the error.
[[nodiscard]] Result<KinetoRunAnalysis> load_trace_run(const std::vector<std::string>& files,
                                                       const KinetoAnalysisOptions& options = {},
                                                       const TraceRunProgress& progress = {});

// A measured run beside the prediction for the layout it ran: the comparison, its notes (the comparison's and the
// run's warnings, and why no GEMM efficiency could be fitted, when none could) and the fitted GEMM efficiency.
struct TraceRunComparison {
  TraceComparison comparison;
  std::vector<std::string> notes;
  std::optional<GemmEfficiencyHint> hint;
};
// `setup`'s layout must fit its cluster (ClusterUse::fit: the job may have run on part of it). Errors: the
// layout's, the estimate's and compare_trace's.
[[nodiscard]] Result<TraceRunComparison> compare_trace_run(const KinetoRunAnalysis& run, const TrainingSetup& setup,
                                                           const EstimateOptions& options);

}  // namespace meshscope
