#pragma once
// Training and serving workloads: what is run, in which precision, with which memory-saving
// techniques. Conventions the literature disagrees on are explicit fields (see docs/conventions.md).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/enum_names.hpp"
#include "core/hardware/dtype.hpp"
#include "core/workload/pipeline_schedule.hpp"

namespace meshscope {

enum class Optimizer { adam, sgd_momentum };

template <>
struct EnumNames<Optimizer> {
  static constexpr std::array<std::pair<Optimizer, std::string_view>, 2> table{
      {{Optimizer::adam, "adam"}, {Optimizer::sgd_momentum, "sgd"}}};
};
// selective: Korthikanti et al.'s (the attention core); op: torchtitan's op-level selective AC
// (activation_checkpoint mode "selective", selective_ac_option "op": every second matmul and the
// element-wise ops recomputed, torchtitan/distributed/activation_checkpoint.py).
enum class RecomputeMode { none, selective, full, layers, op };
// The submodules Megatron-Core's selective recompute repeats (TransformerConfig.recompute_modules,
// --recompute-modules, default ["core_attn"]; megatron/core/transformer/transformer_config.py):
// core_attn the attention core; moe_act the experts' activation function; layernorm the
// input_layernorm and pre_mlp_layernorm where they are modules of their own (not fused into the
// next linear: an MoE layer's pre-MLP norm, which the router reads, and MLA's input norm, which two
// down-projections read); mla_up_proj MLA's up-projections and their RoPE; mlp a dense layer's MLP;
// moe the whole MoE layer (router, dispatch and combine with their all-to-alls, experts); and
// shared_experts an MoE layer's shared experts. moe_act, layernorm and mla_up_proj discard their
// outputs after the forward (CheckpointWithoutOutput); the others keep only their inputs.
enum class RecomputeModule : uint8_t { core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts };
[[nodiscard]] constexpr uint32_t recompute_bit(RecomputeModule module) {
  return 1U << static_cast<unsigned>(module);
}
// Each module's bit by its name, for the tables that tag tensors and operations with the modules
// that recompute them (core/memory/activations.cpp, core/estimate/compute.cpp).
namespace recompute_bits {
inline constexpr uint32_t core_attn = recompute_bit(RecomputeModule::core_attn);
inline constexpr uint32_t moe_act = recompute_bit(RecomputeModule::moe_act);
inline constexpr uint32_t layernorm = recompute_bit(RecomputeModule::layernorm);
inline constexpr uint32_t mla_up_proj = recompute_bit(RecomputeModule::mla_up_proj);
inline constexpr uint32_t mlp = recompute_bit(RecomputeModule::mlp);
inline constexpr uint32_t moe = recompute_bit(RecomputeModule::moe);
inline constexpr uint32_t shared_experts = recompute_bit(RecomputeModule::shared_experts);
}  // namespace recompute_bits
// FSDP's reshard_after_forward per transformer block, as torchtitan's
// parallelism.fsdp_reshard_after_forward names it (torchtitan/models/llama3/infra/parallelize.py,
// apply_fsdp): "default" frees a block's gathered parameters after its forward except the last
// block's (FSDP prefetches it for the backward at once), and frees none when pipeline parallelism
// is on ("to avoid per-microbatch all-gathers"); "always" and "never" as they say.
enum class ReshardAfterForward { torchtitan_default, always, never };

// Which framework's allocations the memory budget follows beyond the model states and the saved
// activations: the loss kernel, FSDP's unsharded buffers, the optimizer's temporaries
// (core/memory/memory.hpp, docs/estimate.md §6).
enum class MemoryFramework {
  generic,    // framework-neutral: Korthikanti's inventory, a 4-byte logits gradient, ZeRO-3's gathered
              // layer, summed
  automatic,  // PyTorch FSDP2 as torchtitan applies it for ZeRO stage 3, Megatron-LM otherwise
  megatron,   // Megatron-LM / Megatron-Core (DDP or the distributed optimizer)
  fsdp2,      // PyTorch FSDP2 (torch/distributed/fsdp/_fully_shard) as torchtitan applies it
};
[[nodiscard]] std::string_view memory_framework_name(MemoryFramework framework);

// Which fused kernels run the attention core (docs/estimate.md, "The attention kernels"): their
// measured rates are in the GPU catalogue's `attention` block. `automatic` is what the frameworks
// pick by default: cuDNN's fused attention on Hopper and newer (Transformer Engine's
// get_attention_backend "gives FusedAttention preference on Hopper+"; PyTorch SDPA prefers its
// cuDNN backend on sm90/sm100 with cuDNN ≥ 9.9, aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
// check_prefer_cudnn_attention), FlashAttention-2 before (TE on Ampere; SDPA's flash backend).
enum class AttentionKernel { automatic, flash2, cudnn, flash3 };

// How an MoE layer's tokens reach their experts' ranks (docs/estimate.md §2, EP): `alltoall`
// (Megatron-Core MoEAlltoAllTokenDispatcher: each token permuted once per selected expert, so an
// all-to-all row per (token, expert)); `flex` (Megatron's flex dispatcher over DeepEP or HybridEP:
// each token sent once to every rank holding any of its experts, DeepEP get_dispatch_layout's
// is_token_in_rank, and combined back as one row per rank).
enum class MoeDispatcher { alltoall, flex };

// The training framework the layout is meant to run in (core/framework/framework.hpp has each one's
// table: the schedules, parallelisms and options it runs, at a stated version, with its defaults).
// `any` is every option the cost core models, whichever framework has it.
enum class Framework { any, megatron_lm, megatron_bridge, torchtitan, deepspeed };

// Context parallelism's implementation (docs/estimate.md §2, CP): `p2p` ring attention as
// Megatron-Core/Transformer Engine run it (K/V chunks passed around the CP ring under the attention
// they feed, Megatron `--cp-comm-type p2p`); `a2a` DeepSpeed-Ulysses (all-to-alls of Q, K, V and the
// output over the heads, `--cp-comm-type a2a`); `torch` PyTorch's context_parallel
// (torch/distributed/tensor/experimental/_attention.py, as torchtitan applies it): K/V all-gathered
// once per pass, one SDPA call per ring step merged into fp32 outputs, fp32 dK/dV passed around the
// ring in backward. `automatic`: `torch` under FSDP2 (torchtitan), `p2p` otherwise
// (resolved_cp_comm in memory.hpp).
enum class CpComm { automatic, p2p, all_to_all, torch };

// How FP8 operands are scaled (docs/estimate.md, "FP8 training is not 2× BF16"): `delayed` takes
// the scale from an amax history, so each cast computes its amax in the same pass (Transformer
// Engine's DelayedScaling, Megatron-LM's --fp8-recipe default); `current` (tensorwise) computes the
// tensor's amax first and casts in a second pass (TE's Float8CurrentScaling: nvte_compute_amax,
// then the cast; torchao's dynamic tensorwise float8); `mxfp8` and `blockwise` compute each
// block's scale inside the cast (one pass). `automatic`: current under FSDP2 (torchtitan's float8
// is torchao's tensorwise), delayed otherwise (Megatron-LM's default).
enum class Fp8Recipe { automatic, delayed, current, mxfp8, blockwise };

// Assumptions about the runtime that no formula gives; every one is overridable.
struct RuntimeAssumptions {
  // CUDA context, cuBLAS/cuDNN workspaces and kernel images per process. An assumption (not a
  // measurement): override with runtime_gib= for your stack.
  double runtime_bytes = 1.0 * 1024 * 1024 * 1024;
  // NCCL keeps per-channel, per-peer staging buffers of NCCL_BUFFSIZE (default 4 MiB, NCCL
  // environment-variable documentation); a ring communicator has 2 peers per channel.
  double nccl_buffer_bytes = 4.0 * 1024 * 1024;
  int64_t nccl_channels = 16;
  // Caching-allocator fragmentation and reserved-but-unallocated blocks, as a fraction of the
  // dynamic (activation + temporary) memory. An assumption; override with allocator_fraction=.
  double allocator_fraction = 0.05;
  bool operator==(const RuntimeAssumptions&) const = default;
};

struct TrainingWorkload {
  int64_t seq_len = 4096;
  int64_t global_batch = 512;                       // sequences per optimizer step
  DType compute_dtype = DType::bf16;                // precision of GEMM inputs: bf16, fp16, or fp8 (mixed)
  DType activation_dtype = DType::bf16;             // stored activations (16-bit also under fp8 recipes)
  DType param_dtype = DType::bf16;                  // the weights the model computes with
  DType grad_dtype = DType::fp32;                   // gradient accumulation buffer (Megatron main grads: fp32)
  std::optional<DType> master_dtype = DType::fp32;  // fp32 master copy; nullopt: none kept
  DType optimizer_state_dtype = DType::fp32;
  Optimizer optimizer = Optimizer::adam;
  int zero_stage = 1;  // 0: replicate; 1: optimizer; 2: + grads; 3: + params (FSDP)
  RecomputeMode recompute = RecomputeMode::selective;
  int64_t recompute_layers = 0;  // RecomputeMode::layers: fully recomputed layers per stage
  // RecomputeMode::selective's submodules (RecomputeModule bits; Megatron-Core's default core_attn).
  uint32_t recompute_modules = recompute_bit(RecomputeModule::core_attn);
  bool flash_attention = true;           // no s×s score tensors are stored
  std::optional<bool> dropout;           // default: the model's own setting
  bool output_layer_activations = true;  // count final-norm/head inputs and logits (Korthikanti §4.3)
  bool fp32_logits = true;               // logits kept in fp32 for the cross-entropy
  bool causal = true;                    // causal attention: half the score FLOPs (FlashAttention convention)
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;  // core/workload/pipeline_schedule.hpp
  CpComm cp_comm = CpComm::automatic;                         // cp_comm=: context parallelism's implementation
  // Framework overlaps (docs/cli.md and docs/estimate.md §2 give each one's rule). Megatron-LM's
  // flags are off unless given (megatron/core/distributed/distributed_data_parallel_config.py,
  // megatron/training/arguments.py); the FSDP ones (zero=3) have FSDP2/torchtitan's defaults.
  bool tp_comm_overlap = false;       // --tp-comm-overlap: TE userbuffers, TP collectives in chunks under the GEMMs
  bool overlap_grad_reduce = false;   // --overlap-grad-reduce: bucketed gradient reduction under the backward
  bool overlap_param_gather = false;  // --overlap-param-gather: the distributed optimizer's gather under the forward
  bool fsdp_prefetch = true;          // FSDP2: the next block's all-gather issued under this block's compute
  // --overlap-moe-expert-parallel-comm: Megatron-Core's combined 1F1B runs one micro-batch's
  // forward beside another's backward, each one's EP all-to-alls under the other's compute.
  bool ep_comm_overlap = false;
  // Megatron-Core's overlap_p2p_comm (ModelParallelConfig default True; --no-overlap-p2p-communication
  // clears it; Megatron-Bridge sets it whenever VP > 1): the interleaved schedule's steady-state
  // sends and receives are asynchronous (isend/irecv, waited where the tensor is used). The warm-up
  // and cool-down stay synchronous unless overlap_p2p_comm_warmup_flush. Other schedules: no effect.
  bool overlap_p2p_comm = true;
  // Token dropping with padded experts (Megatron --moe-expert-capacity-factor with
  // --moe-pad-expert-input-to-capacity; Megatron-Bridge's apply_moe_token_drop, factor 1.0 by
  // default): each expert's input is padded to capacity = factor × its balanced share of the
  // routed tokens (tokens past it dropped), so the experts, their permutations and the all-to-alls
  // move factor × the balanced rows, with static shapes: no device-to-host copy of the splits, and
  // CUDA graphs capture the whole MoE layer. 0: dropless (the default).
  double moe_capacity_factor = 0;
  bool overlap_p2p_comm_warmup_flush = false;
  ReshardAfterForward reshard_after_forward = ReshardAfterForward::torchtitan_default;
  // CUDA graphs (Megatron-LM --cuda-graph-impl / --external-cuda-graph, torch.compile's
  // reduce-overhead): the captured kernels replay without host dispatch (docs/estimate.md).
  bool cuda_graphs = false;
  // With cuda_graphs, also the MoE router and the token dispatcher's preprocessing (the token
  // counts and splits) are captured: Megatron-Core's --cuda-graph-scope moe_router moe_preprocess.
  bool cuda_graph_moe_router = false;
  // Element-wise kernels: fused (Megatron-LM/Transformer Engine's fused norms, RoPE and
  // activations, or torch.compile) or eager PyTorch composites (torchtitan without compile).
  bool eager_kernels = false;
  MemoryFramework memory_framework = MemoryFramework::automatic;  // memory_framework=
  AttentionKernel attention_kernel = AttentionKernel::automatic;  // attention_kernel=
  Fp8Recipe fp8_recipe = Fp8Recipe::automatic;                    // fp8_recipe=
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;         // moe_dispatcher=
  Framework framework = Framework::any;                           // framework=: what the search may propose
  std::string convention = "megatron-distopt";                    // the preset that set the dtypes above
  RuntimeAssumptions runtime;

