#pragma once
// The tensors one transformer layer saves for its backward pass, as an inventory: each entry
// names the tensor, its size per token and how tensor/sequence parallelism split it. Summing the
// inventory reproduces Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", arXiv:2205.05198) Eq. 1–6 exactly under their assumptions (16-bit
// activations, 1-byte dropout masks, 4h GeLU MLP, stored attention scores); the same inventory
// covers GQA, SwiGLU, FlashAttention, MoE and MLA, where the closed forms do not apply.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/model.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

enum class TensorSplit {
  tp_replicated,  // replicated over TP ranks, split by sequence parallelism (Korthikanti's "10sbh")
  tp_split,       // split over TP ranks (column/row-parallel GEMM inputs and outputs)
  scores,         // per-head s×s attention scores: bytes_per_token already counts the key length
  expert_routed,  // tokens dispatched to experts: top_k copies, gathered over expert-TP
};

struct SavedTensor {
  std::string name;            // "attention: softmax output"
  double bytes_per_token = 0;  // for one token of the rank's sequence shard, before the TP split
  TensorSplit split = TensorSplit::tp_split;
  // Dropped by selective recompute with any of these modules (RecomputeModule bits; core_attn:
  // Korthikanti §4.3's attention scores), recomputed in backward.
  uint32_t recomputed_by = 0;
  bool gemm_input = false;  // the input of a GEMM, kept for its weight gradient
};

struct ActivationConfig {
  int64_t seq_len = 0;  // full sequence length (key length for scores)
  int64_t micro_batch = 1;
  double element_bytes = 2;     // activation dtype
  bool dropout = false;         // 1-byte masks after attention probabilities, attention and MLP
  bool flash_attention = true;  // no score tensors; the softmax log-sum-exp (fp32) instead
  int64_t tp = 1, cp = 1, etp = 1;
  bool sp = false;
  // Bytes per element of the saved GEMM inputs when the GEMMs run quantized (Transformer Engine
  // FP8: 1); 0: element_bytes, as every other tensor.
  double gemm_input_bytes = 0;
  // Routed tensors relative to top_k copies of the tokens: the capacity factor when experts' inputs
  // are padded to capacity (Megatron-Core --moe-expert-capacity-factor with
  // --moe-pad-expert-input-to-capacity); 1 for dropless routing with balanced experts.
  double routed_token_factor = 1;
  // The selective recompute's modules (TrainingWorkload::recompute_modules), applied where
  // layer_activation_bytes is asked for RecomputeMode::selective.
  uint32_t recompute_modules = recompute_bit(RecomputeModule::core_attn);

  [[nodiscard]] static ActivationConfig from(const TrainingWorkload& w, const ModelSpec& m, const Layout& l);
};

// Saved tensors of layer `layer` (dense or MoE; MHA/GQA or MLA).
[[nodiscard]] std::vector<SavedTensor> layer_saved_tensors(const ModelSpec& model, int64_t layer,
                                                           const ActivationConfig& config);

// Bytes one rank holds for one micro-batch of one tensor / one layer.
[[nodiscard]] double tensor_bytes_on_rank(const SavedTensor& tensor, const ActivationConfig& config);
[[nodiscard]] double layer_activation_bytes(const ModelSpec& model, int64_t layer, const ActivationConfig& config,
                                            RecomputeMode mode);

// torchtitan's op-level selective activation checkpointing (activation_checkpoint.mode
// "selective", selective_ac_option "op"; torchtitan/distributed/activation_checkpoint.py,
// _custom_policy over _save_list): inside each checkpointed transformer block it saves the
// outputs of aten.mm except every second one (a per-block counter, so of wq, wk, wv, wo, w1, w3,
// w2 it keeps wq, wv, w1 and w2), and the outputs of the flash/efficient SDPA kernel (the
// attention output and its fp32 log-sum-exp); everything else is recomputed from the block input,
// which the non-reentrant checkpoint keeps. MLA and MoE blocks have other matmul sequences: for
// them this returns the selective inventory (layer_activation_bytes), and says so with false.
struct OpSacBytes {
  double bytes = 0;
  bool modelled = false;  // false: not a dense GQA/MHA block; `bytes` is the selective inventory
};
[[nodiscard]] OpSacBytes torchtitan_op_sac_layer_bytes(const ModelSpec& model, int64_t layer,
                                                       const ActivationConfig& config);

// Extra activations outside the layers (Korthikanti §4.3, Eq. 8 terms): the embedding-dropout
// mask on the first stage, and final-norm input, head input and logits on the last stage.
[[nodiscard]] double embedding_activation_bytes(const ModelSpec& model, const ActivationConfig& config);
[[nodiscard]] double output_activation_bytes(const ModelSpec& model, const ActivationConfig& config, bool fp32_logits);

// Micro-batches (in units of a whole stage's layers) whose activations stage `stage` holds at
// its peak. GPipe: all m. 1F1B: min(m, p − i) (PipeDream-Flush; Narayanan et al. SC21 §2.2.1).
// Interleaved: Megatron-LM's warm-up count, (2(p − i − 1) + (v − 1)p + 1) chunks of 1/v of the
// stage, which for i = 0 is Korthikanti's factor p·(1 + (p − 1)/(p·v)). ZB-H1: as 1F1B (Qi et
// al. 2024 §2.1). ZB-H2: min(m, 2(p − i) − 1) (§2.2). DualPipe: p + 1 chunks of one model stage
// on every rank (deepseek-ai/DualPipe README, "Activation PP+1"). docs/schedules.md derives each
// from the simulated timeline.
// What a layer's deferred W still needs after its B (dW = dYᵀX for every linear: its input and its
// output gradient), per micro-batch: Qi et al. 2024 Table 1's M_W, 32sbh bytes for a GPT-3 layer
// in 16-bit without TP, generalised to the model's widths (GQA, gated MLPs, routed and shared
// experts). Column-parallel layers' inputs (QKV, FC1: gathered under SP) and row-parallel layers'
// output gradients (projection, FC2) are full width on every TP rank; the others are split.
[[nodiscard]] double weight_gradient_held_bytes(const ModelSpec& model, int64_t layer, const ActivationConfig& config);

// Micro-batches whose W a zero-bubble stage still owes at its peak, beside its in-flight ones:
// worker i (1-based) of ZB-H1 holds (p − i + 1)·M_B + (i − 1)·M_W, of ZB-H2 (2p − 2i + 1)·M_B +
// (2i − 2)·M_W (Qi et al. 2024 §3, Table 2); none for other schedules. At most the micro-batches
// not in flight.
[[nodiscard]] double deferred_weight_gradient_micro_batches(PipelineSchedule schedule, int64_t stage, int64_t pp,
                                                            int64_t micro_batches);

[[nodiscard]] double in_flight_micro_batches(PipelineSchedule schedule, int64_t stage, int64_t pp, int64_t vpp,
                                             int64_t micro_batches);

}  // namespace meshscope
