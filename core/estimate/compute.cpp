#include "core/estimate/compute.hpp"

#include "core/estimate/gemm_rate.hpp"
#include "core/framework/framework.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"

#include <algorithm>
#include <cmath>
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
    if (key == "attention_forward" || key == "attention_backward") e.attention_shares_given = true;
    if (key == "attention_unfused") field = &e.attention_unfused;
    if (key == "memory") field = &e.memory;
    if (key == "host_op_us") field = &e.host_op_us;
    if (key == "host_kernel_us") field = &e.host_kernel_us;
    if (key == "host_op_us" || key == "host_kernel_us") e.host_costs_given = true;
    const bool unbounded = field == &e.gemm_half_flops || field == &e.host_op_us || field == &e.host_kernel_us;
    if (field == nullptr)
      return make_error(ErrorCode::invalid_argument,
                        "unknown key \"" + key +
                            "\"; known keys: gemm, gemm_half_flops, attention_forward, attention_backward, "
                            "attention_unfused, memory, host_op_us, host_kernel_us",
                        "--efficiency");
    if (!valid || (!unbounded && number > 1))
      return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not valid for " + key,
                        "--efficiency " + key);
    *field = number;
  }
  return e;
}

double host_cpu_op_time_ratio(std::string_view cpu_name) {
  const auto has = [&](std::string_view part) { return cpu_name.find(part) != std::string_view::npos; };
  // TE issue #2053: torch.nn.Linear forward, 37.08 µs of CPU on GB200 against 13.48 µs on DGX H100.
  // hwloc names Grace's cores by their Arm design (Neoverse-V2).
  if (has("Grace") || has("grace") || has("Neoverse-V2") || has("Neoverse V2")) return 37.08 / 13.48;
  return 1.0;
}

Result<bool> check_training_precision(const GpuSpec& gpu, DType compute_dtype) {
  // 16-bit precisions fall back to the other 16-bit peak (PyTorch runs BF16 on a V100, slowly);
  // the low-precision recipes have no fallback.
  if (gpu.peak_flops_per_s(compute_dtype) || (compute_dtype != DType::fp8 && compute_dtype != DType::fp4)) return true;
  std::string has;
  for (const DType t : {DType::bf16, DType::fp16, DType::fp8, DType::fp4})
    if (gpu.peak_flops_per_s(t))
      has += (has.empty() ? "" : ", ") + std::string(t == DType::fp4 ? "nvfp4" : dtype_name(t));
  const std::string name = compute_dtype == DType::fp4 ? "NVFP4 (FP4)" : std::string(dtype_name(compute_dtype));
  return make_error(ErrorCode::invalid_argument,
                    gpu.name + " has no " + name + " tensor cores, so no framework trains in it there" +
                        (has.empty() ? std::string() : "; it has " + has),
                    "precision");
}

