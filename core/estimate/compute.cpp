#include "core/estimate/compute.hpp"

#include "core/estimate/gemm_rate.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace meshscope {

Result<ComputeEfficiency> compute_efficiency_from_keys(const KeyValues& keys, ComputeEfficiency e) {
  for (const auto& [key, value] : keys) {
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    const bool valid = !value.empty() && end == value.c_str() + value.size() && number > 0;
    double* field = nullptr;
    if (key == "gemm") {
      e.gemm = 1.0;  // validated below, then set
      field = &*e.gemm;
    }
    if (key == "gemm_half_flops") field = &e.gemm_half_flops;
    if (key == "attention_forward") field = &e.attention_forward;
    if (key == "attention_backward") field = &e.attention_backward;
    if (key == "attention_unfused") field = &e.attention_unfused;
    if (key == "memory") field = &e.memory;
    if (field == nullptr)
      return make_error(ErrorCode::invalid_argument,
                        "unknown key \"" + key +
                            "\"; known keys: gemm, gemm_half_flops, attention_forward, attention_backward, "
                            "attention_unfused, memory",
                        "--efficiency");
    if (!valid || (field != &e.gemm_half_flops && number > 1))
      return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not valid for " + key,
                        "--efficiency " + key);
    *field = number;
  }
  return e;
}

double compute_peak_flops(const GpuSpec& gpu, DType compute_dtype) {
  if (auto peak = gpu.peak_flops_per_s(compute_dtype)) return *peak;
  if (auto peak = gpu.peak_flops_per_s(DType::bf16)) return *peak;
  if (auto peak = gpu.peak_flops_per_s(DType::fp16)) return *peak;
  return 1.0;
}

double gemm_share_of_peak(const GpuSpec& gpu, DType type, const ComputeEfficiency& efficiency) {
  if (efficiency.gemm) return *efficiency.gemm;
  return sustained_gemm_flops_per_s(gpu, type) / compute_peak_flops(gpu, type);
}

namespace {

// Whether the layer's linear projections run as FP8 GEMMs: Transformer Engine's fp8_autocast
// covers the Linear/LayerNormLinear/LayerNormMLP modules of each transformer layer; attention
// (DotProductAttention without fp8_dpa), the MoE router and the output layer (LM head, outside the
// autocast in Megatron-LM's GPTModel) stay in BF16 (TE docs, "Using FP8 with Transformer Engine";
// Megatron-LM megatron/core/models/gpt/gpt_model.py).
bool fp8_linears(const TrainingWorkload& w) {
  return w.compute_dtype == DType::fp8;
}

struct Rates {
  double peak;             // dense peak of the compute dtype (what MFU divides by)
  double attention_peak;   // the attention core's: BF16's under FP8 (see fp8_linears)
  double gemm_rate;        // large GEMMs of the compute dtype: measured achievable (gemm_rate.hpp)
  double bf16_gemm_rate;   // GEMMs that stay in BF16 under FP8
  double hbm_bytes_per_s;  // datasheet HBM bandwidth (a memory-bound GEMM's roll-off)
  double memory_bytes_per_s;
  const GemmRateModel& model;
  const ComputeEfficiency& e;
  // One M×N×K GEMM; `low_precision`: an FP8 GEMM under an FP8 recipe (1-byte operands).
  [[nodiscard]] double gemm_s(double m, double n, double k, bool low_precision = false) const {
    const double rate = low_precision ? gemm_rate : bf16_gemm_rate;
    if (model.compute_units <= 0) {
      // No measured roll-off for this GPU: the former assumption, half of the rate at
      // gemm_half_flops FLOPs.
      const double flops = 2 * m * n * k;
      return flops > 0 ? flops / (rate * flops / (flops + e.gemm_half_flops)) : 0.0;
    }
    return gemm_time_s(model, rate, hbm_bytes_per_s, {1, m, n, k, low_precision ? 1.0 : 2.0});
  }
  [[nodiscard]] double memory_s(double bytes) const { return bytes / memory_bytes_per_s; }
};

Rates rates(const ComputeContext& c) {
  const DType dtype = c.workload.compute_dtype;
  const DType high = fp8_linears(c.workload) ? DType::bf16 : dtype;
  return {compute_peak_flops(c.gpu, dtype),
          compute_peak_flops(c.gpu, high),
          gemm_share_of_peak(c.gpu, dtype, c.efficiency) * compute_peak_flops(c.gpu, dtype),
          gemm_share_of_peak(c.gpu, high, c.efficiency) * compute_peak_flops(c.gpu, high),
          c.gpu.memory_bandwidth_bytes_per_s,
          c.gpu.memory_bandwidth_bytes_per_s * c.efficiency.memory,
          c.gpu.gemm,
          c.efficiency};
}

// Forward GEMMs of one layer as (M, N, K) on one rank.
struct Gemm {
  std::string name;
  double m, n, k;
};

void attention_gemms(std::vector<Gemm>& g, const ModelSpec& m, double tokens, double tp) {
  const auto h = static_cast<double>(m.hidden_size);
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    const auto heads = static_cast<double>(m.num_heads);
    const double q_out = heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim) / tp;
    if (a.q_lora_rank > 0) {
      g.push_back({"attention: q down-projection", tokens, static_cast<double>(a.q_lora_rank), h});
      g.push_back({"attention: q up-projection", tokens, q_out, static_cast<double>(a.q_lora_rank)});
    } else {
      g.push_back({"attention: q projection", tokens, q_out, h});
    }
    g.push_back({"attention: kv down-projection", tokens, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), h});
    g.push_back({"attention: kv up-projection", tokens,
                 heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim) / tp,
                 static_cast<double>(a.kv_lora_rank)});
    g.push_back({"attention: output projection", tokens, h, heads * static_cast<double>(a.v_head_dim) / tp});
    return;
  }
  g.push_back({"attention: QKV projection", tokens, static_cast<double>(m.q_width() + 2 * m.kv_width()) / tp, h});
  g.push_back({"attention: output projection", tokens, h, static_cast<double>(m.q_width()) / tp});
}

