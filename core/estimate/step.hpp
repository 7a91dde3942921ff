#pragma once
// Step time of a training layout: per-stage compute (with the exposed part of TP, CP and EP
// communication) run through the pipeline schedule's event simulation, plus the exposed data-
// parallel gradient reduction and the optimizer step. Every overlap assumption is listed.
#include <string>
#include <vector>

#include "core/comm/comm_plan.hpp"
#include "core/estimate/compute.hpp"
#include "core/estimate/known_gaps.hpp"
#include "core/schedule/schedule.hpp"
#include "core/topology/placement.hpp"

namespace meshscope {

struct EstimateOptions {
  ComputeEfficiency efficiency;
  CommOptions comm;
  AxisOrder order = AxisOrder::megatron;
  // The pipeline schedule is the workload's (TrainingWorkload::schedule; simulated_schedule()).
  // The frameworks' overlaps (tp_comm_overlap, overlap_grad_reduce, overlap_param_gather,
  // fsdp_prefetch, reshard_after_forward) are workload keys: TrainingWorkload.
};

// The busiest stage over one step: parts are disjoint and add up to the step time.
struct StepBreakdown {
  double forward_s = 0;   // compute, busiest stage, all micro-batches
  double backward_s = 0;  // input + weight gradients
  double recompute_s = 0;
  double tp_exposed_s = 0;
  double cp_exposed_s = 0;
  double ep_exposed_s = 0;
  double pp_p2p_s = 0;  // synchronous pipeline sends and receives of the busiest stage
  double bubble_s = 0;  // the busiest stage's idle time in the pipeline schedule
  double dp_exposed_s = 0;
  double optimizer_s = 0;
};

struct StepEstimate {
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;     // model FLOPs (no recompute) per second per GPU
  double hardware_tflops_per_gpu = 0;  // with recompute
  double mfu = 0, hfu = 0;             // over the dense peak of the compute dtype
  double bubble_fraction = 0;
  int64_t micro_batches = 0;
  StepBreakdown breakdown;
  double peak_memory_bytes = 0;  // the budget's busiest rank: every category (NCCL, CUDA context included)
  // What PyTorch would report on the busiest rank (torch.cuda.max_memory_allocated and
  // max_memory_reserved; the memory budget's framework form, core/memory/memory.hpp): 0 in the generic form.
  double peak_allocated_bytes = 0;
  double peak_reserved_bytes = 0;
  bool fits_in_memory = true;
  std::vector<std::string> assumptions;
  // Validation gaps this configuration falls into (core/estimate/known_gaps.hpp): measured runs
  // like it differ from the model by more than 20 % for a reason not yet identified.
  std::vector<KnownGap> known_gaps;
  // Per micro-batch on one rank: the operations of one layer of the busiest stage, then the
  // embedding, the LM head with the loss, and (per step) the optimizer.
  std::vector<OperationCost> operations;
  ScheduleResult schedule;
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;  // the one simulated
  CommPlan comm;
};

// The layout must be valid (validate_training_layout) and fit the cluster. Its phases (placement
// and the communication plan, compute per stage, overlap, the schedule, the DP and optimizer tail,
// memory, the result), each testable alone: core/estimate/step_phases.hpp.
[[nodiscard]] Result<StepEstimate> estimate_step(const ModelSpec& model, const TrainingWorkload& workload,
                                                 const Layout& layout, const Cluster& cluster, const Router& router,
                                                 const EstimateOptions& options = {});

}  // namespace meshscope
