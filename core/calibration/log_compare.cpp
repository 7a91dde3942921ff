#include "core/calibration/log_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/calibration/trace_compare.hpp"
#include "core/estimate/compute.hpp"
#include "core/estimate/gemm_rate.hpp"
#include "core/model/catalogue.hpp"

namespace meshscope {
namespace {

LogCompareRow stats_row(const std::string& quantity, const std::string& unit, const SpreadStats& s,
                        std::optional<double> predicted, std::string note = {}) {
  LogCompareRow row;
  row.quantity = quantity;
  row.unit = unit;
  row.measured = s.median;
  row.measured_min = s.min;
  row.measured_max = s.max;
  row.samples = s.count;
  row.predicted = predicted;
  row.note = std::move(note);
  return row;
}

}  // namespace

const LogCompareRow* LogComparison::row(const std::string& quantity) const {
  for (const auto& r : rows)
    if (r.quantity == quantity) return &r;
  return nullptr;
}

Result<LogComparison> compare_training_log(const MeasuredRun& run, const StepEstimate& estimate, const Layout& layout) {
  if (run.layout.world_size && *run.layout.world_size != layout.world_size())
    return make_error(ErrorCode::invalid_argument,
                      "the log ran on " + std::to_string(*run.layout.world_size) + " ranks but the layout has " +
                          std::to_string(layout.world_size()) + " (dp·tp·pp·cp)",
                      run.origin);
  if (!run.step_time_s)
    return make_error(ErrorCode::invalid_argument, "the log gives no step time to compare", run.origin);
  LogComparison c;
  c.framework = training_framework_name(run.framework);
  c.iterations = static_cast<int64_t>(run.iterations.size());
  c.excluded_iterations = run.excluded_iterations;
  c.rows.push_back(stats_row("step time", "s", *run.step_time_s, estimate.step_time_s, run.step_time_source));
  if (run.tokens_per_s_per_gpu)
    c.rows.push_back(stats_row("tokens/s per GPU", "tokens/s", *run.tokens_per_s_per_gpu, estimate.tokens_per_s_per_gpu,
                               run.tokens_per_s_source));
  if (run.tflops_per_gpu) {
    const bool hardware = run.framework == TrainingFramework::megatron_deepspeed;
    c.rows.push_back(stats_row(
        "TFLOP/s per GPU", "TFLOP/s", *run.tflops_per_gpu,
        hardware ? estimate.hardware_tflops_per_gpu : estimate.model_tflops_per_gpu,
        hardware ? "hardware FLOPs (recompute counted), as Megatron-DeepSpeed counts" : "model FLOPs (no recompute)"));
  }
  std::vector<double> mfu;
  for (const auto& it : run.iterations) {
    bool excluded = false;
    for (const int64_t e : run.excluded_iterations) excluded = excluded || e == it.iteration;
    if (it.mfu && !excluded) mfu.push_back(*it.mfu);
  }
  if (const auto s = spread_stats(mfu))
    c.rows.push_back(stats_row("MFU", "fraction", *s, estimate.mfu,
                               "the log's over its own peak FLOP/s figure; the prediction's over the catalogue's"));
  if (run.peak_memory_bytes) {
    LogCompareRow row;
    row.unit = "B";
    row.measured = *run.peak_memory_bytes;
    const bool reserved = run.peak_memory_quantity == "max reserved";
    row.quantity = "peak memory (" + run.peak_memory_quantity + ")";
    const double predicted = reserved ? estimate.peak_reserved_bytes : estimate.peak_allocated_bytes;
    if (predicted > 0) row.predicted = predicted;
    row.note = reserved ? "torch.cuda.max_memory_reserved: what the caching allocator holds"
                        : "torch.cuda.max_memory_allocated: live tensors at their peak";
    c.rows.push_back(row);
  }
  if (run.max_reserved_bytes && run.peak_memory_quantity != "max reserved") {
    LogCompareRow row;
    row.unit = "B";
    row.quantity = "peak memory (max reserved)";
    row.measured = *run.max_reserved_bytes;
    if (estimate.peak_reserved_bytes > 0) row.predicted = estimate.peak_reserved_bytes;
    row.note = "torch.cuda.max_memory_reserved; fragmentation has no closed form (docs/estimate.md §6)";
    c.rows.push_back(row);
  }
  bool steady_memory = false, first_memory = false;
  for (const auto& m : run.memory)
    if (m.after_iterations) (*m.after_iterations <= 1 ? first_memory : steady_memory) = true;
  if (first_memory && !steady_memory)
    c.notes.emplace_back(
        "the memory reports are after the first iteration only (optimizer state and allocator growth may still "
        "differ from a steady step); the prediction is for a steady step");
  if (!run.excluded_iterations.empty())
    c.notes.push_back("warm-up excluded: the first timed iteration (" + std::to_string(run.excluded_iterations[0]) +
                      ")");
  for (const auto& w : run.warnings)
    c.notes.push_back((w.line > 0 ? "line " + std::to_string(w.line) + ": " : std::string()) + w.message);
  return c;
}

Result<LogGemmHint> step_time_gemm_hint(double measured_step_s, const ModelSpec& model,
                                        const TrainingWorkload& workload, const Layout& layout, const Cluster& cluster,
                                        const Router& router, const EstimateOptions& options) {
  if (!(measured_step_s > 0))
    return make_error(ErrorCode::invalid_argument, "no measured step time to calibrate the GEMM efficiency from");
  EstimateOptions o = options;
  MS_TRY(fit, fit_gemm_efficiency(measured_step_s, workload, cluster, options, 40, [&](double gemm) -> Result<double> {
           o.efficiency.gemm = gemm;
           MS_TRY(e, estimate_step(model, workload, layout, cluster, router, o));
           return e.step_time_s;
         }));
  return LogGemmHint{fit.before,      fit.after,    fit.error_before,
                     fit.error_after, fit.at_limit, std::move(fit.efficiency_key)};
}

}  // namespace meshscope
