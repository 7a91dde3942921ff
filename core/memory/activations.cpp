#include "core/memory/activations.hpp"

#include <algorithm>

namespace meshscope {

ActivationConfig ActivationConfig::from(const TrainingWorkload& w, const ModelSpec& m, const Layout& l) {
  ActivationConfig c;
  c.seq_len = w.seq_len;
  c.micro_batch = l.micro_batch;
  c.element_bytes = dtype_bytes(w.activation_dtype);
  c.dropout = w.dropout.value_or(m.dropout);
  c.flash_attention = w.flash_attention;
  c.tp = l.tp;
  c.cp = l.cp;
  c.etp = l.etp;
  c.sp = l.sp;
  c.recompute_modules = w.recompute_modules;
  return c;
}

namespace {

constexpr double kMaskBytes = 1.0;  // dropout masks are stored as bytes (Korthikanti §4.1)
constexpr double kFp32Bytes = 4.0;

void attention_tensors(std::vector<SavedTensor>& out, const ModelSpec& m, const ActivationConfig& c) {
  const double e = c.element_bytes;
  const auto h = static_cast<double>(m.hidden_size);
  const auto heads = static_cast<double>(m.num_heads);
  out.push_back({"attention: norm input", e * h, TensorSplit::tp_replicated});
  // MLA's input norm is a module of its own (its output feeds two down-projections), which the
  // layernorm recompute discards; the TE layer spec fuses the others into the QKV projection.
  out.push_back({"attention: QKV projection input", e * h, TensorSplit::tp_replicated,
                 m.mla.enabled() ? recompute_bits::layernorm : 0U, true});
  double q_width = static_cast<double>(m.q_width());
  double k_width = static_cast<double>(m.kv_width());
  double v_width = static_cast<double>(m.kv_width());
  double context_width = q_width;  // attention output = input of the output projection
  if (m.mla.enabled()) {
    // MLA: latent down-projections are duplicated over TP (Megatron-Core MLA), up-projections split.
    const auto& a = m.mla;
    if (a.q_lora_rank > 0) {
      out.push_back(
          {"attention: q latent (norm input)", e * static_cast<double>(a.q_lora_rank), TensorSplit::tp_replicated});
      out.push_back({"attention: q up-projection input", e * static_cast<double>(a.q_lora_rank),
                     TensorSplit::tp_replicated, false, true});
    }
    out.push_back({"attention: kv latent (norm input)", e * static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim),
                   TensorSplit::tp_replicated});
    out.push_back({"attention: kv up-projection input", e * static_cast<double>(a.kv_lora_rank),
                   TensorSplit::tp_replicated, false, true});
    k_width = heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    v_width = heads * static_cast<double>(a.v_head_dim);
    context_width = v_width;
  }
  // MLA's up-projection outputs (with RoPE applied): what mla_up_proj discards and recomputes.
  const uint32_t qkv_recomputed_by = m.mla.enabled() ? recompute_bits::mla_up_proj : 0U;
  out.push_back({"attention: Q", e * q_width, TensorSplit::tp_split, qkv_recomputed_by});
  out.push_back({"attention: K", e * k_width, TensorSplit::tp_split, qkv_recomputed_by});
  out.push_back({"attention: V", e * v_width, TensorSplit::tp_split, qkv_recomputed_by});
  if (c.flash_attention) {
    out.push_back({"attention: softmax log-sum-exp (fp32)", kFp32Bytes * heads, TensorSplit::tp_split});
  } else {
    const auto keys = static_cast<double>(c.seq_len);
    out.push_back({"attention: softmax output", e * heads * keys, TensorSplit::scores, recompute_bits::core_attn});
    if (c.dropout) {
      out.push_back({"attention: softmax dropout mask", kMaskBytes * heads * keys, TensorSplit::scores,
                     recompute_bits::core_attn});
      out.push_back({"attention: dropout output", e * heads * keys, TensorSplit::scores, recompute_bits::core_attn});
    }
  }
  out.push_back({"attention: output projection input", e * context_width, TensorSplit::tp_split, false, true});
  if (c.dropout) out.push_back({"attention: dropout mask", kMaskBytes * h, TensorSplit::tp_replicated});
}

// `recomputed_by`: the recompute modules that run this MLP again (RecomputeModule bits).
void mlp_tensors(std::vector<SavedTensor>& out, const ModelSpec& m, const ActivationConfig& c, int64_t ffn,
                 const std::string& prefix, TensorSplit width_split, uint32_t recomputed_by) {
  const double e = c.element_bytes;
  const auto f = static_cast<double>(ffn);
  if (m.mlp == MlpKind::gated) {
    // SwiGLU: the fused gate/up output (2f) for the activation's backward, and the down input (f).
    out.push_back({prefix + "gate and up outputs", e * 2 * f, width_split, recomputed_by});
    out.push_back({prefix + "down projection input", e * f, width_split, recomputed_by, true});
  } else {
    out.push_back({prefix + "activation input", e * f, width_split, recomputed_by});
    out.push_back({prefix + "second linear input", e * f, width_split, recomputed_by, true});
  }
}

void dense_mlp_tensors(std::vector<SavedTensor>& out, const ModelSpec& m, const ActivationConfig& c) {
  const double e = c.element_bytes;
  const auto h = static_cast<double>(m.hidden_size);
  // The mlp recompute checkpoints the MLP from its input (the norm fused into its first linear),
  // so everything the MLP saves but that input goes.
  out.push_back({"mlp: norm input", e * h, TensorSplit::tp_replicated});
  out.push_back({"mlp: first linear input", e * h, TensorSplit::tp_replicated, recompute_bits::mlp, true});
  mlp_tensors(out, m, c, m.ffn_hidden_size, "mlp: ", TensorSplit::tp_split, recompute_bits::mlp);
  if (c.dropout) out.push_back({"mlp: dropout mask", kMaskBytes * h, TensorSplit::tp_replicated});
}

void moe_tensors(std::vector<SavedTensor>& out, const ModelSpec& m, const ActivationConfig& c) {
  const double e = c.element_bytes;
  const auto h = static_cast<double>(m.hidden_size);
  const auto k = static_cast<double>(m.moe.top_k);
  // The pre-MLP norm is a module of its own here (the router reads its output): the layernorm
  // recompute discards that output; the moe recompute checkpoints the layer from it and drops the
  // rest; moe_act discards the experts' activation output; shared_experts the shared experts'.
  out.push_back({"moe: norm input", e * h, TensorSplit::tp_replicated});
  out.push_back({"moe: router input", e * h, TensorSplit::tp_replicated, recompute_bits::layernorm});
  out.push_back({"moe: router probabilities (fp32)", kFp32Bytes * static_cast<double>(m.moe.num_experts),
                 TensorSplit::tp_replicated, recompute_bits::moe});
  // Routed tokens: each token reaches top_k experts; with balanced routing a rank processes as
  // many token-expert pairs as it sends, gathered over the expert-TP group (Megatron-Core MoE).
  out.push_back({"moe: dispatched expert inputs", e * k * h, TensorSplit::expert_routed, recompute_bits::moe, true});
  const double f_local = static_cast<double>(m.moe.expert_ffn_hidden_size) / static_cast<double>(c.etp);
  if (m.mlp == MlpKind::gated) {
    out.push_back(
        {"moe: expert gate and up outputs", e * k * 2 * f_local, TensorSplit::expert_routed, recompute_bits::moe});
    out.push_back({"moe: expert down projection input", e * k * f_local, TensorSplit::expert_routed,
                   recompute_bits::moe_act | recompute_bits::moe, true});
  } else {
    out.push_back({"moe: expert activation input", e * k * f_local, TensorSplit::expert_routed, recompute_bits::moe});
    out.push_back({"moe: expert second linear input", e * k * f_local, TensorSplit::expert_routed,
                   recompute_bits::moe_act | recompute_bits::moe, true});
  }
  out.push_back({"moe: expert outputs before combine", e * k * h, TensorSplit::expert_routed, recompute_bits::moe});
  if (m.moe.num_shared_experts > 0)
    mlp_tensors(out, m, c, m.moe.num_shared_experts * m.moe.shared_expert_ffn_hidden_size, "moe: shared experts ",
                TensorSplit::tp_split, recompute_bits::shared_experts | recompute_bits::moe);
  if (c.dropout) out.push_back({"moe: dropout mask", kMaskBytes * h, TensorSplit::tp_replicated});
}

}  // namespace

