#include "core/model/model.hpp"

#include <algorithm>
#include <cassert>

namespace meshscope {

bool ModelSpec::is_moe_layer(int64_t layer) const {
  if (!is_moe() || layer < moe.first_dense_layers) return false;
  const int64_t frequency = moe.layer_frequency > 0 ? moe.layer_frequency : 1;
  return layer % frequency == moe.layer_phase % frequency;
}

int64_t ModelSpec::num_moe_layers() const {
  int64_t count = 0;
  for (int64_t layer = 0; layer < num_layers; ++layer) count += is_moe_layer(layer) ? 1 : 0;
  return count;
}

bool ModelSpec::is_sliding_layer(int64_t layer) const {
  if (sliding_window <= 0) return false;
  return full_attention_every <= 0 || (layer + 1) % full_attention_every != 0;
}

int64_t ModelSpec::num_sliding_layers() const {
  int64_t count = 0;
  for (int64_t layer = 0; layer < num_layers; ++layer) count += is_sliding_layer(layer) ? 1 : 0;
  return count;
}

double ModelSpec::mean_attended_keys(int64_t layer, double seq, bool causal) const {
  if (!is_sliding_layer(layer)) return causal ? seq / 2.0 : seq;
  const auto w = static_cast<double>(sliding_window);
  // A bidirectional window (an encoder's) reaches w positions to each side at most.
  if (!causal) return std::min(seq, 2.0 * w);
  return seq <= w ? seq / 2.0 : w - w * w / (2.0 * seq);
}

double ModelSpec::kv_resident_tokens(double context) const {
  if (sliding_window <= 0 || num_layers <= 0) return context;
  const auto sliding = static_cast<double>(num_sliding_layers()), layers = static_cast<double>(num_layers);
  return ((layers - sliding) * context + sliding * std::min(context, static_cast<double>(sliding_window))) / layers;
}

int64_t ModelSpec::q_width() const {
  if (mla.enabled()) return num_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim);
  return num_heads * head_dim;
}

int64_t ModelSpec::kv_width() const {
  return num_kv_heads * head_dim;
}

int64_t ModelSpec::attention_output_width() const {
  return num_heads * (mla.enabled() ? mla.v_head_dim : head_dim);
}

double norm_params(const ModelSpec& model, int64_t width) {
  const auto w = static_cast<double>(width);
  return model.norm == NormKind::layernorm ? 2 * w : w;  // LayerNorm: weight + bias
}

namespace {

double linear(int64_t in, int64_t out, bool bias) {
  return static_cast<double>(in) * static_cast<double>(out) + (bias ? static_cast<double>(out) : 0.0);
}

// Attention weights of one layer. Standard MHA/GQA: q (h→heads·d), k and v (h→kv_heads·d), o.
// MLA (DeepSeek-V3 report §2.1.1, HF DeepseekV3Attention): q_a (h→q_lora) + norm + q_b
// (q_lora→heads·(nope+rope)); kv_a (h→kv_lora+rope) + norm + kv_b (kv_lora→heads·(nope+v)); o.
double attention_params(const ModelSpec& m) {
  const int64_t h = m.hidden_size;
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    double params = 0;
    const int64_t q_out = m.num_heads * (a.qk_nope_head_dim + a.qk_rope_head_dim);
    if (a.q_lora_rank > 0) {
      params += linear(h, a.q_lora_rank, false) + norm_params(m, a.q_lora_rank) + linear(a.q_lora_rank, q_out, false);
    } else {
      params += linear(h, q_out, false);
    }
    params += linear(h, a.kv_lora_rank + a.qk_rope_head_dim, false) + norm_params(m, a.kv_lora_rank);
    params += linear(a.kv_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.v_head_dim), false);
    params += linear(m.num_heads * a.v_head_dim, h, m.attn_out_bias);
    return params;
  }
  double params = linear(h, m.q_width(), m.qkv_bias) + 2 * linear(h, m.kv_width(), m.qkv_bias);
  params += linear(m.q_width(), h, m.attn_out_bias);
  if (m.qk_norm) params += 2 * norm_params(m, m.head_dim);
  if (m.attention_sinks) params += static_cast<double>(m.num_heads);  // GptOssAttention.sinks
  return params;
}

double mlp_params(const ModelSpec& m, int64_t ffn) {
  const int64_t h = m.hidden_size;
  if (m.mlp == MlpKind::gated) return 2 * linear(h, ffn, m.mlp_bias) + linear(ffn, h, m.mlp_bias);
  return linear(h, ffn, m.mlp_bias) + linear(ffn, h, m.mlp_bias);
}

}  // namespace

double expert_params(const ModelSpec& model, int64_t ffn_width) {
  return mlp_params(model, ffn_width);
}

LayerParams layer_params(const ModelSpec& m, int64_t layer) {
  LayerParams p;
  p.attention = attention_params(m);
  p.norms = 2 * norm_params(m, m.hidden_size);  // pre-attention and pre-MLP norms
  if (m.is_moe_layer(layer)) {
    p.routed_experts = static_cast<double>(m.moe.num_experts) * mlp_params(m, m.moe.expert_ffn_hidden_size);
    p.shared_experts =
        static_cast<double>(m.moe.num_shared_experts) * mlp_params(m, m.moe.shared_expert_ffn_hidden_size);
    p.router = linear(m.hidden_size, m.moe.num_experts, false) +
               (m.moe.router_bias ? static_cast<double>(m.moe.num_experts) : 0.0);
  } else {
    p.mlp = mlp_params(m, m.ffn_hidden_size);
  }
  return p;
}

double embedding_params(const ModelSpec& m) {
  double params = static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size);
  if (m.position == PositionKind::learned)
    params += static_cast<double>(m.max_position_embeddings) * static_cast<double>(m.hidden_size);
  return params;
}

double head_params(const ModelSpec& m) {
  return m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab_size) * static_cast<double>(m.hidden_size);
}

double final_norm_params(const ModelSpec& m) {
  return norm_params(m, m.hidden_size);
}

ParamCounts count_params(const ModelSpec& m) {
  ParamCounts counts;
  counts.total.embedding = embedding_params(m);
  counts.total.head = head_params(m);
  counts.total.norms = final_norm_params(m);
  counts.active = counts.total;  // a tied head is the embedding table again: counted once
  for (int64_t layer = 0; layer < m.num_layers; ++layer) {
    const LayerParams p = layer_params(m, layer);
    counts.total.attention += p.attention;
    counts.total.mlp += p.mlp;
    counts.total.experts += p.routed_experts + p.shared_experts;
    counts.total.router += p.router;
    counts.total.norms += p.norms;
    counts.active.attention += p.attention;
    counts.active.mlp += p.mlp;
    counts.active.router += p.router;
    counts.active.norms += p.norms;
    if (m.is_moe_layer(layer)) {
      const double one_expert = mlp_params(m, m.moe.expert_ffn_hidden_size);
      counts.active.experts += static_cast<double>(m.moe.top_k) * one_expert + p.shared_experts;
    }
  }
  return counts;
}

}  // namespace meshscope
