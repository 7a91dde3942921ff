#pragma once
// A training log (core/importers/training_log.hpp) against the prediction for the layout it ran: step time,
// tokens/s per GPU, TFLOP/s per GPU, MFU and peak memory, each measured (median after warm-up, with its range)
// against StepEstimate's counterpart. Relative error: predicted / measured − 1, as in trace_compare.hpp.
//
// Counterparts:
//   step time            StepEstimate::step_time_s
//   tokens/s per GPU     StepEstimate::tokens_per_s_per_gpu
//   TFLOP/s per GPU      model FLOPs (no recompute) for Megatron-LM ("throughput per GPU", training.py's
//                        num_floating_point_operations) and torchtitan (tflops, from num_flops_per_token);
//                        hardware FLOPs (with recompute) for Megatron-DeepSpeed, whose "TFLOPs" and "Effective Tera
//                        Flops per GPU" multiply by 4 instead of 3 under activation checkpointing
//   MFU                  StepEstimate::mfu (torchtitan's mfu is over its own peak figure; the note says so)
//   max allocated        StepEstimate::peak_allocated_bytes (torch.cuda.max_memory_allocated)
//   max reserved         StepEstimate::peak_reserved_bytes (torch.cuda.max_memory_reserved; torchtitan's memory:)
// Memory rows name their quantity; the measured figure is the largest over the ranks that printed one, the predicted
// one is the busiest rank's.
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/training_log.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/routing.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

struct LogCompareRow {
  std::string quantity;  // "step time", "tokens/s per GPU", "TFLOP/s per GPU", "MFU", "peak memory (max allocated)"
  std::string unit;      // "s", "tokens/s", "TFLOP/s", "fraction", "B"
  double measured = 0;   // median after warm-up (memory: the largest)
  std::optional<double> measured_min, measured_max;
  int64_t samples = 0;  // iterations behind the median (memory: reports)
  std::optional<double> predicted;
  std::string note;
  [[nodiscard]] std::optional<double> error() const {
    if (!predicted || !(measured > 0)) return std::nullopt;
    return *predicted / measured - 1;
  }
};

struct LogComparison {
  std::string framework;
  int64_t iterations = 0;
  std::vector<int64_t> excluded_iterations;
  std::string layout_keys, train_keys;  // what was predicted
  bool layout_from_log = false;         // the layout came from the log's argument dump
  std::vector<LogCompareRow> rows;
  std::vector<std::string> notes;
  [[nodiscard]] const LogCompareRow* row(const std::string& quantity) const;
};

// `estimate` must be estimate_step's for `layout`. Errors (invalid_argument, located by the log file): a log whose
// world size differs from the layout's dp·tp·pp·cp; a log without a step time.
[[nodiscard]] Result<LogComparison> compare_training_log(const MeasuredRun& run, const StepEstimate& estimate,
                                                         const Layout& layout);

// Calibration from a log, as from a trace (trace_compare.hpp gemm_efficiency_hint), but on the whole step: a log
// measures the step, not its compute. The GEMM efficiency (ComputeEfficiency::gemm) that makes the predicted step
// time equal `measured_step_s`, by the fixed point gemm ← gemm · predicted / measured, re-estimating each time. With
// step = A + B / gemm (A: what GEMMs do not change — other kernels, exposed communication, the bubble's non-GEMM
// part) it converges while A < measured; it stops under 0.1 % error or when the efficiency stops moving, stays within
// [0.05, 1] and is rounded to 0.001 so that the printed --efficiency key reproduces step_error_after. Everything
// the model gets wrong outside the GEMMs lands in this one number: read it as a calibration of this run, not of the
// GPU.
struct LogGemmHint {
  double before = 0, after = 0;                        // ComputeEfficiency::gemm
  double step_error_before = 0, step_error_after = 0;  // predicted / measured step time − 1
  bool at_limit = false;                               // 0.05 or 1: GEMMs alone cannot match the step
  std::string efficiency_key;                          // "gemm=0.412", for --efficiency
};
[[nodiscard]] Result<LogGemmHint> step_time_gemm_hint(double measured_step_s, const ModelSpec& model,
                                                      const TrainingWorkload& workload, const Layout& layout,
                                                      const Cluster& cluster, const Router& router,
                                                      const EstimateOptions& options);

}  // namespace meshscope