  // Optimizer state elements per parameter: Adam m and v; SGD momentum.
  [[nodiscard]] int optimizer_states_per_param() const { return optimizer == Optimizer::adam ? 2 : 1; }
  bool operator==(const TrainingWorkload&) const = default;
};

struct ServingWorkload {
  DType weight_dtype = DType::bf16;  // bf16, fp8, int8, int4
  int64_t weight_group_size = 128;   // int4/int8 group-wise quantisation: one fp16 scale per group
  DType kv_dtype = DType::bf16;
  DType activation_dtype = DType::bf16;
  int64_t prompt_len = 1024;
  int64_t output_len = 256;
  int64_t concurrency = 64;           // sequences resident at once
  int64_t max_batched_tokens = 8192;  // prefill chunk / scheduler token budget (workspace)
  double memory_fraction = 0.9;       // share of GPU memory the engine may use (vLLM default 0.9)
  RuntimeAssumptions runtime;

  [[nodiscard]] int64_t context_len() const { return prompt_len + output_len; }
  // Stored bytes per weight, including group-wise scales (an fp16 scale per group).
  [[nodiscard]] double weight_bytes_per_param() const;
  bool operator==(const ServingWorkload&) const = default;
};

// The named conventions for bytes per parameter (docs/conventions.md):
//   zero             16-bit params and grads, fp32 master + Adam: 2+2+12 = 16 B/param (ZeRO §3)
//   megatron         16-bit params, fp32 main grads, fp32 master + Adam: 18 B/param (Megatron-LM)
//   megatron-distopt as megatron, master + Adam sharded over DP: 6 + 12/d (distributed optimizer)
//   playbook-fp32    fp32 params and grads, Adam 8 B, no master: 16 B (Ultra-Scale Playbook)
//   playbook-bf16    bf16 params and grads, Adam 8 B, no master: 12 B (Ultra-Scale Playbook charts)
[[nodiscard]] bool apply_training_convention(TrainingWorkload& workload, const std::string& name);

template <>
struct EnumNames<RecomputeMode> {
  static constexpr std::array<std::pair<RecomputeMode, std::string_view>, 5> table{
      {{RecomputeMode::none, "none"},
       {RecomputeMode::selective, "selective"},
       {RecomputeMode::full, "full"},
       {RecomputeMode::layers, "layers"},
       {RecomputeMode::op, "op"}}};
};
template <>
struct EnumNames<RecomputeModule> {
  static constexpr std::array<std::pair<RecomputeModule, std::string_view>, 7> table{
      {{RecomputeModule::core_attn, "core_attn"},
       {RecomputeModule::moe_act, "moe_act"},
       {RecomputeModule::layernorm, "layernorm"},
       {RecomputeModule::mla_up_proj, "mla_up_proj"},
       {RecomputeModule::mlp, "mlp"},
       {RecomputeModule::moe, "moe"},
       {RecomputeModule::shared_experts, "shared_experts"}}};
};
template <>
struct EnumNames<MemoryFramework> {
  static constexpr std::array<std::pair<MemoryFramework, std::string_view>, 4> table{
      {{MemoryFramework::automatic, "auto"},
       {MemoryFramework::megatron, "megatron"},
       {MemoryFramework::fsdp2, "fsdp2"},
       {MemoryFramework::generic, "generic"}}};
};
template <>
struct EnumNames<Fp8Recipe> {
  static constexpr std::array<std::pair<Fp8Recipe, std::string_view>, 5> table{{{Fp8Recipe::automatic, "auto"},
                                                                                {Fp8Recipe::delayed, "delayed"},
                                                                                {Fp8Recipe::current, "current"},
                                                                                {Fp8Recipe::mxfp8, "mxfp8"},
                                                                                {Fp8Recipe::blockwise, "blockwise"}}};
};
template <>
struct EnumNames<AttentionKernel> {
  static constexpr std::array<std::pair<AttentionKernel, std::string_view>, 4> table{
      {{AttentionKernel::automatic, "auto"},
       {AttentionKernel::flash2, "flash2"},
       {AttentionKernel::cudnn, "cudnn"},
       {AttentionKernel::flash3, "flash3"}}};
};
template <>
struct EnumNames<CpComm> {
  static constexpr std::array<std::pair<CpComm, std::string_view>, 4> table{
      {{CpComm::automatic, "auto"}, {CpComm::p2p, "p2p"}, {CpComm::all_to_all, "a2a"}, {CpComm::torch, "torch"}}};
};
template <>
struct EnumNames<MoeDispatcher> {
  static constexpr std::array<std::pair<MoeDispatcher, std::string_view>, 2> table{
      {{MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::flex, "flex"}}};
};
template <>
struct EnumNames<Framework> {
  static constexpr std::array<std::pair<Framework, std::string_view>, 5> table{
      {{Framework::any, "any"},
       {Framework::megatron_lm, "megatron-lm"},
       {Framework::megatron_bridge, "megatron-bridge"},
       {Framework::torchtitan, "torchtitan"},
       {Framework::deepspeed, "deepspeed"}}};
};
template <>
struct EnumNames<ReshardAfterForward> {
  static constexpr std::array<std::pair<ReshardAfterForward, std::string_view>, 3> table{
      {{ReshardAfterForward::torchtitan_default, "default"},
       {ReshardAfterForward::always, "always"},
       {ReshardAfterForward::never, "never"}}};
};

[[nodiscard]] std::string_view recompute_name(RecomputeMode mode);
// recompute_modules as the --train key writes it: the modules' names joined by '+', in
// RecomputeModule's order ("core_attn+moe_act"); "none" for the empty set.
[[nodiscard]] std::string recompute_modules_text(uint32_t modules);
// The inverse; nullopt names the first unknown module in `bad` (each of "core_attn", "moe_act",
// "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"; "none" alone is the empty set).
[[nodiscard]] std::optional<uint32_t> parse_recompute_modules(std::string_view text, std::string* bad = nullptr);
// Whether a layer pass re-runs `module` in its backward: selective recompute with the module set.
[[nodiscard]] bool recomputes_module(const TrainingWorkload& workload, RecomputeModule module);
// Whether selective recompute re-runs a layer's MLP: the MoE layer (moe) or a dense MLP (mlp);
// its half of the forward TP collectives repeats, and an MoE layer's all-to-alls.
[[nodiscard]] bool recomputes_layer_mlp(const TrainingWorkload& workload, bool moe_layer);
// The experts' rows relative to the balanced routed tokens: moe_capacity_factor when experts are
// padded to capacity, 1 when dropless.
[[nodiscard]] double moe_routed_rows_factor(const TrainingWorkload& workload);
[[nodiscard]] std::string_view optimizer_name(Optimizer optimizer);
[[nodiscard]] std::string_view reshard_after_forward_name(ReshardAfterForward policy);
// Whether FSDP gathers a block's parameters again for its backward (torchtitan's policies above).
[[nodiscard]] bool reshards_after_forward(ReshardAfterForward policy, bool pipeline_parallel, bool last_block);

// Whether the layer's linear projections run as low-precision GEMMs (precision fp8 or NVFP4).
[[nodiscard]] bool fp8_linears(const TrainingWorkload& workload);

// Bytes per element of a low-precision GEMM operand with its block scales: FP8 with per-tensor
// scales 1; MXFP8 1 + 1/32; blockwise FP8 1 + 4/128; NVFP4 0.5 + 1/16 (sources in workload.cpp).
// Other dtypes: their own size.
[[nodiscard]] double low_precision_operand_bytes(DType type, Fp8Recipe recipe);

// Bytes per element of a tensor-parallel (sequence-parallel) all-gather: under an FP8 or NVFP4 recipe
// the linear layer's input, and in backward its output gradient, are quantised before the gather
// and gathered quantised; 16-bit otherwise (workload.cpp names the frameworks' code).
[[nodiscard]] double tp_gather_element_bytes(const TrainingWorkload& workload);

}  // namespace meshscope
