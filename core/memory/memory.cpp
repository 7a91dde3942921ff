#include "core/memory/memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/framework/framework.hpp"
#include "core/memory/activations.hpp"

namespace meshscope {

std::string_view category_name(MemoryCategory category) {
  return enum_name(category);
}

double RankMemory::total_bytes() const {
  return std::accumulate(items.begin(), items.end(), 0.0,
                         [](double sum, const MemoryItem& i) { return sum + i.bytes; });
}

double RankMemory::bytes(MemoryCategory category) const {
  for (const auto& item : items)
    if (item.category == category) return item.bytes;
  return 0.0;
}

double MemoryBudget::peak_total_bytes() const {
  double peak = 0;
  for (const auto& rank : ranks) peak = std::max(peak, rank.total_bytes());
  return peak;
}

ModelStateBytes model_state_bytes_per_param(const TrainingWorkload& w, int64_t shard) {
  // ZeRO (Rajbhandari et al. SC20) §3.1/§5: stage 1 shards optimizer state (incl. fp32 master
  // weights), stage 2 also gradients, stage 3 also parameters, each over the N_d shard ranks.
  const auto n = static_cast<double>(std::max<int64_t>(shard, 1));
  ModelStateBytes b;
  b.parameters = dtype_bytes(w.param_dtype) / (w.zero_stage >= 3 ? n : 1.0);
  b.gradients = dtype_bytes(w.grad_dtype) / (w.zero_stage >= 2 ? n : 1.0);
  const double master = w.master_dtype ? dtype_bytes(*w.master_dtype) : 0.0;
  b.optimizer_state =
      (master + w.optimizer_states_per_param() * dtype_bytes(w.optimizer_state_dtype)) / (w.zero_stage >= 1 ? n : 1.0);
  return b;
}

double kv_cache_bytes_per_token(const ModelSpec& m, DType kv_dtype) {
  const double e = dtype_bytes(kv_dtype);
  const auto layers = static_cast<double>(m.num_layers);
  if (m.mla.enabled()) return layers * static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * e;
  return 2.0 * layers * static_cast<double>(m.num_kv_heads) * static_cast<double>(m.head_dim) * e;
}

namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, a, b, c, d);
  return buffer;
}

}  // namespace

StageParams stage_params(const ModelSpec& m, const Layout& l, int64_t stage) {
  const auto layers = layers_per_stage(m, l);
  const auto firsts = first_layer_of_stage(m, l);
  const auto tp = static_cast<double>(l.tp);
  StageParams p;
  p.layers = layers[static_cast<size_t>(stage)];
  p.first_layer = firsts[static_cast<size_t>(stage)];
  // One block on this rank: its TP-split dense parameters (plus `extra_dense`) and its experts.
  const auto add_block = [&](const LayerParams& lp, double extra_dense, double copies) {
    const double dense = (lp.attention + lp.mlp + lp.shared_experts) / tp + lp.norms + lp.router + extra_dense;
    const double experts = lp.routed_experts / static_cast<double>(l.ep * l.etp);
    p.dense += copies * dense;
    p.experts += copies * experts;
    p.largest_layer = std::max(p.largest_layer, dense + experts);
  };
  for (int64_t i = 0; i < p.layers; ++i) add_block(layer_params(m, p.first_layer + i), 0.0, 1.0);
  // Multi-token prediction (DeepSeek-V3 §2.2; Megatron-Core MultiTokenPredictionLayer): per module a
  // transformer block like the model's last layer, two RMSNorms (enorm, hnorm) and the 2h → h
  // projection (eh_proj, column-parallel); the embedding and the output head are shared.
  const auto mtp = mtp_layers_per_virtual_stage(l);
  for (size_t u = static_cast<size_t>(stage); u < mtp.size(); u += static_cast<size_t>(std::max<int64_t>(l.pp, 1)))
    p.mtp_layers += mtp[u];
  if (p.mtp_layers > 0) {
    const auto h = static_cast<double>(m.hidden_size);
    add_block(layer_params(m, m.num_layers - 1), 2 * h * h / tp + 2 * h, static_cast<double>(p.mtp_layers));
  }
  const double vocab_table = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / tp;
  if (stage == 0) {  // vocab-parallel embedding; a learned position table is replicated
    p.dense += vocab_table + (embedding_params(m) - vocab_table * tp);
  }
  if (stage == l.pp - 1) {
    p.dense += final_norm_params(m);
    // Untied head, or (Megatron, PP > 1) the last stage's copy of the tied embedding.
    if (!m.tied_embeddings || l.pp > 1) p.dense += vocab_table;
  }
  return p;
}

namespace {

std::string stage_role(int64_t stage, int64_t pp) {
  if (pp == 1) return "only stage";
  if (stage == 0) return "first stage";
  if (stage == pp - 1) return "last stage";
  return "middle stage";
}

// Collapse stages whose budgets are identical into one entry.
std::vector<RankMemory> merge_identical(std::vector<RankMemory> stages) {
  std::vector<RankMemory> merged;
  for (auto& rank : stages) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const RankMemory& other) {
      if (other.role != rank.role || other.items.size() != rank.items.size()) return false;
      for (size_t i = 0; i < rank.items.size(); ++i)
        if (std::abs(other.items[i].bytes - rank.items[i].bytes) > 1e-6 * std::max(1.0, rank.items[i].bytes))
          return false;
      return true;
    });
    if (same != merged.end()) {
      same->pp_stages.push_back(rank.pp_stages.front());
    } else {
      merged.push_back(std::move(rank));
    }
  }
  return merged;
}