void mlp_gemms(std::vector<Gemm>& g, const ModelSpec& m, double tokens, double ffn_local, const std::string& prefix) {
  const auto h = static_cast<double>(m.hidden_size);
  g.push_back({prefix + (m.mlp == MlpKind::gated ? "gate and up projections" : "first linear"), tokens,
               (m.mlp == MlpKind::gated ? 2.0 : 1.0) * ffn_local, h});
  g.push_back({prefix + (m.mlp == MlpKind::gated ? "down projection" : "second linear"), tokens, h, ffn_local});
}

}  // namespace

std::vector<OperationCost> layer_operations(const ComputeContext& c, int64_t layer) {
  const ModelSpec& m = c.model;
  const Layout& l = c.layout;
  const TrainingWorkload& w = c.workload;
  const Rates r = rates(c);
  const auto tp = static_cast<double>(l.tp);
  const double sp_div = l.sp ? tp : 1.0;
  const double tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  const auto h = static_cast<double>(m.hidden_size);
  const double e = dtype_bytes(w.activation_dtype);

  std::vector<Gemm> gemms;
  attention_gemms(gemms, m, tokens, tp);
  double ffn_width_elementwise = 0;  // FFN-wide activations touched by element-wise kernels, per token
  if (m.is_moe_layer(layer)) {
    const auto k = static_cast<double>(m.moe.top_k);
    gemms.push_back({"moe: router", tokens, static_cast<double>(m.moe.num_experts), h});
    // Routed tokens on this rank: its tokens × top-k, gathered over expert-TP (balanced routing).
    const double routed = tokens / sp_div * static_cast<double>(l.etp) * k;
    const double f_local = static_cast<double>(m.moe.expert_ffn_hidden_size) / static_cast<double>(l.etp);
    mlp_gemms(gemms, m, routed, f_local, "moe: experts ");
    ffn_width_elementwise += routed / tokens * f_local;
    if (m.moe.num_shared_experts > 0) {
      const double shared = static_cast<double>(m.moe.num_shared_experts * m.moe.shared_expert_ffn_hidden_size) / tp;
      mlp_gemms(gemms, m, tokens, shared, "moe: shared experts ");
      ffn_width_elementwise += shared;
    }
  } else {
    const double f_local = static_cast<double>(m.ffn_hidden_size) / tp;
    mlp_gemms(gemms, m, tokens, f_local, "mlp: ");
    ffn_width_elementwise += f_local;
  }
  std::vector<OperationCost> ops;
  ops.reserve(gemms.size() + 2);
  const bool fp8 = fp8_linears(w);
  double fp8_cast_bytes = 0, fp8_cast_backward_bytes = 0;
  for (const Gemm& g : gemms) {
    // Y = X·W (M×N, inner K); input gradient dX = dY·Wᵀ (M×K, inner N); weight gradient
    // dW = Xᵀ·dY (K×N, inner M): the same FLOPs, different shapes (a small M slows the W-GEMM).
    const bool low = fp8 && g.name != "moe: router";
    ops.push_back({g.name, 2 * g.m * g.n * g.k, e * (g.m * g.k + g.k * g.n + g.m * g.n), r.gemm_s(g.m, g.n, g.k, low),
                   r.gemm_s(g.m, g.k, g.n, low), r.gemm_s(g.k, g.n, g.m, low), false});
    if (low) {
      // Transformer Engine's FP8 GEMMs take FP8 operands in the TN layout (Hopper's FP8 tensor
      // cores), so each one costs memory-bound cast kernels around it: forward, the input is cast
      // and transposed for the weight gradient (read 2 bytes, write 1 + 1: cast_transpose in
      // transformer_engine/common/transpose/cast_transpose.cu), the weight likewise; backward, the
      // output gradient (read 2, write 1 + 1). The amax of each cast is computed inside the same
      // kernel (delayed scaling), so it adds no traffic.
      fp8_cast_bytes += 4 * (g.m * g.k + g.k * g.n);
      fp8_cast_backward_bytes += 4 * g.m * g.n;
    }
  }

  // Attention core: QK^T and A·V, 2·ctx·heads·(d_qk + d_v) per token; causal halves ctx.
  double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.head_dim);
  if (m.mla.enabled()) {
    qk = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    v = static_cast<double>(m.mla.v_head_dim);
  }
  const double ctx = w.causal ? static_cast<double>(w.seq_len) / 2.0 : static_cast<double>(w.seq_len);
  const double attention_flops = tokens * 2.0 * ctx * static_cast<double>(m.num_heads) / tp * (qk + v);
  double attention_forward, attention_backward;
  double score_bytes = 0, score_backward_bytes = 0;  // traffic of stored scores (softmax, dropout)
  if (w.flash_attention) {
    attention_forward = attention_flops / (r.attention_peak * c.efficiency.attention_forward);
    // FlashAttention-2 backward: 2× the forward GEMMs plus the recomputed scores (2.5×).
    attention_backward = 2.5 * attention_flops / (r.attention_peak * c.efficiency.attention_backward);
  } else {
    attention_forward = attention_flops / (r.attention_peak * c.efficiency.attention_unfused);
    attention_backward = 2 * attention_forward;
    const bool dropout = w.dropout.value_or(m.dropout);
    // Softmax reads scores and writes probabilities; dropout reads them and writes a mask + output.
    score_bytes = tokens * static_cast<double>(m.num_heads) / tp * static_cast<double>(w.seq_len) *
                  (2 * e + (dropout ? 2 * e + 1 : 0.0));
    // Backward: softmax reads P and dP and writes dS (3 tensors); dropout reads dP' and the mask
    // and writes dP (as forward).
    score_backward_bytes = tokens * static_cast<double>(m.num_heads) / tp * static_cast<double>(w.seq_len) *
                           (3 * e + (dropout ? 2 * e + 1 : 0.0));
  }
  // Element-wise traffic per token, counting the tensors each kernel reads and writes (PyTorch's
  // autograd formulas; Korthikanti et al. 2022 Table 4 measures the per-layer result):
  //   forward: two norms (read x, write y), two residual/bias/dropout adds (read 2, write 1), the
  //   activation (gated: read 2, write 1; plain: read 1, write 1), RoPE on Q and K (read, write);
  //   backward: each norm reads x and dy and writes dx (3), each add passes its gradient on and
  //   the residual branch's is accumulated (read 2, write 1), the activation reads its inputs and
  //   dy and writes the input gradients (gated: 5, plain: 3), RoPE rotates the gradients back (2).
  const double ffn_e = ffn_width_elementwise * e;
  const double rope =
      m.position == PositionKind::rotary ? 2.0 * static_cast<double>(m.q_width() + m.kv_width()) / tp * e : 0.0;
  const bool gated = m.mlp == MlpKind::gated;
  const double per_token = (2 * 2 * h + 2 * 3 * h) * e / sp_div + (gated ? 3.0 : 2.0) * ffn_e + rope;
  const double per_token_backward = (2 * 3 * h + 2 * 3 * h) * e / sp_div + (gated ? 5.0 : 3.0) * ffn_e + rope;
  const double elementwise_forward = r.memory_s(per_token * tokens);
  const double elementwise_backward = r.memory_s(per_token_backward * tokens);
  // The attention core is what selective recompute repeats (with its score traffic).
  ops.push_back({w.flash_attention ? "attention: core (FlashAttention)" : "attention: scores, softmax, A·V",
                 attention_flops, score_bytes, attention_forward + r.memory_s(score_bytes),
                 attention_backward + r.memory_s(score_backward_bytes), 0.0, true});
  ops.push_back({"element-wise: norms, residuals, activation, RoPE", 0.0, per_token * tokens, elementwise_forward,
                 elementwise_backward, 0.0, false});
  if (fp8)
    ops.push_back({"fp8: casts, transposes and amax around the FP8 GEMMs", 0.0, fp8_cast_bytes,
                   r.memory_s(fp8_cast_bytes), r.memory_s(fp8_cast_backward_bytes), 0.0, false});
  return ops;
}