ComputeEfficiency on_host_cpu(ComputeEfficiency e, std::string_view cpu_name) {
  const double ratio = host_cpu_op_time_ratio(cpu_name);
  if (e.host_costs_given || ratio == 1.0) return e;
  e.host_op_us *= ratio;
  e.host_kernel_us *= ratio;
  e.host_cpu = std::string(cpu_name);
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

double gemm_rate_flops_per_s(const GpuSpec& gpu, DType type, const ComputeEfficiency& efficiency) {
  return gemm_share_of_peak(gpu, type, efficiency) * compute_peak_flops(gpu, type);
}

double half_flops_gemm_s(double flops, double rate, double half_flops) {
  return flops > 0 ? flops / (rate * flops / (flops + half_flops)) : 0.0;
}

namespace {

// `values` at `x` on the ascending `grid`: linear in log2(x) between grid points, held beyond them.
double log_interpolate(const std::vector<double>& grid, const std::vector<double>& values, double x) {
  if (x <= grid.front()) return values.front();
  if (x >= grid.back()) return values.back();
  size_t k = 1;
  while (grid[k] < x) ++k;
  const double t = std::log2(x / grid[k - 1]) / std::log2(grid[k] / grid[k - 1]);
  return values[k - 1] + t * (values[k] - values[k - 1]);
}

}  // namespace

AttentionCall attention_call(const ModelSpec& m, const TrainingWorkload& w, const Layout& l) {
  return {
      static_cast<double>(w.seq_len) / (resolved_cp_comm(w) == CpComm::all_to_all ? 1.0 : static_cast<double>(l.cp)),
      static_cast<double>(m.mla.enabled() ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim : m.head_dim)};
}

Fp8Recipe fp8_recipe_of(const TrainingWorkload& w) {
  if (w.fp8_recipe != Fp8Recipe::automatic) return w.fp8_recipe;
  if (const Fp8Recipe own = framework_spec(w.framework).default_fp8_recipe; own != Fp8Recipe::automatic) return own;
  return resolved_framework({}, w) == MemoryFramework::fsdp2 ? Fp8Recipe::current : Fp8Recipe::delayed;
}

AttentionCoreRates attention_core_rates(const GpuSpec& gpu, const TrainingWorkload& w, const ComputeEfficiency& e,
                                        double sequence, double head_dim, double bf16_peak) {
  AttentionKernel kernel = w.attention_kernel;
  if (kernel == AttentionKernel::automatic) {
    const bool hopper_or_newer =
        gpu.vendor == "NVIDIA" && (gpu.architecture == "Hopper" || gpu.architecture.rfind("Blackwell", 0) == 0);
    kernel = hopper_or_newer ? AttentionKernel::cudnn : AttentionKernel::flash2;
  }
  AttentionCoreRates rates{bf16_peak * e.attention_forward, bf16_peak * e.attention_backward,
                           std::string(enum_name(kernel)), false};
  const auto found = gpu.attention.find(rates.kernel);
  if (e.attention_shares_given) return rates;
  // Head dim: the measured rate at 128, the measured share at 64, linear between.
  const double t = std::clamp((head_dim - 64.0) / 64.0, 0.0, 1.0);
  const auto head_share = [t](double share_at_64) { return share_at_64 + t * (1.0 - share_at_64); };
  // The sustained clock: what the GPU's measured sustained GEMM rate is of its burst rate (1 where
  // neither the sustained rate nor the ratio was measured). Kernel benchmarks, and the datasheet
  // peak a generic share multiplies, are burst-clock figures; a training step is power-saturated.
  double clock = 1.0;
  const auto burst = gpu.gemm.achievable_flops_per_s.find("bf16");
  if (burst != gpu.gemm.achievable_flops_per_s.end() &&
      (gpu.gemm.sustained_flops_per_s.count("bf16") != 0 || gpu.gemm.sustained_share_of_burst > 0))
    clock = sustained_gemm_flops_per_s(gpu, DType::bf16) / burst->second;
  if (found == gpu.attention.end()) {
    // No measurement of the kernel on this GPU: the generic shares are a long call's at head dim
    // 128 (Dao 2023 §4.1 quotes FlashAttention-2's 50–73 % of peak at long sequences), at the
    // GPU's sustained clock. A shorter call and a smaller head dim run slower by what the same
    // kernel measures on the reference GPU: rate(length) / rate(its longest measurement) (Shah et
    // al. 2024, Figs. 5–7, on H100: FlashAttention-2 forward 191 TFLOP/s at 512 tokens against 335
    // at 16k), held at the shortest measured length — per-tile softmax rescaling, the causal
    // diagonal and the epilogue weigh more in a short call on any GPU — and its measured share at
    // head dim 64 (the same figures: cuDNN forward 0.687, backward 0.849), a tile of half the
    // inner dimension doing half the MMA work per softmax element.
    rates.forward_flops_per_s *= clock;
    rates.backward_flops_per_s *= clock;
    static const Result<GpuSpec> reference = find_gpu(kAttentionReferenceGpu);
    if (!reference) return rates;
    const auto curve = reference->attention.find(rates.kernel);
    if (curve == reference->attention.end()) return rates;
    const AttentionKernelRate& c = curve->second;
    rates.forward_flops_per_s *= log_interpolate(c.sequence, c.forward_flops_per_s, sequence) /
                                 c.forward_flops_per_s.back() * head_share(c.head_dim_64_forward);
    rates.backward_flops_per_s *= log_interpolate(c.sequence, c.backward_flops_per_s, sequence) /
                                  c.backward_flops_per_s.back() * head_share(c.head_dim_64_backward);
    rates.length_scaled = sequence < c.sequence.back();
    return rates;
  }
  const AttentionKernelRate& m = found->second;
  rates.forward_flops_per_s =
      log_interpolate(m.sequence, m.forward_flops_per_s, sequence) * head_share(m.head_dim_64_forward) * clock;
  rates.backward_flops_per_s =
      log_interpolate(m.sequence, m.backward_flops_per_s, sequence) * head_share(m.head_dim_64_backward) * clock;
  rates.measured = true;
  return rates;
}

namespace {

struct Rates {
  double peak;             // dense peak of the compute dtype (what MFU divides by)
  double attention_peak;   // the attention core's: BF16's under FP8 (see fp8_linears)
  double gemm_rate;        // large GEMMs of the compute dtype: measured achievable (gemm_rate.hpp)
  double bf16_gemm_rate;   // GEMMs that stay in BF16 under FP8
  double hbm_bytes_per_s;  // datasheet HBM bandwidth (a memory-bound GEMM's roll-off)
  double memory_bytes_per_s;
  double low_operand_bytes;  // bytes per element of a low-precision operand (FP8 1, NVFP4 0.5625)
  const GemmRateModel& model;
  const ComputeEfficiency& e;
  // One M×N×K GEMM; `low_precision`: a GEMM of the FP8/FP4 recipe's dtype.
  [[nodiscard]] double gemm_s(double m, double n, double k, bool low_precision = false) const {
    const double rate = low_precision ? gemm_rate : bf16_gemm_rate;
    if (model.compute_units <= 0) {
      // No measured roll-off for this GPU: the former assumption, half of the rate at
      // gemm_half_flops FLOPs.
      return half_flops_gemm_s(2 * m * n * k, rate, e.gemm_half_flops);
    }
    return gemm_time_s(model, rate, hbm_bytes_per_s, {1, m, n, k, low_precision ? low_operand_bytes : 2.0});
  }
  [[nodiscard]] double memory_s(double bytes) const { return bytes / memory_bytes_per_s; }
};

Rates rates(const ComputeContext& c) {
  const DType dtype = c.workload.compute_dtype;
  const DType high = fp8_linears(c.workload) ? DType::bf16 : dtype;
  return {compute_peak_flops(c.gpu, dtype),
          compute_peak_flops(c.gpu, high),
          gemm_rate_flops_per_s(c.gpu, dtype, c.efficiency),
          gemm_rate_flops_per_s(c.gpu, high, c.efficiency),
          c.gpu.memory_bandwidth_bytes_per_s,
          c.gpu.memory_bandwidth_bytes_per_s * c.efficiency.memory,
          low_precision_operand_bytes(dtype, fp8_recipe_of(c.workload)),
          c.gpu.gemm,
          c.efficiency};
}

// Forward GEMMs of one layer as (M, N, K) on one rank; `count` GEMMs of that shape (a grouped
// GEMM over the rank's local experts: Transformer Engine's GroupedLinear runs one cuBLAS GEMM per
// expert, transformer_engine/pytorch/module/grouped_linear.py).
struct Gemm {
  std::string name;
  double m, n, k;
  double count = 1;
  double op_sac_share = 0;     // OperationCost::op_sac_share
  uint32_t recomputed_by = 0;  // OperationCost::recomputed_by
};

void attention_gemms(std::vector<Gemm>& g, const ModelSpec& m, double tokens, double tp) {
  const auto h = static_cast<double>(m.hidden_size);
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    const auto heads = static_cast<double>(m.num_heads);
    const double q_out = heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim) / tp;
    if (a.q_lora_rank > 0) {
      g.push_back({"attention: q down-projection", tokens, static_cast<double>(a.q_lora_rank), h});
      g.push_back({"attention: q up-projection", tokens, q_out, static_cast<double>(a.q_lora_rank), 1, 0,
                   recompute_bits::mla_up_proj});
    } else {
      g.push_back({"attention: q projection", tokens, q_out, h});
    }
    g.push_back({"attention: kv down-projection", tokens, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), h});
    g.push_back({"attention: kv up-projection", tokens,
                 heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim) / tp,
                 static_cast<double>(a.kv_lora_rank), 1, 0, recompute_bits::mla_up_proj});
    g.push_back({"attention: output projection", tokens, h, heads * static_cast<double>(a.v_head_dim) / tp});
    return;
  }
  // torchtitan's op-level SAC recomputes wk (its share of the fused QKV output) and wo.
  const double q = static_cast<double>(m.q_width()), kv = static_cast<double>(m.kv_width());
  g.push_back({"attention: QKV projection", tokens, (q + 2 * kv) / tp, h, 1, kv / (q + 2 * kv)});
  g.push_back({"attention: output projection", tokens, h, q / tp, 1, 1});
}