double nccl_buffers(const RuntimeAssumptions& r, int64_t communicators) {
  return static_cast<double>(communicators) * static_cast<double>(r.nccl_channels) * 2.0 * r.nccl_buffer_bytes;
}

int64_t communicators(const Layout& l, bool training) {
  int64_t count = 0;
  if (training && l.dp * l.cp > 1) count += 1;  // gradient reduction over DP×CP
  if (l.tp > 1) count += 1;
  if (l.pp > 1) count += 1;
  if (l.cp > 1) count += 1;
  if (l.ep > 1) count += 1;
  return count;
}

bool is_recomputed_fully(const TrainingWorkload& w, int64_t index_in_chunk) {
  if (w.recompute == RecomputeMode::full) return true;
  return w.recompute == RecomputeMode::layers && index_in_chunk < w.recompute_layers;
}

}  // namespace

double training_communication_bytes(const ModelSpec& m, const TrainingWorkload& w, const Layout& l) {
  const double tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  const double sp_divisor = l.sp ? static_cast<double>(l.tp) : 1.0;
  const double e = dtype_bytes(w.activation_dtype);
  double bytes = nccl_buffers(w.runtime, communicators(l, true));
  if (l.pp > 1) bytes += 2.0 * tokens * static_cast<double>(m.hidden_size) * e / sp_divisor;
  if (m.is_moe() && l.ep > 1)
    bytes += 2.0 * tokens / sp_divisor * static_cast<double>(m.moe.top_k) * static_cast<double>(m.hidden_size) * e;
  return bytes;
}

MemoryFramework resolved_framework(const FrameworkMemory& f, const TrainingWorkload& w) {
  const MemoryFramework chosen = f.framework.value_or(w.memory_framework);
  if (chosen != MemoryFramework::automatic) return chosen;
  // The target framework's own allocations (core/framework/framework.cpp), and under `any` FSDP2
  // as torchtitan applies it for the ZeRO-3 the rest of the core assumes (overlap.hpp).
  if (const MemoryFramework own = framework_spec(w.framework).memory; own != MemoryFramework::automatic) return own;
  return w.zero_stage >= 3 ? MemoryFramework::fsdp2 : MemoryFramework::megatron;
}

CpComm resolved_cp_comm(const TrainingWorkload& w) {
  if (w.cp_comm != CpComm::automatic) return w.cp_comm;
  if (const CpComm own = framework_spec(w.framework).default_cp_comm; own != CpComm::automatic) return own;
  return resolved_framework({}, w) == MemoryFramework::fsdp2 ? CpComm::torch : CpComm::p2p;
}

bool te_fp8_memory(const FrameworkMemory& framework, const TrainingWorkload& w) {
  return resolved_framework(framework, w) == MemoryFramework::megatron && w.compute_dtype == DType::fp8;
}

bool te_fp8_single_copy(const GpuSpec& gpu, Fp8Recipe recipe) {
  return fp8_gemm_any_layout(gpu) && (recipe == Fp8Recipe::delayed || recipe == Fp8Recipe::current);
}

double rank_gemm_weights(const ModelSpec& m, const Layout& l, int64_t first, int64_t count) {
  double gemm_weights = 0;
  for (int64_t i = 0; i < count; ++i) {
    const LayerParams lp = layer_params(m, first + i);
    gemm_weights += (lp.attention + lp.mlp + lp.shared_experts) / static_cast<double>(l.tp) +
                    lp.routed_experts / static_cast<double>(l.ep * l.etp);
  }
  return gemm_weights;
}