WorkTime layer_compute(const ComputeContext& c, int64_t layer, bool recompute_fully) {
  WorkTime t;
  double selective = 0;
  for (const OperationCost& op : layer_operations(c, layer)) {
    t.forward_s += op.forward_s;
    t.backward_input_s += op.backward_input_s;
    t.backward_weight_s += op.backward_weight_s;
    t.forward_flops += op.flops;
    if (op.recomputed_by_selective) selective += op.forward_s;
  }
  if (recompute_fully || c.workload.recompute == RecomputeMode::full) {
    t.recompute_s = t.forward_s;
  } else if (c.workload.recompute == RecomputeMode::selective) {
    t.recompute_s = selective;
  }
  return t;
}

WorkTime embedding_compute(const ComputeContext& c) {
  const Rates r = rates(c);
  const double tokens = static_cast<double>(c.workload.seq_len) * static_cast<double>(c.layout.micro_batch) /
                        static_cast<double>(c.layout.cp);
  const double bytes = tokens * static_cast<double>(c.model.hidden_size) * dtype_bytes(c.workload.activation_dtype);
  WorkTime t;
  t.forward_bytes = 2 * bytes;
  t.forward_s = r.memory_s(2 * bytes);          // gather rows, write the hidden states
  t.backward_weight_s = r.memory_s(3 * bytes);  // scatter-add of the gradient rows
  return t;
}

