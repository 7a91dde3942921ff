#pragma once
// The documents of `meshscope-cli compare --log` (docs/logs.md): a LogComparison as stable JSON and as a table.
#include <nlohmann/json.hpp>
#include <string>

#include "core/calibration/log_compare.hpp"

namespace meshscope {

// Keys: file, framework, iterations, excluded_iterations, layout (keys), train (keys), layout_from_log, rows
// [{quantity, unit, measured, measured_min, measured_max, samples, predicted, error, note}], notes.
[[nodiscard]] nlohmann::json log_comparison_json(const LogComparison& comparison, const std::string& file);
[[nodiscard]] std::string log_comparison_text(const LogComparison& comparison, const std::string& file,
                                              const std::string& model, const std::string& cluster);

// `calibrate --log`: file, framework, measured_step_s, layout, train, gemm_efficiency {before, after,
// step_error_before, step_error_after, at_limit, efficiency}.
[[nodiscard]] nlohmann::json log_gemm_hint_json(const LogGemmHint& hint, const LogComparison& comparison,
                                                const std::string& file);
[[nodiscard]] std::string log_gemm_hint_text(const LogGemmHint& hint, const LogComparison& comparison,
                                             const std::string& file);

}  // namespace meshscope