StageBuffers stage_buffers(const ModelSpec& m, const TrainingWorkload& w, const Layout& l,
                           const FrameworkMemory& framework, const StageParams& sp, double largest_recompute,
                           bool first, bool last, bool describe) {
  // The formula text only when asked for (the layout search evaluates thousands of candidates).
  const auto note = [describe](const char* format, double x, double y = 0, double z = 0) {
    return describe ? fmt(format, x, y, z) : std::string();
  };
  const MemoryFramework fw = resolved_framework(framework, w);
  const bool fsdp2 = fw == MemoryFramework::fsdp2 && w.zero_stage >= 3;
  const double e = dtype_bytes(w.activation_dtype);
  const double tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  const int64_t dense_shard = l.shard_group() * l.cp;
  const auto tp = static_cast<double>(l.tp);
  // Temporary buffers, at the two moments that can be the peak: the loss's backward (the logits
  // gradient) and a block's backward (its recompute, and under FSDP its gradients). Only the
  // larger one is live at once; FSDP's unsharded parameters are held through both.
  const double gather_bytes = dtype_bytes(w.activation_dtype);  // FSDP2 MixedPrecisionPolicy.param_dtype
  const double vocab_tokens = tokens * static_cast<double>(m.vocab_size) / static_cast<double>(l.tp);
  double loss = 0;
  std::string loss_formula;
  if (last && w.output_layer_activations) {
    if (fw == MemoryFramework::fsdp2) {
      // torchtitan's loss is F.cross_entropy(pred.flatten(0, 1).float(), labels) (torchtitan
      // components/loss.py cross_entropy_loss): log_softmax's fp32 output is the saved logits
      // above; its backward holds nll_loss's fp32 gradient and log_softmax's fp32 input gradient
      // at once (aten log_softmax_backward_data(grad_output, output) -> grad_input).
      loss = 2.0 * (w.fp32_logits ? 4.0 : e) * vocab_tokens;
      loss_formula = note("%.3g B loss backward (2 fp32 logits gradients, torchtitan cross_entropy)", loss);
    } else {
      // Megatron-Core vocab_parallel_cross_entropy (tensor_parallel/cross_entropy.py) saves the
      // fp32 softmax and turns it into the gradient in place; the cast back to 16 bit
      // (logits.float() in compute_language_model_loss) allocates the 16-bit logits gradient.
      loss = e * vocab_tokens;
      loss_formula = note("%.3g B 16-bit logits gradient (vocab_parallel_cross_entropy in place)", loss);
    }
  }
  double block_backward = largest_recompute;
  std::string block_formula = note("%.3g B recompute", largest_recompute);
  double held = 0;
  std::string held_formula;
  double all_gather_pool = 0;
  if (fsdp2) {
    // PyTorch FSDP2 (torch/distributed/fsdp/_fully_shard), as torchtitan applies it
    // (torchtitan models/llama3/infra/parallelize.py apply_fsdp: one FSDP group per block, the
    // root group holds embedding, final norm and head).
    const double block = sp.largest_layer;
    // The root group: embedding (first stage), final norm and head (last stage), as stage_params.
    const double vocab_table = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / tp;
    double root = 0;
    if (first) root += vocab_table + (embedding_params(m) - vocab_table * tp);
    if (last) root += final_norm_params(m) + ((!m.tied_embeddings || l.pp > 1) ? vocab_table : 0.0);
    // fully_shard: "the root FSDP state has its value specially set to False" (reshard_after_
    // forward), so the root's unsharded parameters live from its forward to its post-backward.
    int64_t kept_blocks = 0;
    for (int64_t i = 0; i < sp.layers; ++i)
      if (!reshards_after_forward(w.reshard_after_forward, l.pp > 1, sp.first_layer + i == m.num_layers - 1))
        ++kept_blocks;
    held = (root + static_cast<double>(kept_blocks) * block) * gather_bytes;
    held_formula = note(" + %.3g B unsharded root + %.0f blocks not resharded after forward", held,
                        static_cast<double>(kept_blocks));
    // A block's backward (FSDPParamGroup.pre_backward/post_backward, foreach_reduce): the block
    // re-gathered if it was resharded, its unsharded gradients (param dtype), and the
    // reduce-scatter input in reduce_dtype (torchtitan: fp32) on the current stream, held in
    // comm_ctx.reduce_scatter_state until the next block's post_backward frees it.
    const bool last_resharded = reshards_after_forward(w.reshard_after_forward, l.pp > 1, true);
    const double regathered = last_resharded ? block * gather_bytes : 0.0;
    const double grads = block * gather_bytes;
    const double reduce_scatter_input = block * dtype_bytes(w.grad_dtype);
    block_backward += regathered + grads + reduce_scatter_input;
    block_formula +=
        note(" + %.3g B unsharded block gradients + %.3g B reduce-scatter input", grads, reduce_scatter_input);
    // The all-gather outputs are allocated on all_gather_copy_in_stream (foreach_all_gather), a
    // pool of their own: the caching allocator reuses a block only on the stream it was
    // allocated on. Its peak: a group's output is freed only at the next group's
    // wait_for_unshard (comm_ctx.all_gather_state, forward), so the first two groups' outputs
    // (root and first block) and the shard copy-in (1/n) are live at once.
    const auto n = static_cast<double>(std::max<int64_t>(dense_shard, 1));
    all_gather_pool = (std::max(root, block) + block + block / n) * gather_bytes;
  } else if (w.zero_stage >= 3) {
    // Megatron-Core's FSDP and DeepSpeed ZeRO-3 are not modelled buffer by buffer: a gathered
    // layer in the parameter and gradient dtypes, prefetched one ahead.
    const double gathered = sp.largest_layer * (2.0 * dtype_bytes(w.param_dtype) + dtype_bytes(w.grad_dtype));
    held = gathered;
    held_formula = note(" + %.3g B unsharded layer (2 gathered + 1 gradient)", gathered);
  }
  if (l.cp > 1 && resolved_cp_comm(w) == CpComm::torch) {
    // PyTorch's context_parallel in a block's backward (torch/distributed/tensor/experimental/
    // _attention.py, _templated_ring_attention_backward), in units of O, the rank's attention
    // output in the activation dtype (K and V as large: repeated to the query heads): the
    // all-gathered K/V of the whole ring (2·cp·O), the fp32 dQ accumulator (2O), the dK/dV
    // received from the previous rank (4O), the new fp32 dK and dV (4O) and their concatenation
    // being sent (4O), the step's SDPA gradients (3O) and the K/V concatenation (2O):
    // (2·cp + 19)·O at once.
    const double o = tokens * static_cast<double>(m.attention_output_width()) / tp * e;
    const double ring = (2.0 * static_cast<double>(l.cp) + 19.0) * o;
    block_backward += ring;
    block_formula += note(" + %.3g B ring-attention backward (gathered K/V, fp32 dQ/dK/dV and exchange buffers)", ring);
  }
  double temporary = held + std::max(loss, block_backward);
  std::string temp_formula =
      (loss >= block_backward && loss > 0 ? loss_formula : block_formula) + held_formula +
      note(" (the larger of loss backward %.3g B and block backward %.3g B)", loss, block_backward);
  if (fw == MemoryFramework::generic) {
    // The framework-neutral budget: a recomputed layer, the fp32 logits gradient and ZeRO-3's
    // gathered layer, all counted at once.
    temporary = largest_recompute;
    temp_formula = note("%.3g B recompute", largest_recompute);
    if (last && w.output_layer_activations) {
      const double logits_grad = 4.0 * vocab_tokens;
      temporary += logits_grad;
      temp_formula += note(" + %.3g B fp32 logits gradient", logits_grad);
    }
    if (w.zero_stage >= 3) {
      const double gathered = sp.largest_layer * (2.0 * dtype_bytes(w.param_dtype) + dtype_bytes(w.grad_dtype));
      temporary += gathered;
      temp_formula += note(" + %.3g B unsharded layer (2 gathered + 1 gradient)", gathered);
    }
  }
  StageBuffers out;
  out.temporary = temporary;
  out.formula = temp_formula;
  out.all_gather_pool = all_gather_pool;
  // torchtitan's loss frees the 16-bit logits and their fp32 copy after the forward (train.py
  // `del pred`), a hole of (2 + 4) B per logit; in the backward the first fp32 gradient fits it
  // (best fit among the stream's free blocks, CUDACachingAllocator get_free_block), the second
  // does not and extends the segment, so the hole's 16-bit remainder stays reserved, unused.
  out.loss_hole = fw == MemoryFramework::fsdp2 && loss > 0 && w.fp32_logits ? e * vocab_tokens : 0.0;
  return out;
}