std::vector<SavedTensor> layer_saved_tensors(const ModelSpec& m, int64_t layer, const ActivationConfig& c) {
  std::vector<SavedTensor> tensors;
  attention_tensors(tensors, m, c);
  if (m.is_moe_layer(layer)) {
    moe_tensors(tensors, m, c);
  } else {
    dense_mlp_tensors(tensors, m, c);
  }
  return tensors;
}

namespace {
double unscaled_tensor_bytes(const SavedTensor& t, const ActivationConfig& c);
}  // namespace

double tensor_bytes_on_rank(const SavedTensor& t, const ActivationConfig& c) {
  // Quantized GEMM inputs: Transformer Engine keeps the FP8 copy it multiplied with for the
  // weight gradient (module/linear.py _Linear.forward: inputmat quantized with columnwise usage
  // and saved; layernorm_linear.py the same for ln_out) instead of the 16-bit input.
  const double scale = t.gemm_input && c.gemm_input_bytes > 0 ? c.gemm_input_bytes / c.element_bytes : 1.0;
  // Routed tokens padded to the experts' capacity (Megatron-Core --moe-pad-expert-input-to-capacity).
  const double routed = t.split == TensorSplit::expert_routed ? c.routed_token_factor : 1.0;
  return scale * routed * unscaled_tensor_bytes(t, c);
}