WorkTime head_compute(const ComputeContext& c) {
  const Rates r = rates(c);
  const auto tp = static_cast<double>(c.layout.tp);
  const double tokens = static_cast<double>(c.workload.seq_len) * static_cast<double>(c.layout.micro_batch) /
                        static_cast<double>(c.layout.cp);
  const auto h = static_cast<double>(c.model.hidden_size);
  const double vocab = static_cast<double>(c.model.vocab_size) / tp;
  WorkTime t;
  // The LM head stays in BF16 under an FP8 recipe (fp8_linears).
  const double gemm = r.gemm_s(tokens, vocab, h);
  t.forward_flops = 2 * tokens * vocab * h;
  const double e = dtype_bytes(c.workload.activation_dtype);
  t.forward_bytes = (tokens * h + h * vocab + tokens * vocab) * e + tokens * vocab * 4 * 3;
  // Cross-entropy over fp32 logits: read them for the max/sum, write the gradient.
  const double loss = r.memory_s(tokens * vocab * 4 * 3);
  t.forward_s = gemm + loss;
  t.backward_input_s = r.gemm_s(tokens, h, vocab) + r.memory_s(tokens * vocab * 4 * 2);
  t.backward_weight_s = r.gemm_s(h, vocab, tokens);
  return t;
}

double optimizer_step_bytes(const ComputeContext& c, double params_on_rank, int64_t shard) {
  const TrainingWorkload& w = c.workload;
  // Adam(W) per parameter: read gradient, master, m, v; write master, m, v and the 16-bit copy.
  const double master = w.master_dtype ? dtype_bytes(*w.master_dtype) : 0.0;
  const double states = w.optimizer_states_per_param() * dtype_bytes(w.optimizer_state_dtype);
  const double per_param = dtype_bytes(w.grad_dtype) + 2 * (master + states) + dtype_bytes(w.param_dtype);
  const double updated = params_on_rank / (w.zero_stage >= 1 ? static_cast<double>(std::max<int64_t>(shard, 1)) : 1.0);
  return updated * per_param;
}

double optimizer_step_s(const ComputeContext& c, double params_on_rank, int64_t shard) {
  return rates(c).memory_s(optimizer_step_bytes(c, params_on_rank, shard));
}

}  // namespace meshscope