namespace {

// What every stage's budget reads: the inputs and what follows from them alone.
struct TrainingMemoryScope {
  const ModelSpec& m;
  const TrainingWorkload& w;
  const Layout& l;
  const GpuSpec& gpu;
  const FrameworkMemory& framework;
  MemoryFramework fw = MemoryFramework::megatron;
  bool fsdp2 = false;  // FSDP2 (ZeRO 3 under torchtitan's allocations)
  ActivationConfig act{};
  // Megatron with Transformer Engine FP8: the GEMM inputs are saved in FP8 (activations.cpp).
  bool te_fp8 = false;
  int64_t micro_batches = 1;
  ModelStateBytes dense_bytes{}, expert_bytes{};
  double e = 0;       // bytes per activation element
  double tokens = 0;  // per micro-batch on one rank
  double sp_divisor = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;  // the one simulated
  // DualPipe runs the model from both ends: rank r holds model stages r and p − 1 − r, so twice
  // the parameters (deepseek-ai/DualPipe README, "Parameter 2×").
  bool dualpipe = false;
  std::vector<int64_t> chunk_counts{}, chunk_firsts{};  // per virtual stage
};

// The parameters, gradients and optimizer state of a rank that holds `sp` (and under DualPipe
// `mirror`, whose parameters `sp` already includes).
void add_model_states(RankMemory& rank, const TrainingMemoryScope& s, const StageParams& sp,
                      const StageParams& mirror) {
  const ModelStateBytes& dense_bytes = s.dense_bytes;
  const ModelStateBytes& expert_bytes = s.expert_bytes;
  auto states = [&](double ModelStateBytes::*field) {
    return sp.dense * (dense_bytes.*field) + sp.experts * (expert_bytes.*field);
  };
  {
    double parameters = states(&ModelStateBytes::parameters);
    std::string formula = fmt("%.3g dense params × %.3g B + %.3g expert params × %.3g B", sp.dense,
                              dense_bytes.parameters, sp.experts, expert_bytes.parameters);
    if (s.te_fp8) {
      // Transformer Engine caches each GEMM weight's FP8 copy for the step's micro-batches, in
      // both usages, rowwise and columnwise (the transpose for the data gradient): 2 B per
      // GEMM weight (module/base.py get_weight_workspace, cache_name "weight" whenever
      // is_first_microbatch is given, as Megatron-Core's TELinear does unless
      // disable_parameter_transpose_cache). Norms, router, embedding and head stay 16-bit.
      // On datacenter Blackwell a per-tensor-scaled copy serves both usages (fp8_gemm_any_layout):
      // 1 B; MXFP8 and blockwise keep a columnwise copy with its own scales there too.
      const bool one_copy =
          te_fp8_single_copy(s.gpu, s.w.fp8_recipe == Fp8Recipe::automatic ? Fp8Recipe::delayed : s.w.fp8_recipe);
      const double gemm_weights = rank_gemm_weights(s.m, s.l, sp.first_layer, sp.layers) +
                                  rank_gemm_weights(s.m, s.l, mirror.first_layer, mirror.layers);
      parameters += (one_copy ? 1.0 : 2.0) * gemm_weights;
      formula += one_copy ? fmt(" + %.3g GEMM weights × 1 B FP8 workspace (used both ways)", gemm_weights)
                          : fmt(" + %.3g GEMM weights × 2 B FP8 workspaces (data and transpose)", gemm_weights);
    }
    rank.items.push_back({MemoryCategory::parameters, parameters, formula});
  }
  rank.items.push_back({MemoryCategory::gradients, states(&ModelStateBytes::gradients),
                        fmt("%.3g dense params × %.3g B + %.3g expert params × %.3g B", sp.dense, dense_bytes.gradients,
                            sp.experts, expert_bytes.gradients)});
  rank.items.push_back({MemoryCategory::optimizer_state, states(&ModelStateBytes::optimizer_state),
                        fmt("%.3g dense params × %.3g B + %.3g expert params × %.3g B (master + moments)", sp.dense,
                            dense_bytes.optimizer_state, sp.experts, expert_bytes.optimizer_state)});
}

// What one micro-batch in flight keeps on a rank, and what the recompute and the deferred Ws need.
struct StageActivations {
  double per_micro_batch = 0;    // the transformer layers' saved activations
  double extra = 0;              // the embedding's, the output layer's and the MTP modules'
  double largest_recompute = 0;  // the most one layer's recompute materialises
  double held_for_w = 0;         // per micro-batch, what a deferred W needs (zero bubble)
  double owed_ws = 0;            // the deferred Ws the stage holds at its peak
};

// The per-layer inventory (Korthikanti Eq. 5), walked chunk by chunk (the rank's virtual stages,
// core/workload/layout.hpp) so that "recompute n layers" takes the first n of each chunk; DualPipe's mirror
// stage follows as one more chunk, and as its chunks in flight are of either stage a micro-batch
// counts the mean of the two (halved here).
StageActivations stage_activations(const TrainingMemoryScope& s, int64_t stage, const StageParams& sp,
                                   const StageParams& mirror) {
  const ModelSpec& m = s.m;
  const TrainingWorkload& w = s.w;
  const Layout& l = s.l;
  const ActivationConfig& act = s.act;
  const bool dualpipe = s.dualpipe;
  std::vector<std::pair<int64_t, int64_t>> chunks;  // (first layer, layers)
  for (int64_t c = 0; c < std::max<int64_t>(l.vpp, 1); ++c) {
    const auto u = static_cast<size_t>(c * l.pp + stage);
    chunks.emplace_back(s.chunk_firsts[u], s.chunk_counts[u]);
  }
  if (dualpipe) chunks.emplace_back(mirror.first_layer, mirror.layers);
  // An MTP module's block keeps what the model's last layer keeps (walked as one more chunk).
  if (sp.mtp_layers > 0) chunks.emplace_back(-1, sp.mtp_layers);
  StageActivations a;
  double& per_micro_batch = a.per_micro_batch;
  double& largest_recompute = a.largest_recompute;
  // A zero-bubble stage also holds what its deferred Ws need (Qi et al. 2024 Table 2): per
  // micro-batch, each layer's weight_gradient_held_bytes, summed in the same walk.
  a.owed_ws = deferred_weight_gradient_micro_batches(s.schedule, stage, l.pp, s.micro_batches);
  for (const auto& [first, count] : chunks) {
    for (int64_t i = 0; i < count; ++i) {
      const int64_t layer = first < 0 ? m.num_layers - 1 : first + i;
      if (a.owed_ws > 0) a.held_for_w += weight_gradient_held_bytes(m, layer, act);
      if (is_recomputed_fully(w, i)) {
        per_micro_batch += layer_activation_bytes(m, layer, act, RecomputeMode::full);
        largest_recompute = std::max(largest_recompute, layer_activation_bytes(m, layer, act, RecomputeMode::none));
      } else if ((s.framework.torchtitan_op_sac && w.recompute == RecomputeMode::selective) ||
                 w.recompute == RecomputeMode::op) {
        const double saved = torchtitan_op_sac_layer_bytes(m, layer, act).bytes;
        per_micro_batch += saved;
        largest_recompute =
            std::max(largest_recompute, layer_activation_bytes(m, layer, act, RecomputeMode::none) - saved);
      } else {
        const RecomputeMode mode =
            w.recompute == RecomputeMode::selective ? RecomputeMode::selective : RecomputeMode::none;
        per_micro_batch += layer_activation_bytes(m, layer, act, mode);
        if (mode == RecomputeMode::selective)
          largest_recompute =
              std::max(largest_recompute, layer_activation_bytes(m, layer, act, RecomputeMode::none) -
                                              layer_activation_bytes(m, layer, act, RecomputeMode::selective));
      }
    }
  }
  double& extra = a.extra;
  if (stage == 0 || (dualpipe && stage == l.pp - 1)) extra += embedding_activation_bytes(m, act);
  const bool last = stage == l.pp - 1 || (dualpipe && stage == 0);
  if (last && w.output_layer_activations) extra += output_activation_bytes(m, act, w.fp32_logits);
  // Each MTP module's own logits and its concatenated input (2h) for the projection.
  if (sp.mtp_layers > 0 && w.output_layer_activations)
    extra += static_cast<double>(sp.mtp_layers) *
             (output_activation_bytes(m, act, w.fp32_logits) +
              tensor_bytes_on_rank({"MTP projection input", act.element_bytes * 2 * static_cast<double>(m.hidden_size),
                                    TensorSplit::tp_replicated},
                                   act));
  if (dualpipe) {
    per_micro_batch /= 2;
    extra /= 2;
  }
  return a;
}

// The activations item: `a` times the micro-batches in flight, and the deferred Ws' inputs.
void add_activations(RankMemory& rank, const StageActivations& a, double in_flight, int64_t layers) {
  std::string activation_formula =
      fmt("(%.3g B per micro-batch in %.0f layers + %.3g B embedding/output) × %.3g in flight", a.per_micro_batch,
          static_cast<double>(layers), a.extra, in_flight);
  double activation_bytes = (a.per_micro_batch + a.extra) * in_flight;
  if (a.owed_ws > 0) {
    activation_bytes += a.held_for_w * a.owed_ws;
    activation_formula +=
        fmt(" + %.3g B of W inputs and output gradients per micro-batch × %.3g deferred Ws "
            "(Qi et al. 2024 Table 2)",
            a.held_for_w, a.owed_ws);
  }
  rank.items.push_back({MemoryCategory::activations, activation_bytes, activation_formula});
}

// The communication buffers item (NCCL's, the pipeline's and the all-to-alls'); returns its bytes.
double add_communication(RankMemory& rank, const TrainingMemoryScope& s) {
  const ModelSpec& m = s.m;
  const TrainingWorkload& w = s.w;
  const Layout& l = s.l;
  const int64_t comms = communicators(l, true);
  double communication = nccl_buffers(w.runtime, comms);
  std::string comm_formula = fmt("%.0f communicators × %.0f channels × 2 peers × %.3g B", static_cast<double>(comms),
                                 static_cast<double>(w.runtime.nccl_channels), w.runtime.nccl_buffer_bytes);
  if (l.pp > 1) {
    const double p2p = 2.0 * s.tokens * static_cast<double>(m.hidden_size) * s.e / s.sp_divisor;
    communication += p2p;
    comm_formula += fmt(" + %.3g B pipeline send/recv", p2p);
  }
  if (m.is_moe() && l.ep > 1) {
    const double a2a =
        2.0 * s.tokens / s.sp_divisor * static_cast<double>(m.moe.top_k) * static_cast<double>(m.hidden_size) * s.e;
    communication += a2a;
    comm_formula += fmt(" + %.3g B all-to-all dispatch/combine", a2a);
  }
  // The same total as training_communication_bytes(), which the layout search uses.
  communication = training_communication_bytes(m, w, l);
  if (w.moe_capacity_factor > 0 && m.is_moe() && l.ep > 1) {
    const double a2a =
        2.0 * s.tokens / s.sp_divisor * static_cast<double>(m.moe.top_k) * static_cast<double>(m.hidden_size) * s.e;
    communication += (w.moe_capacity_factor - 1.0) * a2a;
    comm_formula += fmt(" × %.3g capacity factor", w.moe_capacity_factor);
  }
  rank.items.push_back({MemoryCategory::communication, communication, comm_formula});
  return communication;
}

// The runtime item, and the allocator's: its fragmentation over the dynamic memory and the
// framework's pools; returns the fragmentation.
double add_runtime_and_allocator(RankMemory& rank, const TrainingWorkload& w, const StageBuffers& buffers,
                                 double communication) {
  rank.items.push_back(
      {MemoryCategory::runtime, w.runtime.runtime_bytes, "CUDA context and library workspaces (assumption)"});
  const double dynamic = rank.bytes(MemoryCategory::activations) + buffers.temporary + communication;
  const double fragmentation = dynamic * w.runtime.allocator_fraction;  // an assumption (workload.hpp)
  std::string allocator_formula = fmt("%.3g × (activations + temporary + communication)", w.runtime.allocator_fraction);
  if (buffers.all_gather_pool > 0)
    allocator_formula += fmt(" + %.3g B all-gather stream pool", buffers.all_gather_pool);
  if (buffers.loss_hole > 0) allocator_formula += fmt(" + %.3g B loss hole", buffers.loss_hole);
  rank.items.push_back(
      {MemoryCategory::allocator, fragmentation + buffers.all_gather_pool + buffers.loss_hole, allocator_formula});
  return fragmentation;
}

// What the allocator reports (RankMemory::peak_allocated_bytes, peak_reserved_bytes). The NCCL
// buffers are NCCL's own cudaMalloc, outside PyTorch's pool.
void set_allocator_peaks(RankMemory& rank, const TrainingMemoryScope& s, const StageParams& sp,
                         const StageBuffers& buffers, double communication, double fragmentation) {
  const TrainingWorkload& w = s.w;
  const bool fsdp2 = s.fsdp2;
  const double temporary = buffers.temporary;
  const double torch_communication = communication - nccl_buffers(w.runtime, communicators(s.l, true));
  const double params = rank.bytes(MemoryCategory::parameters);
  const double grads = rank.bytes(MemoryCategory::gradients);
  const double optimizer = rank.bytes(MemoryCategory::optimizer_state);
  const double master = w.master_dtype ? dtype_bytes(*w.master_dtype) : 0.0;
  const double moments = w.optimizer_states_per_param() * dtype_bytes(w.optimizer_state_dtype);
  const double optimizer_in_backward =
      s.framework.first_iteration ? optimizer * master / (master + moments) : optimizer;
  // FSDP2's sharded gradients are the reduce-scatter outputs, allocated on reduce_scatter_stream
  // (foreach_reduce) and freed by zero_grad(set_to_none) each step: not live at the backward's
  // start, but their blocks stay in that stream's pool (reserved). Megatron's main-grad buffer
  // (param_and_grad_buffer.py, grad_data) is allocated once and lives throughout.
  const double forward_backward = params + (fsdp2 ? 0.0 : grads) + optimizer_in_backward +
                                  rank.bytes(MemoryCategory::activations) + temporary + torch_communication;
  const double params_norm_copy =
      s.fw == MemoryFramework::megatron && s.framework.megatron_log_params_norm ? 4.0 * sp.total() : 0.0;
  const double step_end = params + (fsdp2 ? 0.0 : grads) + optimizer + params_norm_copy;
  rank.peak_allocated_bytes =
      fsdp2 ? std::max(forward_backward, step_end + grads) : std::max(forward_backward, step_end);
  rank.peak_reserved_bytes = std::max(forward_backward + buffers.loss_hole, step_end) + (fsdp2 ? grads : 0.0) +
                             buffers.all_gather_pool + fragmentation;
}

// The budget of pipeline rank `stage`: every category, then the allocator's peaks.
RankMemory stage_memory(const TrainingMemoryScope& s, int64_t stage) {
  const Layout& l = s.l;
  const bool dualpipe = s.dualpipe;
  StageParams sp = stage_params(s.m, l, stage);
  const StageParams mirror = dualpipe ? stage_params(s.m, l, l.pp - 1 - stage) : StageParams{};
  if (dualpipe) {
    sp.dense += mirror.dense;
    sp.experts += mirror.experts;
    sp.largest_layer = std::max(sp.largest_layer, mirror.largest_layer);
  }
  RankMemory rank;
  rank.role = stage_role(stage, l.pp);
  rank.pp_stages = {stage};
  rank.layers = sp.layers + mirror.layers;
  rank.params_on_rank = sp.total();
  const double in_flight = in_flight_micro_batches(s.schedule, stage, l.pp, l.vpp, s.micro_batches);
  rank.in_flight_micro_batches = in_flight;
  add_model_states(rank, s, sp, mirror);
  const StageActivations activations = stage_activations(s, stage, sp, mirror);
  add_activations(rank, activations, in_flight, sp.layers + mirror.layers);
  const bool first = stage == 0 || (dualpipe && stage == l.pp - 1);
  const bool last = stage == l.pp - 1 || (dualpipe && stage == 0);
  const StageBuffers buffers = stage_buffers(s.m, s.w, l, s.framework, sp, activations.largest_recompute, first, last);
  rank.items.push_back({MemoryCategory::temporary, buffers.temporary, buffers.formula});
  const double communication = add_communication(rank, s);
  const double fragmentation = add_runtime_and_allocator(rank, s.w, buffers, communication);
  set_allocator_peaks(rank, s, sp, buffers, communication, fragmentation);
  return rank;
}

}  // namespace

