#pragma once
// Memory budgets: what every distinct rank holds, by category, for training and for serving.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/hardware/hardware.hpp"
#include "core/model/model.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

enum class MemoryCategory {
  parameters,
  gradients,
  optimizer_state,  // master weights + optimizer moments
  activations,      // saved for backward (training) / — (serving)
  kv_cache,         // serving only
  temporary,        // logits gradient, unsharded FSDP layers, recompute buffers, serving workspace
  communication,    // NCCL staging buffers, pipeline send/recv, all-to-all buffers
  runtime,          // CUDA context and library workspaces (assumption)
  allocator,        // caching-allocator fragmentation headroom (training) / reserved share (serving)
};

template <>
struct EnumNames<MemoryCategory> {
  static constexpr std::array<std::pair<MemoryCategory, std::string_view>, 9> table{
      {{MemoryCategory::parameters, "parameters"},
       {MemoryCategory::gradients, "gradients"},
       {MemoryCategory::optimizer_state, "optimizer_state"},
       {MemoryCategory::activations, "activations"},
       {MemoryCategory::kv_cache, "kv_cache"},
       {MemoryCategory::temporary, "temporary"},
       {MemoryCategory::communication, "communication"},
       {MemoryCategory::runtime, "runtime"},
       {MemoryCategory::allocator, "allocator_headroom"}}};
};
inline constexpr int kMemoryCategoryCount = 9;

[[nodiscard]] std::string_view category_name(MemoryCategory category);

// One category of one rank, with the formula and inputs that produced it (shown on hover).
struct MemoryItem {
  MemoryCategory category = MemoryCategory::parameters;
  double bytes = 0;
  std::string formula;  // "18 B/param × 1.10e9 params / 8 (ZeRO-1 over DP×CP)"
};

struct RankMemory {
  std::string role;                // "first stage", "middle stage", "last stage", "only stage"
  std::vector<int64_t> pp_stages;  // the pipeline stages with exactly this budget
  int64_t layers = 0;
  double params_on_rank = 0;           // before ZeRO sharding
  double in_flight_micro_batches = 0;  // training only
  std::vector<MemoryItem> items;       // one per category, in MemoryCategory order
  // What PyTorch's caching allocator reports for this rank (torch.cuda.max_memory_allocated and
  // max_memory_reserved): the tensors live at the step's peak, and the blocks it holds then. The
  // items add up to reserved + NCCL's own buffers + the CUDA context (docs/estimate.md, Memory).
  double peak_allocated_bytes = 0;
  double peak_reserved_bytes = 0;
  [[nodiscard]] double total_bytes() const;
  [[nodiscard]] double bytes(MemoryCategory category) const;
};

struct MemoryBudget {
  std::vector<RankMemory> ranks;  // every distinct rank
  double capacity_bytes = 0;
  double usable_bytes = 0;  // serving: capacity × memory_fraction; training: capacity
  std::string convention;   // "megatron-distopt: 2 B params + 4 B grads + 12 B/d optimizer ..."
  // Serving only: KV bytes per token (whole model, one replica) and the largest concurrency.
  double kv_bytes_per_token = 0;
  int64_t max_concurrency = 0;
  [[nodiscard]] double peak_total_bytes() const;
  [[nodiscard]] bool fits() const { return peak_total_bytes() <= usable_bytes; }
};

// Parameters one rank of pipeline stage `stage` holds before any ZeRO sharding.
struct StageParams {
  double dense = 0;          // replicated over DP: attention, dense MLP, shared experts (÷TP), norms, router
  double experts = 0;        // routed experts on this rank (÷ EP·expert-TP)
  double largest_layer = 0;  // one layer's parameters on this rank (for FSDP gathers)
  int64_t layers = 0;
  int64_t first_layer = 0;
  int64_t mtp_layers = 0;  // multi-token-prediction modules on this rank (a pipeline layout's 'm')
  [[nodiscard]] double total() const { return dense + experts; }
};
[[nodiscard]] StageParams stage_params(const ModelSpec& model, const Layout& layout, int64_t stage);

// Bytes per parameter of the model states (ZeRO §3: params, grads, optimizer incl. master)
// under a workload's dtypes and ZeRO stage, for a shard group of `shard` ranks.
struct ModelStateBytes {
  double parameters = 0, gradients = 0, optimizer_state = 0;
  [[nodiscard]] double total() const { return parameters + gradients + optimizer_state; }
};
[[nodiscard]] ModelStateBytes model_state_bytes_per_param(const TrainingWorkload& workload, int64_t shard);