// `groups` GEMMs of `tokens / groups` rows each (the local experts of a grouped GEMM). `dense`: a
// dense block's MLP, whose w3 (half the fused gate-and-up GEMM) or plain second linear
// torchtitan's op-level SAC recomputes (experts' grouped matmuls are not aten.mm).
// `recomputed_by`: the recompute modules that run the MLP again (RecomputeModule bits).
void mlp_gemms(std::vector<Gemm>& g, const ModelSpec& m, double tokens, double ffn_local, const std::string& prefix,
               uint32_t recomputed_by, double groups = 1, bool dense = false) {
  const auto h = static_cast<double>(m.hidden_size);
  const bool gated = m.mlp == MlpKind::gated;
  g.push_back({prefix + (gated ? "gate and up projections" : "first linear"), tokens / groups,
               (gated ? 2.0 : 1.0) * ffn_local, h, groups, dense && gated ? 0.5 : 0.0, recomputed_by});
  g.push_back({prefix + (gated ? "down projection" : "second linear"), tokens / groups, h, ffn_local, groups,
               dense && !gated ? 1.0 : 0.0, recomputed_by});
}

// Host dispatch of one operation: framework ops issued from Python, each with its launch, and the
// further kernels an op launches from C++ (ComputeEfficiency::host_op_us and host_kernel_us).
struct Dispatch {
  double ops_forward = 0, kernels_forward = 0, ops_backward = 0, kernels_backward = 0;
};

void set_host_time(OperationCost& op, const Dispatch& d, const ComputeEfficiency& e, bool graphed) {
  if (graphed) return;  // a CUDA graph replays the kernels without the host (one launch per graph)
  op.host_forward_s = (d.ops_forward * e.host_op_us + d.kernels_forward * e.host_kernel_us) * 1e-6;
  op.host_backward_s = (d.ops_backward * e.host_op_us + d.kernels_backward * e.host_kernel_us) * 1e-6;
}

// What every part of one layer's operations reads: the rates, the layer's share of the tokens and
// widths on this rank, and which of its kernels CUDA graphs replay.
struct LayerScope {
  const ComputeContext& c;
  Rates r;
  int64_t layer = 0;
  bool moe_layer = false;
  double tp = 1;
  double sp_div = 1;  // SP splits the element-wise kernels' tokens over TP
  double tokens = 0;  // per micro-batch on this rank (the sequence split over CP)
  double h = 0;
  double e = 0;  // bytes per activation element
  // CUDA graphs (cuda_graphs=1): Megatron-LM captures whole dense layers, and of a dropless MoE
  // layer the attention part only (the routed token counts are known at run time;
  // megatron/core/transformer/cuda_graphs.py, --cuda-graph-scope).
  bool graphs = false;
  // --cuda-graph-scope moe_router moe_preprocess (cuda_graph_moe_router): the router's GEMM and
  // routing, and the dispatcher's preprocess, replay from graphs too.
  bool graph_router = false;
  // Experts padded to capacity have static shapes and no device-to-host copy of the splits
  // (token_dispatcher.py preprocess, drop_and_pad): graphs capture the whole MoE layer.
  bool moe_eager = false;
};

LayerScope layer_scope(const ComputeContext& c, int64_t layer) {
  const TrainingWorkload& w = c.workload;
  const Layout& l = c.layout;
  LayerScope s{c, rates(c)};
  s.layer = layer;
  s.moe_layer = c.model.is_moe_layer(layer);
  s.tp = static_cast<double>(l.tp);
  s.sp_div = l.sp ? s.tp : 1.0;
  s.tokens = static_cast<double>(w.seq_len) * static_cast<double>(l.micro_batch) / static_cast<double>(l.cp);
  s.h = static_cast<double>(c.model.hidden_size);
  s.e = dtype_bytes(w.activation_dtype);
  s.graphs = w.cuda_graphs;
  s.graph_router = s.graphs && w.cuda_graph_moe_router;
  s.moe_eager = s.moe_layer && w.moe_capacity_factor <= 0;
  return s;
}