namespace {
double unscaled_tensor_bytes(const SavedTensor& t, const ActivationConfig& c) {
  const double tokens = static_cast<double>(c.seq_len) * static_cast<double>(c.micro_batch) / static_cast<double>(c.cp);
  const auto tp = static_cast<double>(c.tp);
  const double sp_divisor = c.sp ? tp : 1.0;
  switch (t.split) {
    case TensorSplit::tp_replicated:
      return tokens * t.bytes_per_token / sp_divisor;
    case TensorSplit::tp_split:
      return tokens * t.bytes_per_token / tp;
    case TensorSplit::scores:
      return tokens * t.bytes_per_token / tp;
    case TensorSplit::expert_routed:
      return tokens / sp_divisor * static_cast<double>(c.etp) * t.bytes_per_token;
  }
  return 0.0;
}
}  // namespace

double layer_activation_bytes(const ModelSpec& m, int64_t layer, const ActivationConfig& c, RecomputeMode mode) {
  if (mode == RecomputeMode::full) {
    // Only the layer input is checkpointed (Korthikanti Table 2: 2sbh per layer; split by SP).
    return tensor_bytes_on_rank(
        {"layer input", c.element_bytes * static_cast<double>(m.hidden_size), TensorSplit::tp_replicated}, c);
  }
  if (mode == RecomputeMode::op) return torchtitan_op_sac_layer_bytes(m, layer, c).bytes;
  double bytes = 0;
  for (const auto& t : layer_saved_tensors(m, layer, c)) {
    if (mode == RecomputeMode::selective && (t.recomputed_by & c.recompute_modules) != 0) continue;
    bytes += tensor_bytes_on_rank(t, c);
  }
  return bytes;
}

OpSacBytes torchtitan_op_sac_layer_bytes(const ModelSpec& m, int64_t layer, const ActivationConfig& c) {
  if (m.mla.enabled() || m.is_moe_layer(layer))
    return {layer_activation_bytes(m, layer, c, RecomputeMode::selective), false};
  const double e = c.element_bytes;
  const auto h = static_cast<double>(m.hidden_size);
  // The block's matmuls in call order (torchtitan models/llama3/model.py: Attention.forward calls
  // wq, wk, wv, then SDPA, then wo; FeedForward.forward is w2(silu(w1(x)) * w3(x))); the policy
  // saves the 1st, 3rd, 5th, ... of them.
  std::vector<SavedTensor> mm_outputs = {
      {"q projection output", e * static_cast<double>(m.q_width()), TensorSplit::tp_split},
      {"k projection output", e * static_cast<double>(m.kv_width()), TensorSplit::tp_split},
      {"v projection output", e * static_cast<double>(m.kv_width()), TensorSplit::tp_split},
      {"output projection output", e * h, TensorSplit::tp_replicated},
  };
  const auto f = static_cast<double>(m.ffn_hidden_size);
  if (m.mlp == MlpKind::gated) {
    mm_outputs.push_back({"w1 (gate) output", e * f, TensorSplit::tp_split});
    mm_outputs.push_back({"w3 (up) output", e * f, TensorSplit::tp_split});
  } else {
    mm_outputs.push_back({"first linear output", e * f, TensorSplit::tp_split});
  }
  mm_outputs.push_back({"w2 (down) output", e * h, TensorSplit::tp_replicated});
  double bytes = tensor_bytes_on_rank({"block input", e * h, TensorSplit::tp_replicated}, c);
  for (size_t i = 0; i < mm_outputs.size(); i += 2) bytes += tensor_bytes_on_rank(mm_outputs[i], c);
  bytes += tensor_bytes_on_rank({"SDPA output", e * static_cast<double>(m.q_width()), TensorSplit::tp_split}, c);
  bytes += tensor_bytes_on_rank(
      {"SDPA log-sum-exp (fp32)", kFp32Bytes * static_cast<double>(m.num_heads), TensorSplit::tp_split}, c);
  return {bytes, true};
}

