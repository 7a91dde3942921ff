#include "core/workload/flops.hpp"

namespace meshscope {
namespace {

double gemm(int64_t in, int64_t out) {
  return 2.0 * static_cast<double>(in) * static_cast<double>(out);
}

double mlp_flops(const ModelSpec& m, int64_t ffn) {
  const int64_t h = m.hidden_size;
  const double matrices = m.mlp == MlpKind::gated ? 3.0 : 2.0;
  return matrices * gemm(h, ffn);
}

double attention_projection_flops(const ModelSpec& m) {
  const int64_t h = m.hidden_size;
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    const int64_t q_out = m.num_heads * (a.qk_nope_head_dim + a.qk_rope_head_dim);
    double flops = a.q_lora_rank > 0 ? gemm(h, a.q_lora_rank) + gemm(a.q_lora_rank, q_out) : gemm(h, q_out);
    flops += gemm(h, a.kv_lora_rank + a.qk_rope_head_dim);
    flops += gemm(a.kv_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.v_head_dim));
    flops += gemm(m.num_heads * a.v_head_dim, h);
    return flops;
  }
  return gemm(h, m.q_width()) + 2.0 * gemm(h, m.kv_width()) + gemm(m.q_width(), h);
}

}  // namespace

double op_sac_recomputed_flops(const ModelSpec& m, int64_t layer) {
  // torchtitan/distributed/activation_checkpoint.py, _custom_policy: a per-block counter of
  // aten.mm calls; the outputs of the even-numbered ones are not saved. A Llama block calls wq,
  // wk, wv, wo, then w1, w3, w2 (gated) or w1, w2 (plain): wk, wo and w3 (gated) or w2 (plain)
  // run again in backward. MLA and the experts of an MoE block (grouped matmuls, not aten.mm) are
  // not counted.
  if (m.mla.enabled()) return 0;
  const int64_t h = m.hidden_size;
  double flops = gemm(h, m.kv_width()) + gemm(m.q_width(), h);
  if (!m.is_moe_layer(layer)) flops += gemm(h, m.ffn_hidden_size);
  return flops;
}

namespace {

// Per token, per layer: QK^T over ctx keys and attention·V, 2 FLOPs per multiply-add.
double attention_score_flops(const ModelSpec& m, double context) {
  double qk_dim = static_cast<double>(m.head_dim);
  double v_dim = static_cast<double>(m.head_dim);
  if (m.mla.enabled()) {
    qk_dim = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    v_dim = static_cast<double>(m.mla.v_head_dim);
  }
  return 2.0 * context * static_cast<double>(m.num_heads) * (qk_dim + v_dim);
}

}  // namespace

double selective_module_flops(const ModelSpec& m, int64_t layer, uint32_t modules) {
  const auto has = [&](RecomputeModule module) { return (modules & recompute_bit(module)) != 0; };
  double flops = 0;
  if (m.mla.enabled() && has(RecomputeModule::mla_up_proj)) {
    const auto& a = m.mla;
    if (a.q_lora_rank > 0) flops += gemm(a.q_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.qk_rope_head_dim));
    flops += gemm(a.kv_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.v_head_dim));
  }
  if (!m.is_moe_layer(layer)) return flops + (has(RecomputeModule::mlp) ? mlp_flops(m, m.ffn_hidden_size) : 0.0);
  const double shared =
      static_cast<double>(m.moe.num_shared_experts) * mlp_flops(m, m.moe.shared_expert_ffn_hidden_size);
  if (has(RecomputeModule::moe))
    return flops + static_cast<double>(m.moe.top_k) * mlp_flops(m, m.moe.expert_ffn_hidden_size) + shared +
           gemm(m.hidden_size, m.moe.num_experts);
  return flops + (has(RecomputeModule::shared_experts) ? shared : 0.0);
}

FlopsPerToken flops_per_token(const ModelSpec& m, int64_t seq_len, bool causal, RecomputeMode recompute,
                              double recompute_fraction, SelectiveRecomputeFlops selective,
                              uint32_t recompute_modules) {
  FlopsPerToken f;
  for (int64_t layer = 0; layer < m.num_layers; ++layer) {
    // The keys a query attends to: seq/2 causal, a sliding layer's window at most (ModelSpec).
    const double context = m.mean_attended_keys(layer, static_cast<double>(seq_len), causal);
    f.forward_gemm += attention_projection_flops(m);
    if (m.is_moe_layer(layer)) {
      f.forward_gemm += static_cast<double>(m.moe.top_k) * mlp_flops(m, m.moe.expert_ffn_hidden_size);
      f.forward_gemm +=
          static_cast<double>(m.moe.num_shared_experts) * mlp_flops(m, m.moe.shared_expert_ffn_hidden_size);
      f.forward_gemm += gemm(m.hidden_size, m.moe.num_experts);  // router
    } else {
      f.forward_gemm += mlp_flops(m, m.ffn_hidden_size);
    }
    f.forward_attention += attention_score_flops(m, context);
  }
  f.forward_head = gemm(m.hidden_size, m.vocab_size);
  switch (recompute) {
    case RecomputeMode::none:
      break;
    case RecomputeMode::selective:
      if ((recompute_modules & recompute_bit(RecomputeModule::core_attn)) != 0)
        f.recompute = (selective == SelectiveRecomputeFlops::korthikanti ? 3.0 : 1.0) * f.forward_attention;
      for (int64_t layer = 0; layer < m.num_layers; ++layer)
        f.recompute += selective_module_flops(m, layer, recompute_modules);
      break;
    case RecomputeMode::full:
      f.recompute = f.forward_gemm + f.forward_attention;
      break;
    case RecomputeMode::layers:
      f.recompute = recompute_fraction * (f.forward_gemm + f.forward_attention);
      break;
    case RecomputeMode::op:
      // torchtitan's op-level SAC recomputes every second matmul of a block (op_sac_recomputed_flops).
      for (int64_t layer = 0; layer < m.num_layers; ++layer) f.recompute += op_sac_recomputed_flops(m, layer);
      break;
  }
  return f;
}

}  // namespace meshscope