// The layer's forward GEMMs, and the FFN widths its element-wise kernels touch.
struct LayerGemms {
  std::vector<Gemm> gemms;
  double ffn_width_elementwise = 0;  // FFN-wide activations touched by element-wise kernels, per token
  double expert_ffn_width = 0;       // of which the routed experts' (the moe_act recompute's)
  double routed = 0;                 // MoE: the routed rows on this rank
  double local_experts = 1;          // MoE: the experts on this rank
};

LayerGemms layer_gemms(const LayerScope& s) {
  const ModelSpec& m = s.c.model;
  const Layout& l = s.c.layout;
  const double tokens = s.tokens;
  LayerGemms out;
  std::vector<Gemm>& gemms = out.gemms;
  attention_gemms(gemms, m, tokens, s.tp);
  if (s.moe_layer) {
    const auto k = static_cast<double>(m.moe.top_k);
    gemms.push_back({"moe: router", tokens, static_cast<double>(m.moe.num_experts), s.h, 1, 0, recompute_bits::moe});
    // Routed tokens on this rank: its tokens × top-k, gathered over expert-TP (balanced routing),
    // split over the rank's local experts: one GEMM each (a grouped GEMM).
    // Padded to capacity (moe_capacity_factor): each expert computes factor × its balanced rows.
    out.routed = tokens / s.sp_div * static_cast<double>(l.etp) * k * moe_routed_rows_factor(s.c.workload);
    out.local_experts =
        std::max(1.0, static_cast<double>(m.moe.num_experts) / static_cast<double>(std::max<int64_t>(l.ep, 1)));
    const double f_local = static_cast<double>(m.moe.expert_ffn_hidden_size) / static_cast<double>(l.etp);
    mlp_gemms(gemms, m, out.routed, f_local, "moe: experts ", recompute_bits::moe, out.local_experts);
    out.ffn_width_elementwise += out.routed / tokens * f_local;
    out.expert_ffn_width = out.routed / tokens * f_local;
    if (m.moe.num_shared_experts > 0) {
      const double shared = static_cast<double>(m.moe.num_shared_experts * m.moe.shared_expert_ffn_hidden_size) / s.tp;
      mlp_gemms(gemms, m, tokens, shared, "moe: shared experts ", recompute_bits::shared_experts | recompute_bits::moe);
      out.ffn_width_elementwise += shared;
    }
  } else {
    const double f_local = static_cast<double>(m.ffn_hidden_size) / s.tp;
    mlp_gemms(gemms, m, tokens, f_local, "mlp: ", recompute_bits::mlp, 1, true);
    out.ffn_width_elementwise += f_local;
  }
  return out;
}

// The HBM traffic of the casts around the low-precision GEMMs (FP8/FP4), and of the casts of
// the inputs that recomputed GEMMs cast again.
struct LowPrecisionCasts {
  double forward_bytes = 0;
  double backward_bytes = 0;
  std::vector<OperationCost::Part> recomputed_bytes;  // forward cast bytes of GEMMs a module repeats
};

