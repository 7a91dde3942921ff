#pragma once
// The documents of `meshscope-cli import --log` (docs/logs.md): a MeasuredRun as stable JSON and as text.
#include <nlohmann/json.hpp>
#include <string>

#include "core/importers/training_log.hpp"

namespace meshscope {

// Keys: framework, iterations, excluded_iterations, step_time_s (median after warm-up), step_time_spread
// {count, min_s, max_s, relative}, step_time_source, tflops_per_gpu, tokens_per_s_per_gpu, tokens_per_s_source,
// samples_per_s, peak_memory_bytes, peak_memory_quantity, max_reserved_bytes, layout {world_size, tp, pp, cp, ep,
// vpp, dp, sequence_parallel, micro_batch, global_batch, recompute, precision, distributed_optimizer, zero_stage,
// layout_keys, train_keys}, model {...}, warnings [{line, message}]. Figures the log does not give are null.
[[nodiscard]] nlohmann::json training_log_json(const MeasuredRun& run);
[[nodiscard]] std::string training_log_text(const MeasuredRun& run);

}  // namespace meshscope