// Communication buffers of a training rank: NCCL staging buffers of every communicator it
// belongs to, pipeline send/recv buffers and MoE all-to-all buffers.
[[nodiscard]] double training_communication_bytes(const ModelSpec& model, const TrainingWorkload& workload,
                                                  const Layout& layout);

// Which framework's allocations the budget follows (MemoryFramework, workload.hpp).
struct FrameworkMemory {
  std::optional<MemoryFramework> framework;  // unset: the workload's memory_framework
  // RecomputeMode::selective means torchtitan's op-level SAC (activations.hpp), not Korthikanti's.
  bool torchtitan_op_sac = false;
  // Megatron --log-params-norm: calc_params_l2_norm (megatron/training/utils.py) appends
  // param.data.float() of every parameter to one list for multi_tensor_l2norm, an fp32 copy of
  // the rank's parameters alive at once after the optimizer step (versions whose distributed
  // optimizer sets param.main_param reuse the fp32 main copy instead; set false for those).
  bool megatron_log_params_norm = false;
  // The first iteration: the optimizer creates its moments at its first step (torch.optim.Adam
  // _init_group, Apex/TE FusedAdam `if len(state) == 0`), so its forward/backward holds none.
  bool first_iteration = false;
};
[[nodiscard]] MemoryFramework resolved_framework(const FrameworkMemory& framework, const TrainingWorkload& workload);
// The workload's context-parallel implementation: cp_comm as given, else PyTorch's context_parallel
// under FSDP2 (torchtitan's only CP) and Megatron's p2p ring otherwise.
[[nodiscard]] CpComm resolved_cp_comm(const TrainingWorkload& workload);
// Megatron-LM with Transformer Engine FP8 (the framework form's FP8 weight caches and FP8-saved
// GEMM inputs, training_memory); the layout search's fast model asks the same.
[[nodiscard]] bool te_fp8_memory(const FrameworkMemory& framework, const TrainingWorkload& workload);
// Whether Transformer Engine keeps one FP8 copy of a tensor for both usages on `gpu` under
// `recipe`: a per-tensor-scaled one (delayed, current) where cuBLASLt runs FP8 GEMMs in every layout
// (fp8_gemm_any_layout); the block-scaled recipes quantise a columnwise copy of their own.
[[nodiscard]] bool te_fp8_single_copy(const GpuSpec& gpu, Fp8Recipe recipe);
// The bytes of the GEMM weights of layers [first, first + count) on one rank (TP/EP/ETP split):
// what Transformer Engine caches 2 B of per weight under FP8.
[[nodiscard]] double rank_gemm_weights(const ModelSpec& model, const Layout& layout, int64_t first, int64_t count);

// The framework's buffers of one pipeline rank beyond its model states and saved activations:
// training_memory's `temporary` item and the derived part of its `allocator_headroom`, for callers
// that size the states and activations themselves (the layout search's fast model). `stage` as
// stage_params gives it; `largest_recompute`: the bytes one layer's recompute materialises;
// `first`/`last`: the rank holds the embedding / the final norm and head; `describe`: write the
// formula text (the search's fast model skips it).
struct StageBuffers {
  double temporary = 0;        // held through the peak + the larger of the loss's and a block's backward
  double all_gather_pool = 0;  // FSDP2: all_gather_copy_in_stream's pool
  double loss_hole = 0;        // torchtitan's loss: the 16-bit remainder of the logits' hole
  std::string formula;
};
[[nodiscard]] StageBuffers stage_buffers(const ModelSpec& model, const TrainingWorkload& workload, const Layout& layout,
                                         const FrameworkMemory& framework, const StageParams& stage,
                                         double largest_recompute, bool first, bool last, bool describe = true);

[[nodiscard]] MemoryBudget training_memory(const ModelSpec& model, const TrainingWorkload& workload,
                                           const Layout& layout, const GpuSpec& gpu,
                                           const FrameworkMemory& framework = {});
[[nodiscard]] MemoryBudget serving_memory(const ModelSpec& model, const ServingWorkload& workload, const Layout& layout,
                                          const GpuSpec& gpu);

// KV-cache bytes per token for the whole model: 2 (K, V) × layers × kv_heads × head_dim × bytes;
// MLA caches only the latent and the RoPE key: layers × (d_c + d_h^R) × bytes (DeepSeek-V3 §2.1.1).
[[nodiscard]] double kv_cache_bytes_per_token(const ModelSpec& model, DType kv_dtype);

}  // namespace meshscope