MemoryBudget training_memory(const ModelSpec& m, const TrainingWorkload& w, const Layout& l, const GpuSpec& gpu,
                             const FrameworkMemory& framework) {
  TrainingMemoryScope s{m, w, l, gpu, framework};
  s.fw = resolved_framework(framework, w);
  s.fsdp2 = s.fw == MemoryFramework::fsdp2 && w.zero_stage >= 3;
  MemoryBudget budget;
  budget.capacity_bytes = gpu.memory_bytes;
  budget.usable_bytes = gpu.memory_bytes;
  s.act = ActivationConfig::from(w, m, l);
  s.te_fp8 = te_fp8_memory(framework, w);
  if (s.te_fp8) s.act.gemm_input_bytes = 1.0;
  // Experts padded to capacity (moe_capacity_factor): the routed activations grow by the factor.
  s.act.routed_token_factor = moe_routed_rows_factor(w);
  s.micro_batches = std::max<int64_t>(num_micro_batches(w, l), 1);
  const int64_t dense_shard = l.shard_group() * l.cp;
  const int64_t expert_shard = std::max<int64_t>(l.expert_dp() * l.shard_group() / std::max<int64_t>(l.dp, 1), 1);
  s.dense_bytes = model_state_bytes_per_param(w, dense_shard);
  s.expert_bytes = model_state_bytes_per_param(w, expert_shard);
  const ModelStateBytes unsharded = model_state_bytes_per_param(w, 1);
  s.e = dtype_bytes(w.activation_dtype);
  s.tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  s.sp_divisor = l.sp ? static_cast<double>(l.tp) : 1.0;
  {
    char text[256];
    std::snprintf(
        text, sizeof text,
        "%s: %.0f B params + %.0f B grads + %.0f B optimizer state per parameter, ZeRO stage %d over %lld ranks",
        w.convention.c_str(), unsharded.parameters, unsharded.gradients, unsharded.optimizer_state, w.zero_stage,
        static_cast<long long>(dense_shard));
    budget.convention = text;
  }
  s.schedule = simulated_schedule(w.schedule, l.vpp);
  s.dualpipe = s.schedule == PipelineSchedule::dualpipe && l.pp > 1;
  s.chunk_counts = layers_per_virtual_stage(m, l);
  s.chunk_firsts = first_layer_of_virtual_stage(m, l);
  std::vector<RankMemory> stages;
  for (int64_t stage = 0; stage < l.pp; ++stage) stages.push_back(stage_memory(s, stage));
  budget.ranks = merge_identical(std::move(stages));
  return budget;
}