// One operation per GEMM (forward, input- and weight-gradient times, host dispatch), into `ops`;
// returns the casts the low-precision ones need.
LowPrecisionCasts gemm_operations(std::vector<OperationCost>& ops, const LayerScope& s,
                                  const std::vector<Gemm>& gemms) {
  const TrainingWorkload& w = s.c.workload;
  const Rates& r = s.r;
  const double e = s.e;
  const bool fp8 = fp8_linears(w);
  LowPrecisionCasts casts;
  // Transformer Engine keeps a weight's FP8 copy across the micro-batches of a step (its modules'
  // get_weight_workspace casts only when is_first_microbatch, which Megatron-Core sets for the
  // step's first): under Megatron the weight casts are once per step, spread here over its
  // micro-batches; FSDP2 with torchao's float8 casts each forward's gathered weights.
  const bool te = resolved_framework({}, w) == MemoryFramework::megatron;
  const double weight_casts_per_micro_batch =
      te ? 1.0 / static_cast<double>(std::max<int64_t>(num_micro_batches(w, s.c.layout), 1)) : 1.0;
  // Current (tensorwise) scaling reads each tensor once more for its amax before the cast
  // (quantizer.cpp Float8CurrentScalingQuantizer::quantize_impl: nvte_compute_amax, then the cast);
  // so does NVFP4, whose second-level scale is the tensor's amax. Delayed scaling and the block
  // recipes compute their scales inside the cast.
  const bool amax_pass = w.compute_dtype == DType::fp4 || fp8_recipe_of(w) == Fp8Recipe::current;
  // The copies each cast writes: the rowwise one, and for the weight and data gradients a
  // columnwise one — a transpose on Hopper; under Transformer Engine on datacenter Blackwell a
  // per-tensor-scaled tensor serves both ways (fp8_gemm_any_layout), while the block-scaled
  // recipes (MXFP8, blockwise, NVFP4) quantise a columnwise copy of their own, their scales running
  // along the other dimension. torchao's float8 (torch._scaled_mm, row-major by column-major
  // operands) keeps its transposes on every GPU.
  const double copies =
      te && w.compute_dtype == DType::fp8 && te_fp8_single_copy(s.c.gpu, fp8_recipe_of(w)) ? 1.0 : 2.0;
  for (const Gemm& g : gemms) {
    // Y = X·W (M×N, inner K); input gradient dX = dY·Wᵀ (M×K, inner N); weight gradient
    // dW = Xᵀ·dY (K×N, inner M): the same FLOPs, different shapes (a small M slows the W-GEMM).
    const bool low = fp8 && g.name != "moe: router";
    ops.push_back({g.name, 2 * g.count * g.m * g.n * g.k, g.count * e * (g.m * g.k + g.k * g.n + g.m * g.n),
                   g.count * r.gemm_s(g.m, g.n, g.k, low), g.count * r.gemm_s(g.m, g.k, g.n, low),
                   g.count * r.gemm_s(g.k, g.n, g.m, low), false});
    ops.back().op_sac_share = g.op_sac_share;
    ops.back().recomputed_by = g.recomputed_by;
    // One module call (an autograd Function) per linear in each pass, launching its GEMMs:
    // forward `count`, backward the input- and weight-gradient GEMMs of each (2 · count); under
    // FP8 a cast of its input (forward) and of the output gradient (backward) per GEMM.
    const bool expert = g.name.rfind("moe: experts", 0) == 0;
    set_host_time(ops.back(), {1, g.count - 1 + (low ? g.count : 0), 1, 2 * g.count - 1 + (low ? g.count : 0)},
                  s.c.efficiency,
                  s.graphs && !(s.moe_eager && (expert || (g.name == "moe: router" && !s.graph_router))));
    if (low) {
      // Transformer Engine's FP8 GEMMs take FP8 operands in the TN layout on Hopper, so each one
      // costs memory-bound cast kernels around it: forward, the input is cast and transposed for
      // the weight gradient (read 2 bytes, write 1 + 1: cast_transpose in
      // transformer_engine/common/transpose/cast_transpose.cu), the weight likewise; backward, the
      // output gradient (read 2, write 1 + 1); `copies` above says where one copy does. The amax
      // of each cast is computed inside the same kernel (delayed scaling), so it adds no traffic.
      // NVFP4 writes half a byte and its block scales per element into each copy (the weight
      // gradient's operands through a 16-point Hadamard transform fused into the cast:
      // memory-bound all the same).
      const double cast = 2 + copies * r.low_operand_bytes + (amax_pass ? e : 0.0);
      casts.forward_bytes += g.count * cast * (g.m * g.k + g.k * g.n * weight_casts_per_micro_batch);
      // A recomputed GEMM casts its input again (its weight's FP8 copy is cached).
      if (g.recomputed_by != 0) casts.recomputed_bytes.push_back({g.recomputed_by, g.count * cast * g.m * g.k});
      casts.backward_bytes += g.count * cast * g.m * g.n;
    }
  }
  return casts;
}

// An MoE layer's routing and its token dispatch and combine (the all-to-alls are communication).
void moe_operations(std::vector<OperationCost>& ops, const LayerScope& s, const LayerGemms& g) {
  const ModelSpec& m = s.c.model;
  const Layout& l = s.c.layout;
  const Rates& r = s.r;
  const double tokens = s.tokens, h = s.h, e = s.e;
  const auto experts = static_cast<double>(m.moe.num_experts);
  // Routing (Megatron-Core megatron/core/transformer/moe/router.py TopKRouter and moe_utils.py
  // topk_softmax_with_capacity, switch_load_balancing_loss_func): softmax of the fp32 logits
  // (read, write), top-k (read), the routing map and the probabilities scattered (write 2), the
  // load-balancing loss's sums (read); about ten ops forward, eight backward.
  const double routing_bytes = tokens * experts * 4 * 6;
  ops.push_back({"moe: routing (softmax, top-k, load-balancing loss)", 0.0, routing_bytes, r.memory_s(routing_bytes),
                 r.memory_s(routing_bytes), 0.0, recompute_bits::moe});
  ops.back().op_sac_share = 1;  // element-wise: not saved by the op-level SAC
  set_host_time(ops.back(), {10, 0, 8, 0}, s.c.efficiency, s.graph_router || (s.graphs && !s.moe_eager));
  // Token dispatch and combine (MoEAlltoAllTokenDispatcher, token_dispatcher.py; permute,
  // sort_chunks_by_idxs and unpermute in moe_utils.py): permutation 1 gathers each token's k
  // copies (read and write the routed rows), permutation 2 sorts the received rows by local
  // expert (read, write; with EP and more than one local expert), and the combine runs both
  // back (read, write; then read the rows and write the probability-weighted sum per token).
  // The backward moves the gradients through the same gathers and scatters. Dispatch:
  // preprocess (token counts, their all-gather and the device-to-host copy of the splits, a
  // synchronisation), the permutations, the all-to-alls of tokens and probabilities, the
  // combine: about 22 ops forward, 12 backward. Of the forward's, the preprocess launches 8
  // (MoEAlltoAllTokenDispatcher.preprocess: the per-expert counts and their dtype, the input
  // splits, the all-gather of the counts, the local experts' slice, and three sums), which a
  // moe_preprocess graph replays.
  const bool sort = g.local_experts > 1 && l.ep > 1;
  const double rows = g.routed * h * e;
  const double permute_bytes = (sort ? 7 : 3) * rows + tokens / s.sp_div * h * e;
  ops.push_back({"moe: token permutation and unpermutation", 0.0, permute_bytes, r.memory_s(permute_bytes),
                 r.memory_s(permute_bytes), 0.0, recompute_bits::moe});
  set_host_time(ops.back(), {22.0 - (s.graph_router ? 8.0 : 0.0), 0, 12, 0}, s.c.efficiency, s.graphs && !s.moe_eager);
}

