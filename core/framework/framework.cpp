#include "core/framework/framework.hpp"

#include <algorithm>
#include <array>

namespace meshscope {

namespace {

using PS = PipelineSchedule;
using RM = RecomputeMode;

// Every option the cost core models, whichever framework has it (the search's historical space).
FrameworkSpec any_framework() {
  FrameworkSpec f;
  f.id = Framework::any;
  f.title = "any framework";
  f.version = "every option meshscope models";
  f.sources = "core/workload/pipeline_schedule.hpp, core/workload/workload.hpp";
  f.schedules = {PS::gpipe, PS::one_f_one_b, PS::interleaved, PS::zb_h1, PS::zb_h2, PS::dualpipe};
  f.zero_stages = {0, 1, 2, 3};
  f.recompute = {RM::none, RM::selective, RM::full, RM::layers, RM::op};
  f.tp_comm_overlap = true;
  f.cp_comms = {CpComm::p2p, CpComm::all_to_all, CpComm::torch};
  f.expert_parallel = true;
  f.expert_tensor_parallel = true;
  f.moe_dispatchers = {MoeDispatcher::alltoall, MoeDispatcher::flex};
  f.ep_comm_overlap = true;
  f.tp_pp_dp_mapping = true;
  f.fp8 = true;
  f.fp4 = true;
  f.fp8_recipes = {Fp8Recipe::delayed, Fp8Recipe::current, Fp8Recipe::mxfp8, Fp8Recipe::blockwise};
  f.cuda_graphs = true;
  return f;
}

// Megatron-LM with Megatron-Core (NVIDIA/Megatron-LM, read at core_v0.19.0, 5be96267):
// megatron/core/pipeline_parallel/schedules.py get_forward_backward_func — no pipelining, 1F1B
// (forward_backward_pipelining_without_interleaving) and interleaved 1F1B
// (..._with_interleaving, --num-layers-per-virtual-pipeline-stage); combined_1f1b.py pairs a
// forward with a backward for --overlap-moe-expert-parallel-comm (the ep_comm_overlap key). No
// GPipe, zero-bubble or DualPipe schedule upstream (--delay-wgrad-compute defers the MoE experts'
// weight gradients inside the combined 1F1B; it is not a zero-bubble pipeline). Data parallelism:
// DDP, --use-distributed-optimizer (ZeRO-1), Megatron-FSDP --use-megatron-fsdp with
// --data-parallel-sharding-strategy optim_grads_params (ZeRO-3), and --use-torch-fsdp2, which
// refuses pipeline and expert parallelism and the distributed optimizer (arguments.py). Recompute:
// --recompute-granularity selective (--recompute-modules) or full with
// --recompute-method uniform|block (--recompute-num-layers). --sequence-parallel is optional with TP;
// --tp-comm-overlap (TE userbuffers) needs it. --cp-comm-type p2p|a2a|allgather|a2a+p2p.
// --moe-token-dispatcher-type allgather|alltoall|flex. --use-tp-pp-dp-mapping. --fp8-format with
// --fp8-recipe delayed|tensorwise|mxfp8|blockwise; --fp4-format nvfp4; --cuda-graph-impl.
FrameworkSpec megatron_lm() {
  FrameworkSpec f;
  f.id = Framework::megatron_lm;
  f.title = "Megatron-LM (Megatron-Core)";
  f.version = "core_v0.19.0";
  f.sources =
      "megatron/core/pipeline_parallel/schedules.py (get_forward_backward_func), combined_1f1b.py; "
      "megatron/training/arguments.py; megatron/core/distributed/distributed_data_parallel_config.py";
  f.schedules = {PS::one_f_one_b, PS::interleaved};
  f.zero_stages = {0, 1, 3};
  f.max_zero_stage_with_pipeline = 1;
  f.fsdp_with_expert_parallel = false;
  f.recompute = {RM::none, RM::selective, RM::full, RM::layers};
  f.tp_comm_overlap = true;
  f.cp_comms = {CpComm::p2p, CpComm::all_to_all};
  f.expert_parallel = true;
  f.expert_tensor_parallel = true;
  f.moe_dispatchers = {MoeDispatcher::alltoall, MoeDispatcher::flex};
  f.ep_comm_overlap = true;
  f.tp_pp_dp_mapping = true;
  f.fp8 = true;
  f.fp4 = true;
  f.fp8_recipes = {Fp8Recipe::delayed, Fp8Recipe::current, Fp8Recipe::mxfp8, Fp8Recipe::blockwise};
  f.cuda_graphs = true;
  f.memory = MemoryFramework::megatron;
  f.default_cp_comm = CpComm::p2p;
  f.default_fp8_recipe = Fp8Recipe::delayed;  // arguments.py: --fp8-recipe default "delayed"
  return f;
}

// Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge v0.6.0, 51885cf1, the NeMo 2 training stack):
// Megatron-Core's schedules and parallelisms as above, configured through ConfigContainer
// (src/megatron/bridge/training/config.py); its recipes' _pretrain_common turns on the distributed
// optimizer and the gradient-reduce and parameter-gather overlaps, and CommOverlapConfig the
// overlapped P2P of the interleaved schedule.
FrameworkSpec megatron_bridge() {
  FrameworkSpec f = megatron_lm();
  f.id = Framework::megatron_bridge;
  f.title = "Megatron-Bridge (NeMo 2)";
  f.version = "v0.6.0";
  f.sources =
      "src/megatron/bridge/training/config.py; src/megatron/bridge/recipes; scripts/performance; Megatron-Core as "
      "megatron-lm";
  return f;
}

// torchtitan (pytorch/torchtitan v0.2.2, 73a0e697) on torch.distributed.pipelining:
// torchtitan/config/job_config.py Parallelism.pipeline_parallel_schedule — GPipe, 1F1B,
// Interleaved1F1B, LoopedBFS, InterleavedZeroBubble, ZBVZeroBubble, DualPipeV (torch's
// schedules.py); the simulator models the first three. FSDP2 (fully_shard, dp_shard) is its data
// parallelism; DDP (dp_replicate) only alone or as HSDP's replicas, and no ZeRO-1 or ZeRO-2.
// Activation checkpointing: none, full, selective per layer (every n-th) or per op
// (selective_ac_option "op"). TP always shards the norms' sequence (SequenceParallel in the TP plan);
// async TP (enable_async_tensor_parallel, with torch.compile) is its TP overlap. CP is PyTorch's
// context_parallel. EP with the all-to-all dispatcher; float8 (torchao tensorwise/rowwise) and
// MXFP8; no NVFP4 training recipe.
FrameworkSpec torchtitan() {
  FrameworkSpec f;
  f.id = Framework::torchtitan;
  f.title = "torchtitan";
  f.version = "v0.2.2";
  f.sources =
      "torchtitan/config/job_config.py (Parallelism, ActivationCheckpoint, Float8); "
      "torchtitan/distributed/pipeline_parallel.py; torch/distributed/pipelining/schedules.py; "
      "torchtitan/models/llama3/infra/parallelize.py";
  f.schedules = {PS::gpipe, PS::one_f_one_b, PS::interleaved};
  f.unmodelled_schedules = "LoopedBFS, InterleavedZeroBubble, ZBVZeroBubble, DualPipeV";
  f.zero_stages = {0, 3};
  f.recompute = {RM::none, RM::full, RM::layers, RM::op};
  f.sequence_parallel_optional = false;
  f.tp_comm_overlap = true;
  f.cp_comms = {CpComm::torch};
  f.expert_parallel = true;
  f.expert_tensor_parallel = true;
  f.moe_dispatchers = {MoeDispatcher::alltoall};
  f.fp8 = true;
  f.fp8_recipes = {Fp8Recipe::current, Fp8Recipe::mxfp8};
  f.cuda_graphs = false;
  f.memory = MemoryFramework::fsdp2;
  f.default_cp_comm = CpComm::torch;
  f.default_fp8_recipe = Fp8Recipe::current;
  return f;
}

// DeepSpeed (deepspeedai/DeepSpeed v0.19.5, cf443004) with Megatron-DeepSpeed for tensor parallelism: the
// pipeline engine runs TrainSchedule (deepspeed/runtime/pipe/schedule.py, 1F1B), no interleaving;
// deepspeed/runtime/pipe/engine.py asserts "ZeRO-2 and ZeRO-3 are incompatible with pipeline
// parallelism"; without a pipeline ZeRO 0-3. Sequence parallelism is DeepSpeed-Ulysses
// (all-to-alls); DeepSpeed-MoE's experts with all-to-alls. No TP overlap, no FP8 recipe.
FrameworkSpec deepspeed() {
  FrameworkSpec f;
  f.id = Framework::deepspeed;
  f.title = "DeepSpeed (with Megatron-DeepSpeed)";
  f.version = "v0.19.5";
  f.sources =
      "deepspeed/runtime/pipe/schedule.py (TrainSchedule), deepspeed/runtime/pipe/engine.py; "
      "deepspeed/sequence/layer.py (Ulysses); deepspeed/moe/sharded_moe.py; Megatron-DeepSpeed arguments.py";
  f.schedules = {PS::one_f_one_b};
  f.zero_stages = {0, 1, 2, 3};
  f.max_zero_stage_with_pipeline = 1;
  f.recompute = {RM::none, RM::selective, RM::full};
  f.cp_comms = {CpComm::all_to_all};
  f.expert_parallel = true;
  f.moe_dispatchers = {MoeDispatcher::alltoall};
  f.memory = MemoryFramework::megatron;
  f.default_cp_comm = CpComm::all_to_all;
  return f;
}

// In Framework's order, so that a framework's table is at its own index.
const std::array<FrameworkSpec, 5>& tables() {
  static const std::array<FrameworkSpec, 5> all{any_framework(), megatron_lm(), megatron_bridge(), torchtitan(),
                                                deepspeed()};
  return all;
}

template <class T>
bool has(const std::vector<T>& values, T value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::string named(const FrameworkSpec& f) {
  return std::string(f.title) + " " + std::string(f.version);
}

}  // namespace

const FrameworkSpec& framework_spec(Framework framework) {
  return tables()[static_cast<size_t>(framework)];
}

std::span<const Framework> named_frameworks() {
  static constexpr std::array<Framework, 4> names{Framework::megatron_lm, Framework::megatron_bridge,
                                                  Framework::torchtitan, Framework::deepspeed};
  return names;
}

std::optional<std::string> framework_rejects_workload(const FrameworkSpec& f, const TrainingWorkload& w) {
  if (f.id == Framework::any) return std::nullopt;
  const std::string who = named(f);
  if (w.compute_dtype == DType::fp8 && !f.fp8) return who + " has no FP8 training recipe";
  if (w.compute_dtype == DType::fp4 && !f.fp4) return who + " has no NVFP4 training recipe";
  if (w.compute_dtype == DType::fp8 && w.fp8_recipe != Fp8Recipe::automatic && !has(f.fp8_recipes, w.fp8_recipe))
    return who + " has no " + std::string(enum_name(w.fp8_recipe)) + " FP8 recipe";
  if (w.cp_comm != CpComm::automatic && !has(f.cp_comms, w.cp_comm))
    return who + " has no " + std::string(enum_name(w.cp_comm)) + " context parallelism";
  if (!has(f.moe_dispatchers, w.moe_dispatcher) && w.moe_dispatcher != MoeDispatcher::alltoall)
    return who + " has no " + std::string(enum_name(w.moe_dispatcher)) + " token dispatcher";
  if (w.cuda_graphs && !f.cuda_graphs) return who + " does not capture the step in CUDA graphs";
  if (w.ep_comm_overlap && !f.ep_comm_overlap) return who + " has no combined 1F1B for the EP all-to-alls";
  return std::nullopt;
}

std::optional<std::string> framework_rejects(const FrameworkSpec& f, const Layout& l, const TrainingWorkload& w,
                                             PipelineSchedule schedule, bool tp_pp_dp_order) {
  if (f.id == Framework::any) return std::nullopt;
  if (auto workload = framework_rejects_workload(f, w)) return workload;
  const std::string who = named(f);
  const PipelineSchedule runs = l.pp > 1 ? simulated_schedule(schedule, l.vpp) : PipelineSchedule::one_f_one_b;
  if (l.pp > 1 && !has(f.schedules, runs))
    return who + " does not run the " + std::string(enum_name(runs)) + " pipeline schedule";
  const bool data_parallel = l.dp * l.cp > 1;
  if (data_parallel && !has(f.zero_stages, w.zero_stage))
    return who + " has no ZeRO stage " + std::to_string(w.zero_stage);
  if (data_parallel && l.pp > 1 && w.zero_stage > f.max_zero_stage_with_pipeline)
    return who + " runs ZeRO stage " + std::to_string(f.max_zero_stage_with_pipeline) +
           " at most with pipeline parallelism";
  if (!has(f.recompute, w.recompute))
    return who + " has no " + std::string(enum_name(w.recompute)) + " activation recompute";
  if (l.tp > 1 && !l.sp && !f.sequence_parallel_optional) return who + " always runs TP with sequence parallelism";
  if (w.tp_comm_overlap && l.tp > 1 && !f.tp_comm_overlap) return who + " has no TP communication overlap";
  if (l.cp > 1 && f.cp_comms.empty()) return who + " has no context parallelism";
  if (l.ep > 1 && !f.expert_parallel) return who + " has no expert parallelism";
  if (l.ep > 1 && data_parallel && w.zero_stage >= 3 && !f.fsdp_with_expert_parallel)
    return who + " runs no FSDP with expert parallelism";
  if (l.etp > 1 && !f.expert_tensor_parallel) return who + " has no expert tensor parallelism";
  if (tp_pp_dp_order && !f.tp_pp_dp_mapping) return who + " has no tp-pp-dp rank mapping";
  return std::nullopt;
}

uint32_t frameworks_running(const Layout& l, const TrainingWorkload& w, PipelineSchedule schedule,
                            bool tp_pp_dp_order) {
  uint32_t bits = 0;
  for (const Framework f : named_frameworks())
    if (!framework_rejects(framework_spec(f), l, w, schedule, tp_pp_dp_order)) bits |= framework_bit(f);
  return bits;
}

std::vector<Framework> frameworks_in(uint32_t bits) {
  std::vector<Framework> in;
  for (const Framework f : named_frameworks())
    if ((bits & framework_bit(f)) != 0) in.push_back(f);
  return in;
}

std::string frameworks_text(uint32_t bits) {
  std::string text;
  for (const Framework f : frameworks_in(bits)) {
    if (!text.empty()) text += '+';
    text += enum_name(f);
  }
  return text.empty() ? "none" : text;
}

}  // namespace meshscope
