#pragma once
// FLOPs per token. A multiply-add is 2 FLOPs. GEMMs only (norms, softmax, activations are not
// counted), as in Megatron SC21 Appendix/§5.1, Korthikanti Appendix A and PaLM Appendix B.
//   forward GEMMs   : 2 × (every weight matrix a token passes through, incl. the LM head)
//   attention       : QK^T and attention·V, 2·ctx·heads·d each; ctx = s (full) or s/2 (causal)
//   model FLOPs     : 3 × forward (backward = 2 × forward)
//   hardware FLOPs  : model FLOPs + recomputed forward (full: all layers, not the head, as in
//                     SC21's 96Bslh² form; selective: the attention scores again, Korthikanti Eq. 8;
//                     op: torchtitan's every-second matmul, op_sac_recomputed_flops)
#include <cstdint>

#include "core/model/model.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct FlopsPerToken {
  double forward_gemm = 0;       // layers' weight GEMMs (active experts only), without the head
  double forward_attention = 0;  // score and context GEMMs
  double forward_head = 0;       // LM head (logits)
  double recompute = 0;          // extra forward FLOPs recomputed in backward
  [[nodiscard]] double forward() const { return forward_gemm + forward_attention + forward_head; }
  [[nodiscard]] double model_training() const { return 3.0 * forward(); }
  [[nodiscard]] double hardware_training() const { return model_training() + recompute; }
};

// How selective recompute is charged in hardware FLOPs:
//   physical     one extra forward of the attention scores (QK^T and attention·V), what runs;
//   korthikanti  Korthikanti et al. Eq. 8, 72BLsh²(1 + s/3h + V/12hL): the s/6h term doubled,
//                i.e. three times the attention forward; reproduces their Table 5 HFU/MFU ratios.
enum class SelectiveRecomputeFlops { physical, korthikanti };

// Forward FLOPs per token of the matmuls torchtitan's op-level SAC (RecomputeMode::op) runs again
// in the backward of one layer: every second aten.mm of the block (wk, wo, and w3 or w2).
[[nodiscard]] double op_sac_recomputed_flops(const ModelSpec& model, int64_t layer);

// Forward FLOPs per token that selective recompute with `modules` (RecomputeModule bits) runs
// again in one layer's backward, besides the attention core: MLA's up-projections (mla_up_proj),
// a dense layer's MLP (mlp), an MoE layer's router, experts and shared experts (moe), its shared
// experts (shared_experts). moe_act and layernorm repeat element-wise work only.
[[nodiscard]] double selective_module_flops(const ModelSpec& model, int64_t layer, uint32_t modules);

// recompute_fraction: share of layers fully recomputed (RecomputeMode::layers); recompute_modules:
// RecomputeMode::selective's submodules (TrainingWorkload::recompute_modules; core_attn is the
// attention core, charged as `selective` says).
[[nodiscard]] FlopsPerToken flops_per_token(const ModelSpec& model, int64_t seq_len, bool causal,
                                            RecomputeMode recompute, double recompute_fraction = 0.0,
                                            SelectiveRecomputeFlops selective = SelectiveRecomputeFlops::physical,
                                            uint32_t recompute_modules = recompute_bit(RecomputeModule::core_attn));

}  // namespace meshscope