// The attention core (QKᵀ and A·V, FlashAttention's kernel or the stored scores' softmax and
// dropout), and under PyTorch's context_parallel its ring steps' fp32 merges.
void attention_operations(std::vector<OperationCost>& ops, const LayerScope& s) {
  const ModelSpec& m = s.c.model;
  const Layout& l = s.c.layout;
  const TrainingWorkload& w = s.c.workload;
  const Rates& r = s.r;
  const double tokens = s.tokens, tp = s.tp, e = s.e;
  // QK^T and A·V, 2·ctx·heads·(d_qk + d_v) per token; causal halves ctx, a sliding layer's window
  // caps it (ModelSpec::mean_attended_keys).
  double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.head_dim);
  if (m.mla.enabled()) {
    qk = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    v = static_cast<double>(m.mla.v_head_dim);
  }
  const double ctx = m.mean_attended_keys(s.layer, static_cast<double>(w.seq_len), w.causal);
  const double attention_flops = tokens * 2.0 * ctx * static_cast<double>(m.num_heads) / tp * (qk + v);
  double attention_forward, attention_backward;
  double score_bytes = 0, score_backward_bytes = 0;  // traffic of stored scores (softmax, dropout)
  if (w.flash_attention) {
    AttentionCall call = attention_call(m, w, l);
    // A sliding layer's query block meets at most two key blocks of a window's length: the kernel
    // runs as on a causal call of twice the window (its masked diagonal blocks included).
    if (m.is_sliding_layer(s.layer))
      call.sequence = std::min(call.sequence, 2.0 * static_cast<double>(m.sliding_window));
    const AttentionCoreRates core =
        attention_core_rates(s.c.gpu, w, s.c.efficiency, call.sequence, call.head_dim, r.attention_peak);
    attention_forward = attention_flops / core.forward_flops_per_s;
    // FlashAttention backward: 2× the forward GEMMs plus the recomputed scores (2.5×).
    attention_backward = 2.5 * attention_flops / core.backward_flops_per_s;
  } else {
    attention_forward = attention_flops / (r.attention_peak * s.c.efficiency.attention_unfused);
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
  // The attention core is what selective recompute repeats (with its score traffic).
  ops.push_back({w.flash_attention ? "attention: core (FlashAttention)" : "attention: scores, softmax, A·V",
                 attention_flops, score_bytes, attention_forward + r.memory_s(score_bytes),
                 attention_backward + r.memory_s(score_backward_bytes), 0.0, recompute_bits::core_attn});
  // FlashAttention: one kernel forward; backward the main kernel and FlashAttention-2's two
  // helpers (the dO·O row sums before, the dQ conversion after). Unfused: QKᵀ, softmax, dropout,
  // A·V forward, twice that backward.
  ops.back().attention_core = true;
  set_host_time(ops.back(), w.flash_attention ? Dispatch{1, 0, 1, 2} : Dispatch{4, 0, 8, 0}, s.c.efficiency, s.graphs);
  if (l.cp > 1 && resolved_cp_comm(w) == CpComm::torch) {
    // PyTorch's context_parallel (cp_comm=torch; torch/distributed/tensor/experimental/
    // _attention.py, _templated_ring_attention, _SDPAMerger, _templated_ring_attention_backward):
    // one SDPA call per ring step, each merged into the running output in fp32, and the backward's
    // fp32 gradient accumulators passed around the ring. Memory-bound traffic in units of O, the
    // rank's attention output in the activation dtype (K and V are as large: torchtitan repeats them
    // to the query heads before SDPA), for the busiest rank — the last, whose every step after the
    // first runs the whole local query block:
    //   forward: the first block's output cast to fp32 (read O, write 2O); per later step the K/V
    //   concatenation for the exchange (4O; none after the last), the block's cast (3O) and the
    //   merge out − sigmoid(lse_b − lse)·(out − out_b) (three fp32 passes, 16O); the result cast
    //   back (3O): (23(cp−1) + 6)·O.
    //   backward: three fp32 zero accumulators (6O); per step the K/V concatenation (4O; none on
    //   the last), dK and dV added into their fp32 accumulators (10O at the first step; 13O at the
    //   later ones, each half-block update concatenated back), the fp32 dK/dV concatenation for
    //   the exchange (8O) and dQ's accumulation (5O); the casts back (9O): (30(cp−1) + 38)·O.
    const auto cp = static_cast<double>(l.cp);
    const double o = tokens * static_cast<double>(m.attention_output_width()) / tp * e;
    const double merge_forward = (23 * (cp - 1) + 6) * o, merge_backward = (30 * (cp - 1) + 38) * o;
    ops.push_back({"attention: ring-attention merges (PyTorch context parallel, fp32)", 0.0, merge_forward,
                   r.memory_s(merge_forward), r.memory_s(merge_backward), 0.0, recompute_bits::core_attn});
    // Per step about seven framework ops forward (the concatenation, the SDPA call, the cast, the
    // merge's four) and eight backward; the recomputation of each is the attention core's.
    set_host_time(ops.back(), {7 * (cp - 1) + 2, 0, 8 * cp + 6, 0}, s.c.efficiency, false);
  }
}