double embedding_activation_bytes(const ModelSpec& m, const ActivationConfig& c) {
  if (!c.dropout) return 0.0;
  return tensor_bytes_on_rank(
      {"embedding dropout mask", kMaskBytes * static_cast<double>(m.hidden_size), TensorSplit::tp_replicated}, c);
}

double output_activation_bytes(const ModelSpec& m, const ActivationConfig& c, bool fp32_logits) {
  const double e = c.element_bytes;
  const auto h = static_cast<double>(m.hidden_size);
  const double logit_bytes = fp32_logits ? kFp32Bytes : e;
  return tensor_bytes_on_rank({"final norm input", e * h, TensorSplit::tp_replicated}, c) +
         tensor_bytes_on_rank({"output projection input", e * h, TensorSplit::tp_replicated}, c) +
         tensor_bytes_on_rank({"logits", logit_bytes * static_cast<double>(m.vocab_size), TensorSplit::tp_split}, c);
}

double weight_gradient_held_bytes(const ModelSpec& m, int64_t layer, const ActivationConfig& c) {
  const double tokens = static_cast<double>(c.seq_len) * static_cast<double>(c.micro_batch) /
                        static_cast<double>(std::max<int64_t>(c.cp, 1));
  const auto h = static_cast<double>(m.hidden_size);
  const auto t = static_cast<double>(std::max<int64_t>(c.tp, 1));
  const auto q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
  const double gated = m.mlp == MlpKind::gated ? 2.0 : 1.0;
  // Widths per token: a column-parallel linear keeps its full input and its split output
  // gradient, a row-parallel one its split input and its full output gradient.
  const auto mlp_widths = [&](double ffn, double split) { return (h + gated * ffn / split) + (ffn / split + h); };
  double widths = (h + (q + 2 * kv) / t) + (q / t + h);  // QKV, then the output projection
  double rows = 1;                                       // of the routed experts, per token
  double routed = 0;
  if (m.is_moe_layer(layer)) {
    routed =
        mlp_widths(static_cast<double>(m.moe.expert_ffn_hidden_size), static_cast<double>(std::max<int64_t>(c.etp, 1)));
    rows = static_cast<double>(m.moe.top_k) * c.routed_token_factor;
    widths += static_cast<double>(m.moe.num_shared_experts) *
              mlp_widths(static_cast<double>(m.moe.shared_expert_ffn_hidden_size), t);
  } else {
    widths += mlp_widths(static_cast<double>(m.ffn_hidden_size), t);
  }
  return tokens * c.element_bytes * (widths + rows * routed);
}

double deferred_weight_gradient_micro_batches(PipelineSchedule schedule, int64_t stage, int64_t pp,
                                              int64_t micro_batches) {
  if (pp <= 1) return 0;
  const double in_flight = in_flight_micro_batches(schedule, stage, pp, 1, micro_batches);
  const double left = std::max(0.0, static_cast<double>(micro_batches) - in_flight);
  switch (schedule) {
    case PipelineSchedule::zb_h1:
      return std::min(left, static_cast<double>(stage));
    case PipelineSchedule::zb_h2:
      return std::min(left, 2.0 * static_cast<double>(stage));
    default:
      return 0;
  }
}

double in_flight_micro_batches(PipelineSchedule schedule, int64_t stage, int64_t pp, int64_t vpp,
                               int64_t micro_batches) {
  const auto m = static_cast<double>(micro_batches);
  switch (schedule) {
    case PipelineSchedule::gpipe:
      return m;
    case PipelineSchedule::one_f_one_b:
    case PipelineSchedule::zb_h1:
      return std::min(m, static_cast<double>(pp - stage));
    case PipelineSchedule::zb_h2:
      return std::min(m, static_cast<double>(2 * (pp - stage) - 1));
    case PipelineSchedule::dualpipe:
      return std::min(m, static_cast<double>(pp + 1));
    case PipelineSchedule::interleaved: {
      const auto v = static_cast<double>(vpp);
      const double chunks = 2.0 * static_cast<double>(pp - stage - 1) + (v - 1.0) * static_cast<double>(pp) + 1.0;
      return std::min(m * v, chunks) / v;
    }
  }
  return m;
}

}  // namespace meshscope
