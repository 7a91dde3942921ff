#pragma once
// The calibration use cases the GUI and the CLI share (no Qt): fit the GEMM efficiency of a project to
// the compute time a profiler trace measured, and fit the collective model's constants to nccl-tests
// logs. Each returns the new calibration keys and what the fit did as plain values; the caller decides
// whether to apply them (the GUI as one undoable command, the CLI by printing them). On an error
// nothing is returned and the inputs are unchanged.
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.hpp"
#include "core/calibration/calibrate.hpp"
#include "core/calibration/log_compare.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/keys/options.hpp"
#include "core/project/project.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

// ---- GEMM efficiency from a trace ----

struct GemmCalibration {
  double measured_compute_s = 0;  // what the fit matched: the trace's compute per step
  GemmEfficiencyHint hint;        // before/after efficiency and compute errors, at_limit
  // The project's --efficiency keys with "gemm" replaced by (or set to) the fitted value, last.
  KeyValues efficiency_keys;
};

// Fits ComputeEfficiency::gemm so that the project's predicted compute equals `measured_compute_s`
// (gemm_efficiency_hint on the project's model, training workload, layout and calibration, on `cluster`,
// the cluster the project resolves to). Errors (invalid_argument): a serving project, a measured time that
// is not positive; and the errors of the project's calibration keys and of the estimate.
[[nodiscard]] Result<GemmCalibration> calibrate_gemm_efficiency(const Project& project, const Cluster& cluster,
                                                                double measured_compute_s);
// The same with the "compute" row of a trace comparison (compare_trace) as the measured time. Errors as
// above, and a comparison without a measured compute row.
[[nodiscard]] Result<GemmCalibration> calibrate_gemm_efficiency(const Project& project, const Cluster& cluster,
                                                                const TraceComparison& comparison);

// The same from a training log (core/importers/training_log.hpp): the whole step, not its compute, is matched
// (step_time_gemm_hint, core/calibration/log_compare.hpp), so everything the model gets wrong outside the GEMMs lands
// in the one number. Errors: a serving project, a log without a step time, and step_time_gemm_hint's.
struct LogGemmCalibration {
  double measured_step_s = 0;  // the log's median step after warm-up
  LogGemmHint hint;
  KeyValues efficiency_keys;  // as GemmCalibration's
};
[[nodiscard]] Result<LogGemmCalibration> calibrate_gemm_from_log(const Project& project, const Cluster& cluster,
                                                                 const MeasuredRun& log);

// ---- The collective model from nccl-tests logs ----

// Bandwidth-bound sizes: the rows the fit uses by default (meshscope-cli calibrate --min-bytes).
inline constexpr double kDefaultCalibrationMinBytes = 64.0 * 1024 * 1024;

// Loads an nccl-tests log that names its collective (in its header or its file name). Errors: those of
// load_nccl_tests, and a log that does not say which collective it measured (located by `path`).
[[nodiscard]] Result<NcclTestsLog> load_collective_log(const std::string& path);

// The GPUs a log ran on when the user names none: the cluster's first `log.ranks` GPUs in order. Errors
// (invalid_argument, located by `location`): a log that does not say how many ranks ran, or more ranks
// than the cluster has GPUs.
[[nodiscard]] Result<std::vector<DeviceId>> default_log_gpus(const Cluster& cluster, const NcclTestsLog& log,
                                                             const std::string& location);

// One out-of-place row of a log: measured, and predicted with the constants before and after the fit.
struct NcclCalibrationRow {
  std::string collective;  // "all-gather"
  double bytes = 0;
  double measured_time_s = 0, before_time_s = 0, after_time_s = 0;
  double measured_busbw = 0, after_busbw = 0;  // bytes/s
};

struct NcclCalibration {
  CalibrationResult fit;  // the fitted constants, the changes, the errors over the rows used
  double min_bytes = kDefaultCalibrationMinBytes;
  // `start_keys` with the fitted keys set: a key already there takes the new value in place, a new one
  // is appended.
  KeyValues comm_keys;
  std::vector<NcclCalibrationRow> rows;  // every log's rows, in the logs' order
};

// Fits the collective constants (calibrate_from_nccl_tests) starting from the --comm keys `start_keys`,
// on the rows of at least `min_bytes`. Errors: keys comm_constants_from_keys refuses, and the errors of
// calibrate_from_nccl_tests (no log, a log on a group it rejects, no row of at least min_bytes).
[[nodiscard]] Result<NcclCalibration> calibrate_collectives(
    const std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>>& runs, const Cluster& cluster,
    const KeyValues& start_keys, double min_bytes = kDefaultCalibrationMinBytes);

// What the app's Calibrate from nccl-tests logs does: loads every log (load_collective_log), runs each on
// its default GPUs (default_log_gpus) and fits from the project's --comm keys on the rows of at least
// 64 MiB. Errors: the first log that does not load or does not fit the cluster, then calibrate_collectives'.
[[nodiscard]] Result<NcclCalibration> calibrate_project_from_nccl_tests(const Project& project, const Cluster& cluster,
                                                                        const std::vector<std::string>& log_paths);

}  // namespace meshscope