// The memory-bound element-wise kernels (norms, residuals, the activation, RoPE) as one operation,
// with the parts of them that selective recompute's modules run again.
void elementwise_operation(std::vector<OperationCost>& ops, const LayerScope& s, const LayerGemms& g) {
  const ModelSpec& m = s.c.model;
  const TrainingWorkload& w = s.c.workload;
  const Rates& r = s.r;
  const double tokens = s.tokens, tp = s.tp, sp_div = s.sp_div, h = s.h, e = s.e;
  // Element-wise traffic per token, counting the tensors each kernel reads and writes (PyTorch's
  // autograd formulas; Korthikanti et al. 2022 Table 4 measures the per-layer result):
  //   forward: two norms (read x, write y), two residual/bias/dropout adds (read 2, write 1), the
  //   activation (gated: read 2, write 1; plain: read 1, write 1), RoPE on Q and K (read, write);
  //   backward: each norm reads x and dy and writes dx (3), each add passes its gradient on and
  //   the residual branch's is accumulated (read 2, write 1), the activation reads its inputs and
  //   dy and writes the input gradients (gated: 5, plain: 3), RoPE rotates the gradients back (2).
  const double ffn_e = g.ffn_width_elementwise * e;
  const double rope =
      m.position == PositionKind::rotary ? 2.0 * static_cast<double>(m.q_width() + m.kv_width()) / tp * e : 0.0;
  const bool gated = m.mlp == MlpKind::gated;
  double per_token = (2 * 2 * h + 2 * 3 * h) * e / sp_div + (gated ? 3.0 : 2.0) * ffn_e + rope;
  double per_token_backward = (2 * 3 * h + 2 * 3 * h) * e / sp_div + (gated ? 5.0 : 3.0) * ffn_e + rope;
  if (w.eager_kernels) {
    // Eager PyTorch (kernels=eager: torchtitan without torch.compile) runs composites where the
    // counts above assume fused kernels. RMSNorm (aten/src/ATen/native/layer_norm.cpp,
    // rms_norm_symint): upcast to fp32 (read e, write 4), pow (4, 4), mean (read 4), multiply by
    // the rsqrt (4, 4), type_as (4, e), times the weight (e, e): 28 + 4e bytes per element
    // against the fused 2e; its autograd (tools/autograd/derivatives.yaml) through the same ops:
    // the weight product (6e), type_as (e + 4), the rsqrt product (8 + 16 with its row sums), pow
    // (12), the two input-gradient paths summed (12), the upcast (4 + e): 56 + 8e against 3e.
    // RoPE (torchtitan apply_rotary_emb: float(), view_as_complex, a complex multiply,
    // view_as_real, type_as): 16 + 2e per element each way against 2e. SwiGLU's backward
    // (silu's, then the product's two gradients): 9 tensors against 5. LayerNorm is one native
    // kernel eagerly too.
    const double f32 = 4;
    if (m.norm == NormKind::rmsnorm) {
      per_token += 2 * (28 + 4 * e - 2 * e) * h / sp_div;
      per_token_backward += 2 * (56 + 8 * e - 3 * e) * h / sp_div;
    }
    if (m.position == PositionKind::rotary) {
      const double rotated = static_cast<double>(m.q_width() + m.kv_width()) / tp;
      per_token += (4 * f32 + 2 * e - 2 * e) * rotated;
      per_token_backward += (4 * f32 + 2 * e - 2 * e) * rotated;
    }
    if (gated) per_token_backward += 4 * ffn_e;
  }
  const double elementwise_forward = r.memory_s(per_token * tokens);
  const double elementwise_backward = r.memory_s(per_token_backward * tokens);
  ops.push_back({"element-wise: norms, residuals, activation, RoPE", 0.0, per_token * tokens, elementwise_forward,
                 elementwise_backward, 0.0, 0});
  ops.back().op_sac_share = 1;  // not saved by the op-level SAC
  {
    // The parts of these kernels that selective recompute modules run again (fused kernels' traffic
    // as above): a norm that is a module of its own (layernorm: MLA's input norm, an MoE layer's
    // pre-MLP norm; Megatron-Core's TE layer spec fuses the others into the next linear, which
    // runs a dense layer's pre-MLP norm again with its MLP), the activation with its MLP, the
    // experts' under moe_act as well, and MLA's RoPE with its up-projections.
    auto& parts = ops.back().recomputed_parts;
    const double norm = r.memory_s(2 * h * e / sp_div * tokens);
    if (m.mla.enabled()) parts.push_back({recompute_bits::layernorm, norm});
    parts.push_back({s.moe_layer ? recompute_bits::layernorm : recompute_bits::mlp, norm});
    const double activation_per_width = (gated ? 3.0 : 2.0) * e * tokens;
    if (s.moe_layer) {
      parts.push_back(
          {recompute_bits::moe_act | recompute_bits::moe, r.memory_s(activation_per_width * g.expert_ffn_width)});
      if (g.ffn_width_elementwise > g.expert_ffn_width)
        parts.push_back({recompute_bits::shared_experts | recompute_bits::moe,
                         r.memory_s(activation_per_width * (g.ffn_width_elementwise - g.expert_ffn_width))});
    } else {
      parts.push_back({recompute_bits::mlp, r.memory_s(activation_per_width * g.ffn_width_elementwise)});
    }
    if (m.mla.enabled() && rope > 0) parts.push_back({recompute_bits::mla_up_proj, r.memory_s(rope * tokens)});
  }
  // Two norms, two residual adds, the activation, RoPE on Q and on K; as many backward, with the
  // residual branch's gradient accumulations. Eager composites: six ops per RMSNorm (ten
  // backward), five per rotation (three backward), silu and the product.
  set_host_time(ops.back(), w.eager_kernels ? Dispatch{26, 0, 31, 0} : Dispatch{7, 0, 9, 0}, s.c.efficiency,
                s.graphs && !s.moe_eager);
}

