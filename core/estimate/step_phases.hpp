#pragma once
// The phases of estimate_step (step.cpp), in the order it runs them, each a function of the inputs
// and of what the earlier phases found, so that each can be read and tested alone:
//   1. placement and the communication plan (step_communication) and the setup every later phase
//      reads (step_setup: the GPU, the host, the schedule simulated, the layers' split);
//   2. the collectives one layer and micro-batch calls, read from the plan (layer_collectives);
//   3. overlap: TP's per pass, and what a layer's CP and EP communication leaves exposed beside its
//      compute (layer_overlap, exposed_communication);
//   4. compute per pipeline rank and virtual stage, with the exposed communication and the sends
//      (stage_compute);
//   5. the pipeline schedule's event simulation (simulate_step_schedule);
//   6. the data-parallel and optimizer tail (data_parallel_cost, optimizer_cost);
//   7. the result: throughput and MFU, the busiest rank's breakdown, the memory budget, the
//      operations list and the assumptions.
// Internal to core/estimate (and its tests): the public interface is estimate_step.
#include <cstdint>
#include <string>
#include <vector>

#include "core/estimate/overlap.hpp"
#include "core/estimate/step.hpp"

namespace meshscope::step_detail {

// 1. Placement (the layout's groups on the cluster's GPUs) and every collective they call.
[[nodiscard]] Result<CommPlan> step_communication(const ModelSpec& model, const TrainingWorkload& workload,
                                                  const Layout& layout, const Cluster& cluster, const Router& router,
                                                  const EstimateOptions& options);

// What every later phase reads: the inputs, and what follows from them and the cluster alone.
struct StepSetup {
  const ModelSpec& model;
  const TrainingWorkload& workload;
  const Layout& layout;
  GpuSpec gpu;                   // the cluster's first GPU, from the catalogue (H100 if unknown)
  ComputeEfficiency efficiency;  // with the host costs of the CPU that issues its kernels (on_host_cpu)
  double sms = 0;                // its streaming multiprocessors (0: unknown)
  int64_t micro_batches = 1;     // per step, at least one
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;  // the one simulated (simulated_schedule)
  // DualPipe pairs a forward and a backward chunk of two micro-batches and runs one's all-to-alls
  // and pipeline sends under the other's compute (DeepSeek-V3 report §3.2.1, Figure 4).
  bool dualpipe = false;
  // The interleaved schedule's steady-state sends are asynchronous (overlap_p2p_comm).
  bool async_sends = false;
  // The layers' split (core/workload/layout.hpp): per pipeline rank; per virtual stage (chunk·pp + rank), its
  // transformer layers, their first and its multi-token-prediction layers.
  std::vector<int64_t> stage_layers{};
  std::vector<int64_t> chunk_layers{};
  std::vector<int64_t> chunk_first_layers{};
  std::vector<int64_t> chunk_mtp_layers{};
  [[nodiscard]] ComputeContext context() const { return {model, workload, layout, gpu, efficiency}; }
};
// An error where the GPU has no tensor cores for the workload's precision (check_training_precision).
[[nodiscard]] Result<StepSetup> step_setup(const ModelSpec& model, const TrainingWorkload& workload,
                                           const Layout& layout, const Cluster& cluster,
                                           const EstimateOptions& options);

// 2. One layer's collectives per micro-batch, as the plan times them, before any overlap.
struct LayerCollectives {
  bool tp_planned = false;  // the plan has a TP group
  // TP per pass: two all-reduces, or with SP two all-gather + reduce-scatter pairs (SC21 §3.2);
  // and one call of each of the latter (Transformer Engine's overlap chunks them).
  double tp_s = 0;
  double tp_all_gather_s = 0;
  double tp_reduce_scatter_s = 0;
  // CP: the forward's and the backward's collectives; under PyTorch's context_parallel the
  // backward's dK/dV exchange apart (one call's time).
  double cp_forward_s = 0;
  double cp_backward_s = 0;
  double cp_exchange_s = 0;
  double ep_all_to_all_s = 0;  // one dispatch or combine
  double p2p_s = 0;            // one pipeline send
};
[[nodiscard]] LayerCollectives layer_collectives(const StepSetup& setup, const CommPlan& plan);

// 3. Overlap, as far as it does not depend on each layer's own compute: TP per pass for a dense and
// an MoE layer (with tp_comm_overlap, Transformer Engine's chunked overlap: the exposed remainder
// and the GEMMs' slowdown, overlap.hpp), and how CP and EP overlap.
struct LayerOverlap {
  bool tp_overlap = false;  // tp_comm_overlap applies (TP > 1 with SP)
  TpLayerCost tp_dense;
  TpLayerCost tp_moe;
  CpComm cp_impl = CpComm::p2p;
  bool torch_cp = false;  // CP > 1 by PyTorch's context_parallel
  // The share of passes whose EP all-to-alls Megatron's combined 1F1B (ep_comm_overlap) pairs with
  // another's compute (DualPipe pairs them all), and the SMs the hidden all-to-alls' kernels take.
  double ep_paired = 0;
  int64_t ep_sms = 0;
};
[[nodiscard]] LayerOverlap layer_overlap(const StepSetup& setup, const LayerCollectives& collectives);

// One axis's exposed communication in one layer and micro-batch: in the forward, the backward, and
// the forward's repeated by recompute.
struct ExposedComm {
  double forward_s = 0;
  double backward_s = 0;
  double recompute_s = 0;
  [[nodiscard]] double total_s() const { return forward_s + backward_s + recompute_s; }
};
struct LayerExposed {
  ExposedComm tp, cp, ep;
};
// What layer `layer`, whose compute is `compute` (layer_compute), leaves exposed of its TP, CP and
// EP communication; `recomputed`: the layer is recomputed in full.
[[nodiscard]] LayerExposed exposed_communication(const StepSetup& setup, const LayerCollectives& collectives,
                                                 const LayerOverlap& overlap, int64_t layer, const WorkTime& compute,
                                                 bool recomputed);

// 4. Per pipeline rank and micro-batch: the compute alone and each axis's exposed communication,
// kept apart so that the breakdown's parts are disjoint.
struct StageWork {
  WorkTime compute;
  double tp_s = 0, cp_s = 0, ep_s = 0, p2p_s = 0;
  StageWork& operator+=(const StageWork& o) {
    compute += o.compute;
    tp_s += o.tp_s;
    cp_s += o.cp_s;
    ep_s += o.ep_s;
    p2p_s += o.p2p_s;
    return *this;
  }
};
struct StageCompute {
  std::vector<StageWork> work;          // per pipeline rank
  std::vector<StageCosts> costs;        // per rank, without the sends (the DP overlap window)
  std::vector<StageCosts> with_sends;   // per rank, with them (the schedule)
  std::vector<StageCosts> chunk_costs;  // per virtual stage, with them (the interleaved schedule)
  WorkTime embedding, head;             // on the first and the last virtual stage
};
[[nodiscard]] StageCompute stage_compute(const StepSetup& setup, const LayerCollectives& collectives,
                                         const LayerOverlap& overlap);

// 5. The pipeline schedule's event simulation over the ranks' costs (and, interleaved, the virtual
// stages'), each with its sends.
[[nodiscard]] Result<ScheduleResult> simulate_step_schedule(const StepSetup& setup, double p2p_s,
                                                            std::vector<StageCosts> rank_costs,
                                                            std::vector<StageCosts> chunk_costs);

// 6. The data-parallel gradient reduction and parameter gather (Megatron's buckets, or FSDP per
// block), what of it is exposed, and the optimizer step.
struct DataParallelCost {
  bool has_dp = false;                 // DP × CP > 1, or an expert-data-parallel group
  bool distributed_optimizer = false;  // ZeRO 1 or 2
  bool grad_overlap = false;           // overlap_grad_reduce applies
  bool gather_overlap = false;         // overlap_param_gather applies
  double exposed_s = 0;                // per step, with the two below
  double fsdp_copy_s = 0;              // FSDP2's copy-out and reduce-scatter copy-in, on the compute stream
  double sm_slowdown_s = 0;            // the hidden collectives' NCCL kernels' SMs (nccl_sm_slowdown_s)
};
// `first_rank`: the first pipeline rank's costs per micro-batch, without the sends (what hides them).
[[nodiscard]] DataParallelCost data_parallel_cost(const StepSetup& setup, const CommPlan& plan,
                                                  const StageCosts& first_rank);
struct OptimizerCost {
  double params_on_rank = 0;  // the first stage's
  double time_s = 0;          // memory-bound over the rank's sharded master weights and moments
};
[[nodiscard]] OptimizerCost optimizer_cost(const StepSetup& setup);

// 7. The result. Tokens per second and the model and hardware FLOP rates of a step of `step_time_s`.
void assign_throughput(StepEstimate& estimate, const StepSetup& setup, double step_time_s);
// The pipeline rank with the most busy time in the simulation.
[[nodiscard]] size_t busiest_stage(const ScheduleResult& schedule);
// That rank's step: its compute, its exposed communication per axis and its idle time, then the
// exposed DP communication and the optimizer. The parts are disjoint and add up to the step time.
[[nodiscard]] StepBreakdown step_breakdown(const StepSetup& setup, const StageCompute& stages,
                                           const ScheduleResult& schedule, size_t busiest,
                                           const DataParallelCost& data_parallel, const OptimizerCost& optimizer);
// The memory budget of what the simulated schedule keeps in flight: its peaks and whether it fits.
void assign_memory(StepEstimate& estimate, const StepSetup& setup);
// One layer of the busiest rank's first chunk, then the embedding, the LM head with the loss and the optimizer.
[[nodiscard]] std::vector<OperationCost> step_operations(const StepSetup& setup, const StageCompute& stages,
                                                         size_t busiest, const OptimizerCost& optimizer);
// Every overlap and compute assumption, as it applied (or why it did not) to this layout.
[[nodiscard]] std::vector<std::string> step_assumptions(const StepSetup& setup, const LayerOverlap& overlap,
                                                        const DataParallelCost& data_parallel);

}  // namespace meshscope::step_detail
