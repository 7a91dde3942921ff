#include "core/session/calibrate.hpp"

#include <algorithm>
#include <iterator>

#include "core/comm/collective.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {

Result<GemmCalibration> calibrate_gemm_efficiency(const Project& project, const Cluster& cluster,
                                                  double measured_compute_s) {
  if (project.mode != Mode::training)
    return make_error(ErrorCode::invalid_argument,
                      "the GEMM efficiency is fitted to a training step; the project serves", "mode");
  if (!(measured_compute_s > 0))
    return make_error(ErrorCode::invalid_argument, "the measured compute time must be positive");
  MS_TRY(options, project_estimate_options(project));
  const Router router(cluster);
  MS_TRY(hint, gemm_efficiency_hint(measured_compute_s, project.model, project.training, project.layout, cluster,
                                    router, options));
  GemmCalibration calibration;
  calibration.measured_compute_s = measured_compute_s;
  calibration.efficiency_keys = project.efficiency_keys;
  std::erase_if(calibration.efficiency_keys, [](const auto& entry) { return entry.first == "gemm"; });
  calibration.efficiency_keys.emplace_back("gemm", hint.efficiency_key.substr(hint.efficiency_key.find('=') + 1));
  calibration.hint = std::move(hint);
  return calibration;
}

Result<GemmCalibration> calibrate_gemm_efficiency(const Project& project, const Cluster& cluster,
                                                  const TraceComparison& comparison) {
  const TraceCompareRow* compute = comparison.row("compute");
  if (compute == nullptr || !(compute->measured > 0))
    return make_error(ErrorCode::invalid_argument, "the trace comparison has no measured compute time");
  return calibrate_gemm_efficiency(project, cluster, compute->measured);
}

Result<LogGemmCalibration> calibrate_gemm_from_log(const Project& project, const Cluster& cluster,
                                                   const MeasuredRun& log) {
  if (project.mode != Mode::training)
    return make_error(ErrorCode::invalid_argument,
                      "the GEMM efficiency is fitted to a training step; the project serves", "mode");
  if (!log.step_time_s || !(log.step_time_s->median > 0))
    return make_error(ErrorCode::invalid_argument, "the training log has no step time to fit to", log.origin);
  MS_TRY(options, project_estimate_options(project));
  const Router router(cluster);
  MS_TRY(hint, step_time_gemm_hint(log.step_time_s->median, project.model, project.training, project.layout, cluster,
                                   router, options));
  LogGemmCalibration calibration;
  calibration.measured_step_s = log.step_time_s->median;
  calibration.efficiency_keys = project.efficiency_keys;
  std::erase_if(calibration.efficiency_keys, [](const auto& entry) { return entry.first == "gemm"; });
  calibration.efficiency_keys.emplace_back("gemm", hint.efficiency_key.substr(hint.efficiency_key.find('=') + 1));
  calibration.hint = std::move(hint);
  return calibration;
}

Result<NcclTestsLog> load_collective_log(const std::string& path) {
  auto log = load_nccl_tests(path);
  if (!log) return log;
  if (!log->op)
    return make_error(ErrorCode::invalid_argument,
                      "the log does not say which collective it measured; name the file after it (e.g. "
                      "all_reduce_perf.log)",
                      path);
  return log;
}

Result<std::vector<DeviceId>> default_log_gpus(const Cluster& cluster, const NcclTestsLog& log,
                                               const std::string& location) {
  if (log.ranks <= 0)
    return make_error(ErrorCode::invalid_argument, "the log does not say how many ranks ran", location);
  if (log.ranks > cluster.num_gpus())
    return make_error(ErrorCode::invalid_argument,
                      "the log ran on " + std::to_string(log.ranks) + " ranks but the cluster has " +
                          std::to_string(cluster.num_gpus()) + " GPUs",
                      location);
  return std::vector<DeviceId>(cluster.gpus.begin(), cluster.gpus.begin() + static_cast<std::ptrdiff_t>(log.ranks));
}

Result<NcclCalibration> calibrate_collectives(const std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>>& runs,
                                              const Cluster& cluster, const KeyValues& start_keys, double min_bytes) {
  MS_TRY(start, comm_constants_from_keys(start_keys));
  MS_TRY(fit, calibrate_from_nccl_tests(runs, cluster, start, min_bytes));
  NcclCalibration calibration;
  calibration.min_bytes = min_bytes;
  calibration.comm_keys = start_keys;
  for (const auto& fitted : fit.comm_keys) {
    const auto same = std::find_if(calibration.comm_keys.begin(), calibration.comm_keys.end(),
                                   [&fitted](const auto& entry) { return entry.first == fitted.first; });
    if (same != calibration.comm_keys.end())
      same->second = fitted.second;
    else
      calibration.comm_keys.push_back(fitted);
  }
  for (const auto& [log, gpus] : runs) {
    const auto before = compare_nccl_tests(log, cluster, gpus, start);
    const auto after = compare_nccl_tests(log, cluster, gpus, fit.constants);
    if (!before || !after || before->size() != after->size()) continue;
    const std::string name = log.op ? std::string(collective_op_name(*log.op)) : std::string();
    for (size_t i = 0; i < after->size(); ++i)
      calibration.rows.push_back({name, (*after)[i].bytes, (*after)[i].measured_time_s, (*before)[i].predicted_time_s,
                                  (*after)[i].predicted_time_s, (*after)[i].measured_busbw,
                                  (*after)[i].predicted_busbw});
  }
  calibration.fit = std::move(fit);
  return calibration;
}

Result<NcclCalibration> calibrate_project_from_nccl_tests(const Project& project, const Cluster& cluster,
                                                          const std::vector<std::string>& log_paths) {
  std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>> runs;
  for (const std::string& path : log_paths) {
    MS_TRY(log, load_collective_log(path));
    MS_TRY(gpus, default_log_gpus(cluster, log, path));
    runs.emplace_back(std::move(log), std::move(gpus));
  }
  return calibrate_collectives(runs, cluster, project.comm_keys, kDefaultCalibrationMinBytes);
}

}  // namespace meshscope