// The low-precision recipe's casts, transposes and amax passes as one operation. They are kernels
// of the GEMM modules' calls: their host time is counted with the GEMMs.
void cast_operation(std::vector<OperationCost>& ops, const LayerScope& s, const LowPrecisionCasts& casts) {
  const Rates& r = s.r;
  ops.push_back({std::string(s.c.workload.compute_dtype == DType::fp4 ? "fp4" : "fp8") +
                     ": casts, transposes and amax around the low-precision GEMMs",
                 0.0, casts.forward_bytes, r.memory_s(casts.forward_bytes), r.memory_s(casts.backward_bytes), 0.0, 0});
  for (const auto& [modules, bytes] : casts.recomputed_bytes)
    ops.back().recomputed_parts.push_back({modules, r.memory_s(bytes)});
}

}  // namespace

// The layer's operations in order: its GEMMs, an MoE layer's routing and dispatch, the attention
// core, the element-wise kernels and the low-precision casts.
std::vector<OperationCost> layer_operations(const ComputeContext& c, int64_t layer) {
  const LayerScope scope = layer_scope(c, layer);
  const LayerGemms gemms = layer_gemms(scope);
  std::vector<OperationCost> ops;
  ops.reserve(gemms.gemms.size() + 4);
  const LowPrecisionCasts casts = gemm_operations(ops, scope, gemms.gemms);
  if (scope.moe_layer) moe_operations(ops, scope, gemms);
  attention_operations(ops, scope);
  elementwise_operation(ops, scope, gemms);
  if (fp8_linears(c.workload)) cast_operation(ops, scope, casts);
  return ops;
}

double recompute_forward_s(const OperationCost& op, uint32_t modules) {
  if ((op.recomputed_by & modules) != 0) return op.forward_s;
  double s = 0;
  for (const auto& part : op.recomputed_parts)
    if ((part.recomputed_by & modules) != 0) s += part.forward_s;
  return s;
}

WorkTime layer_compute(const ComputeContext& c, int64_t layer, bool recompute_fully) {
  WorkTime t;
  double selective = 0, host_forward = 0, host_backward = 0, op_sac = 0;
  for (const OperationCost& op : layer_operations(c, layer)) {
    t.forward_s += op.forward_s;
    t.backward_input_s += op.backward_input_s;
    t.backward_weight_s += op.backward_weight_s;
    t.forward_flops += op.flops;
    host_forward += op.host_forward_s;
    host_backward += op.host_backward_s;
    if (op.attention_core) {
      t.attention_forward_s += op.forward_s;
      t.attention_backward_s += op.backward_input_s;
    }
    selective += recompute_forward_s(op, c.workload.recompute_modules);
    op_sac += op.op_sac_share * op.forward_s;  // torchtitan's op-level SAC (layer_operations)
  }
  // A pass over the layer takes the longer of its GPU work and the host's dispatch of it: the
  // host runs ahead of the GPU only until a synchronisation, and a dropless MoE layer has one in
  // every forward (the device-to-host copy of the token splits before the all-to-all,
  // token_dispatcher.py); for a dense layer the max over one layer equals the max over the
  // identical layers of a stage. (Host-bound only for small layers or micro-batches.)
  t.forward_s = std::max(t.forward_s, host_forward);
  if (const double gpu_backward = t.backward_input_s + t.backward_weight_s;
      host_backward > gpu_backward && gpu_backward > 0) {
    t.backward_input_s *= host_backward / gpu_backward;
    t.backward_weight_s *= host_backward / gpu_backward;
  }
  if (recompute_fully || c.workload.recompute == RecomputeMode::full) {
    t.recompute_s = t.forward_s;
  } else if (c.workload.recompute == RecomputeMode::selective) {
    t.recompute_s = selective;
  } else if (c.workload.recompute == RecomputeMode::op) {
    t.recompute_s = op_sac;
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

WorkTime mtp_extra_compute(const ComputeContext& c) {
  const Rates r = rates(c);
  const double tokens = static_cast<double>(c.workload.seq_len) * static_cast<double>(c.layout.micro_batch) /
                        static_cast<double>(c.layout.cp);
  const auto h = static_cast<double>(c.model.hidden_size);
  const double out = h / static_cast<double>(c.layout.tp);
  const double e = dtype_bytes(c.workload.activation_dtype);
  WorkTime t = embedding_compute(c);
  t += head_compute(c);
  // eh_proj: [tokens × 2h] · [2h × h/tp] in the recipe's GEMM dtype, forward, input and weight gradients.
  const bool low = fp8_linears(c.workload);
  t.forward_s += r.gemm_s(tokens, out, 2 * h, low);
  t.backward_input_s += r.gemm_s(tokens, 2 * h, out, low);
  t.backward_weight_s += r.gemm_s(2 * h, out, tokens, low);
  t.forward_flops += 2 * tokens * out * 2 * h;
  // The two RMSNorms (read, write) and the concatenation (read 2h, write 2h); backward about 1.5×.
  const double bytes = tokens * h * e * (2 * 2 + 4);
  t.forward_bytes += bytes;
  t.forward_s += r.memory_s(bytes);
  t.backward_input_s += r.memory_s(1.5 * bytes);
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
  // Memory-bound: Rates::memory_s's rate, without building the GEMM rates it does not use (the
  // layout search's fast model calls this for every candidate).
  return optimizer_step_bytes(c, params_on_rank, shard) / (c.gpu.memory_bandwidth_bytes_per_s * c.efficiency.memory);
}

}  // namespace meshscope