MemoryBudget serving_memory(const ModelSpec& m, const ServingWorkload& w, const Layout& l, const GpuSpec& gpu) {
  MemoryBudget budget;
  budget.capacity_bytes = gpu.memory_bytes;
  budget.usable_bytes = gpu.memory_bytes;
  budget.kv_bytes_per_token = kv_cache_bytes_per_token(m, w.kv_dtype);
  const double e = dtype_bytes(w.activation_dtype);
  const double weight_bytes = w.weight_bytes_per_param();
  const auto tp = static_cast<double>(l.tp);
  {
    char text[200];
    std::snprintf(text, sizeof text,
                  "serving: %s weights (%.3g B/param incl. scales), %s KV cache, memory fraction %.2f",
                  w.weight_dtype == DType::fp4 ? "nvfp4" : std::string(dtype_name(w.weight_dtype)).c_str(),
                  weight_bytes, std::string(dtype_name(w.kv_dtype)).c_str(), w.memory_fraction);
    budget.convention = text;
  }
  int64_t max_concurrency = -1;
  std::vector<RankMemory> stages;
  for (int64_t stage = 0; stage < l.pp; ++stage) {
    const StageParams sp = stage_params(m, l, stage);
    RankMemory rank;
    rank.role = stage_role(stage, l.pp);
    rank.pp_stages = {stage};
    rank.layers = sp.layers;
    rank.params_on_rank = sp.total();
    // Quantised checkpoints (ModelOpt FP8, AWQ/GPTQ) keep embedding, head and norms in 16 bit.
    const double vocab_table = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size) / tp;
    double unquantised = 0;
    if (stage == 0) unquantised += vocab_table;
    if (stage == l.pp - 1 && (!m.tied_embeddings || l.pp > 1)) unquantised += vocab_table;
    const double weights = (sp.total() - unquantised) * weight_bytes + unquantised * e;
    rank.items.push_back({MemoryCategory::parameters, weights,
                          fmt("%.3g params × %.3g B + %.3g embedding/head params × %.3g B", sp.total() - unquantised,
                              weight_bytes, unquantised, e)});

    // KV cache of this rank's layers. KV heads split over TP, replicated when TP exceeds them;
    // MLA's latent is shared by all heads and so replicated on every TP rank.
    const double per_layer_token =
        m.mla.enabled() ? static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * dtype_bytes(w.kv_dtype)
                        : 2.0 * std::ceil(static_cast<double>(m.num_kv_heads) / tp) * static_cast<double>(m.head_dim) *
                              dtype_bytes(w.kv_dtype);
    // A sliding-window layer keeps the last `sliding_window` tokens only (vLLM's hybrid KV cache
    // manager, SGLang's SWA pool): the tokens a layer holds, averaged over the model's layers.
    const double resident = m.kv_resident_tokens(static_cast<double>(w.context_len()));
    const double kv_per_sequence = per_layer_token * static_cast<double>(sp.layers) * resident;
    rank.items.push_back(
        {MemoryCategory::kv_cache, kv_per_sequence * static_cast<double>(w.concurrency),
         fmt(m.sliding_window > 0 ? "%.3g sequences × %.3g tokens held per layer (sliding layers: the window) × %.3g "
                                    "B/token/layer × %.0f layers"
                                  : "%.3g sequences × %.3g tokens × %.3g B/token/layer × %.0f layers",
             static_cast<double>(w.concurrency), resident, per_layer_token, static_cast<double>(sp.layers))});

    // Workspace: the engine profiles one forward pass of max_batched_tokens (vLLM's profile run);
    // we size its largest live intermediates, and the fp32 logits of one decode batch.
    const double f_width =
        m.is_moe() ? static_cast<double>(m.moe.top_k * m.moe.expert_ffn_hidden_size) / static_cast<double>(l.etp)
                   : static_cast<double>(m.ffn_hidden_size) / tp;
    const double per_token = e * (4.0 * static_cast<double>(m.hidden_size) +
                                  static_cast<double>(m.q_width() + 2 * m.kv_width()) / tp + 3.0 * f_width);
    double workspace = static_cast<double>(w.max_batched_tokens) * per_token;
    if (stage == l.pp - 1)
      workspace += static_cast<double>(w.concurrency) * 4.0 * static_cast<double>(m.vocab_size) / tp;
    rank.items.push_back({MemoryCategory::temporary, workspace,
                          fmt("%.3g batched tokens × %.3g B + fp32 logits of the decode batch",
                              static_cast<double>(w.max_batched_tokens), per_token)});
    const int64_t comms = communicators(l, false);
    rank.items.push_back({MemoryCategory::communication, nccl_buffers(w.runtime, comms),
                          fmt("%.0f communicators × %.0f channels × 2 peers × %.3g B", static_cast<double>(comms),
                              static_cast<double>(w.runtime.nccl_channels), w.runtime.nccl_buffer_bytes)});
    rank.items.push_back(
        {MemoryCategory::runtime, w.runtime.runtime_bytes, "CUDA context and library workspaces (assumption)"});
    rank.items.push_back({MemoryCategory::allocator, gpu.memory_bytes * (1.0 - w.memory_fraction),
                          fmt("(1 − %.2f) × capacity, not given to the engine", w.memory_fraction)});

    const double fixed = weights + workspace + rank.bytes(MemoryCategory::communication) + w.runtime.runtime_bytes;
    const double room = gpu.memory_bytes * w.memory_fraction - fixed;
    const int64_t fit =
        kv_per_sequence > 0 ? static_cast<int64_t>(std::floor(std::max(room, 0.0) / kv_per_sequence)) : 0;
    max_concurrency = max_concurrency < 0 ? fit : std::min(max_concurrency, fit);
    stages.push_back(std::move(rank));
  }
  budget.max_concurrency = std::max<int64_t>(max_concurrency, 0);
  budget.ranks = merge_identical(std::move(stages));
  return budget;
}

}  // namespace meshscope
