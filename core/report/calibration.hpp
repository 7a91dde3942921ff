#pragma once
// Stable JSON documents of compare and calibrate (docs/cli.md): the collective model against nccl-tests
// logs, the fit of its constants, and a profiler trace against the predicted step.
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/keys/options.hpp"

namespace meshscope {

// Mean |relative time error| over the rows (0 for none).
[[nodiscard]] double mean_abs_time_error(const std::vector<CollectiveComparison>& rows);
// "nvlink_efficiency=0.742,ib_efficiency=0.81": the keys as --comm (or --efficiency) takes them.
[[nodiscard]] std::string keys_text(const KeyValues& keys);

// `compare --nccl-tests LOG --json`: every measured size of `collective` over `ranks` GPUs.
[[nodiscard]] nlohmann::json nccl_comparison_report(std::string_view collective, std::size_t ranks,
                                                    const std::vector<CollectiveComparison>& rows);
// `calibrate --nccl-tests LOG[,LOG...] --json`: the fitted constants and the errors before and after.
[[nodiscard]] nlohmann::json calibration_report(const CalibrationResult& fit, double min_bytes);
// `compare --trace PATH --json`: the rows, collectives and process groups of the comparison, the notes (the
// comparison's, the run's warnings, why there is no hint) and the GEMM efficiency hint when there is one.
[[nodiscard]] nlohmann::json trace_comparison_report(const TraceComparison& comparison,
                                                     const std::vector<std::string>& notes,
                                                     const std::optional<GemmEfficiencyHint>& hint);

// The texts of `compare --nccl-tests`, `calibrate` and `compare --trace` without --json (times in µs or ms,
// bandwidths in GB/s, errors in %). `trace` names the traces compared (the --trace argument).
[[nodiscard]] std::string nccl_comparison_text(std::string_view collective, std::size_t ranks,
                                               const std::string& log_path, const std::string& cluster_name,
                                               const std::vector<CollectiveComparison>& rows);
[[nodiscard]] std::string calibration_text(const CalibrationResult& fit, std::size_t logs, double min_bytes);
[[nodiscard]] std::string trace_comparison_text(const std::string& trace, const std::string& model_name,
                                                const std::string& cluster_name, const TraceComparison& comparison,
                                                const std::vector<std::string>& notes,
                                                const std::optional<GemmEfficiencyHint>& hint);
}  // namespace meshscope
