#include "core/serving/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <string>

#include "core/estimate/gemm_rate.hpp"
#include "core/model/catalogue.hpp"

namespace meshscope {
namespace {

std::string format(const char* text, double a, double b = 0, double c = 0) {
  char buffer[320];
  std::snprintf(buffer, sizeof buffer, text, a, b, c);
  return buffer;
}

}  // namespace

DType low_precision_gemm_dtype(const ServingWorkload& w, const GpuSpec& gpu) {
  if (w.weight_dtype == DType::fp8) return DType::fp8;
  if (w.weight_dtype == DType::fp4 && gpu.peak_flops_per_s(DType::fp4)) return DType::fp4;
  return w.activation_dtype;
}

GpuSpec cluster_gpu(const Cluster& cluster) {
  auto gpu = find_gpu(cluster.gpus.empty() ? "h100-sxm" : cluster.device(cluster.gpus.front()).gpu_model);
  return gpu ? *gpu : *find_gpu("h100-sxm");
}

// ---- The prepared instance -------------------------------------------------------------------------

namespace {

// The collective model of the first group of an axis, every group of the axis loading the links.
std::optional<CollectiveModel> prepare_axis(const Cluster& cluster, const Router& router, const Placement& placement,
                                            MeshAxis axis, CollectiveOp op, const CommConstants& constants,
                                            int64_t first_gpu) {
  const AxisGroups* groups = placement.axis(axis);
  if (groups == nullptr || groups->groups.empty()) return std::nullopt;
  auto gpus_of = [&](const std::vector<int32_t>& ranks) {
    std::vector<DeviceId> gpus;
    gpus.reserve(ranks.size());
    for (const int32_t r : ranks) gpus.push_back(cluster.gpus[static_cast<size_t>(first_gpu + r)]);
    return gpus;
  };
  LinkLoad load(cluster.links.size());
  for (const auto& ranks : groups->groups) add_ring_flows(cluster, group_paths(router, gpus_of(ranks)), load);
  const GroupPaths first = group_paths(router, gpus_of(groups->groups.front()));
  return prepare_collective(router, first, op, constants, &load);
}

double evaluate(const std::optional<CollectiveModel>& model, double bytes, const CommConstants& constants) {
  if (!model || bytes <= 0) return 0;
  return evaluate_collective(*model, bytes, constants).time_s;
}

}  // namespace

Result<ServingModel> ServingModel::create(const ModelSpec& model, const ServingWorkload& workload,
                                          const ServingLayout& layout, const Cluster& cluster, const Router& router,
                                          const ServingOptions& options, int64_t first_gpu) {
  const auto problems = validate_serving(model, layout);
  if (!problems.empty())
    return make_error(ErrorCode::invalid_layout, "[" + problems.front().field + "] " + problems.front().message,
                      "--layout");
  if (first_gpu < 0 || first_gpu + layout.instance_gpus() > cluster.num_gpus())
    return make_error(ErrorCode::invalid_layout,
                      "the instance needs GPUs " + std::to_string(first_gpu) + "–" +
                          std::to_string(first_gpu + layout.instance_gpus() - 1) + " but the cluster has " +
                          std::to_string(cluster.num_gpus()),
                      "--layout");
  ServingModel s;
  s.model_ = model;
  s.workload_ = workload;
  s.layout_ = layout;
  s.engine_ = options.engine;
  s.efficiency_ = options.efficiency;
  s.comm_ = options.comm;
  s.gpu_ = cluster_gpu(cluster);
  if (s.engine_.max_num_tokens > 0) s.workload_.max_batched_tokens = s.engine_.max_num_tokens;
  // Engine limits hold per scheduled batch: every attention-DP rank runs its own scheduler (vLLM's
  // DP engine cores, SGLang's DP attention) and every pipeline micro-batch is one scheduled batch
  // (TensorRT-LLM and vLLM keep pp batches in flight).
  s.token_budget_ = static_cast<double>(std::max<int64_t>(s.workload_.max_batched_tokens, 1) * layout.dp * layout.pp);

  // Memory: the KV capacity with the decode batch's logits in the workspace.
  const Layout mesh = layout.mesh(model);
  ServingWorkload sizing = s.workload_;
  sizing.concurrency = std::max<int64_t>(s.engine_.max_batch * layout.pp, 1);
  const MemoryBudget sized = serving_memory(model, sizing, mesh, s.gpu_);
  double kv_sequences = static_cast<double>(sized.max_concurrency) * static_cast<double>(layout.dp);
  if (!s.engine_.reserve_full_context) {
    const auto prompt = static_cast<double>(s.workload_.prompt_len);
    const auto output = static_cast<double>(s.workload_.output_len);
    kv_sequences = std::floor(kv_sequences * (prompt + output) / (prompt + output / 2));
  }
  s.kv_max_batch_ = static_cast<int64_t>(kv_sequences);
  for (const RankMemory& rank : sized.ranks) {
    const double fixed =
        rank.total_bytes() - rank.bytes(MemoryCategory::kv_cache) - rank.bytes(MemoryCategory::allocator);
    if (fixed > sized.capacity_bytes * s.workload_.memory_fraction) s.weights_fit_ = false;
  }
  ServingWorkload shown = s.workload_;
  shown.concurrency = std::max<int64_t>(std::min<int64_t>(s.workload_.concurrency, s.max_batch()) / layout.dp, 1);
  s.memory_ = serving_memory(model, shown, mesh, s.gpu_);
  s.memory_.max_concurrency = s.kv_max_batch_;

  if (model.sliding_window > 0) {
    const auto prompt = static_cast<double>(s.workload_.prompt_len);
    const double mean_context = prompt + static_cast<double>(s.workload_.output_len) / 2;
    double keys = 0;
    for (int64_t layer = 0; layer < model.num_layers; ++layer) keys += model.mean_attended_keys(layer, prompt, true);
    if (prompt > 0) s.prefill_window_share_ = keys / static_cast<double>(model.num_layers) / (prompt / 2);
    if (mean_context > 0) s.decode_window_share_ = model.kv_resident_tokens(mean_context) / mean_context;
  }

  // Stages: dense and MoE layer counts.
  const auto counts = layers_per_stage(model, mesh);
  const auto firsts = first_layer_of_stage(model, mesh);
  for (size_t i = 0; i < counts.size(); ++i) {
    StageShape st;
    for (int64_t k = 0; k < counts[i]; ++k) (model.is_moe_layer(firsts[i] + k) ? st.moe_layers : st.dense_layers)++;
    st.first = i == 0;
    st.last = i + 1 == counts.size();
    s.stages_.push_back(st);
  }

  // Rates. FP8 checkpoints run FP8 GEMMs (W8A8, TensorRT-LLM/vLLM ModelOpt FP8); NVFP4 ones FP4
  // GEMMs (W4A4) on a GPU with FP4 tensor cores and elsewhere dequantised 16-bit GEMMs (vLLM's
  // Marlin NVFP4 kernels on Hopper/Ampere); int8/int4 are weight-only (AWQ/GPTQ kernels).
  const DType gemm_dtype = low_precision_gemm_dtype(workload, s.gpu_);
  // GEMMs at the GPU's measured sustained rate of their dtype, as in training (core/estimate/
  // gemm_rate.hpp: mamf.csv and the power-saturated MSMF); the LM head stays 16-bit.
  s.gemm_rate_ = gemm_rate_flops_per_s(s.gpu_, gemm_dtype, options.efficiency);
  s.head_gemm_rate_ = gemm_rate_flops_per_s(s.gpu_, workload.activation_dtype, options.efficiency);
  s.attention_peak_ = compute_peak_flops(s.gpu_, workload.activation_dtype);
  s.bandwidth_ = s.gpu_.memory_bandwidth_bytes_per_s * options.efficiency.memory;

  // Collectives of the instance's groups.
  MS_TRY(placement, place_layout(mesh, cluster, router, options.order));
  const CommConstants& c = options.comm;
  s.tp_all_reduce_ = prepare_axis(cluster, router, placement, MeshAxis::tp, CollectiveOp::all_reduce, c, first_gpu);
  s.tp_all_gather_ = prepare_axis(cluster, router, placement, MeshAxis::tp, CollectiveOp::all_gather, c, first_gpu);
  if (model.is_moe() && layout.ep > 1) {
    s.ep_all_to_all_ = prepare_axis(cluster, router, placement, MeshAxis::ep, CollectiveOp::all_to_all, c, first_gpu);
    // Low-latency kernels put every token straight to its expert's rank (NVLink inside a node,
    // RDMA across nodes, DeepEP #173): with uniform routing each peer gets 1/ep of the bytes, and
    // the peers behind one kind of route share its bandwidth.
    if (const AxisGroups* ep = placement.axis(MeshAxis::ep)) {
      const auto& ranks = ep->groups.front();
      const DeviceId self = cluster.gpus[static_cast<size_t>(first_gpu + ranks.front())];
      std::map<double, int64_t> peers_by_bandwidth;
      for (size_t i = 1; i < ranks.size(); ++i) {
        const Route route = router.route(self, cluster.gpus[static_cast<size_t>(first_gpu + ranks[i])]);
        if (!route.reachable || !route.bottleneck.valid()) continue;
        ++peers_by_bandwidth[route.bottleneck_bytes_per_s * c.efficiency(cluster.link(route.bottleneck).kind)];
      }
      for (const auto& [bandwidth, peers] : peers_by_bandwidth)
        s.low_latency_s_per_byte_ = std::max(
            s.low_latency_s_per_byte_, static_cast<double>(peers) / static_cast<double>(ranks.size()) / bandwidth);
    }
  }
  if (layout.pp > 1) {
    if (const AxisGroups* pp = placement.axis(MeshAxis::pp)) {
      const auto& ranks = pp->groups.front();
      const std::vector<DeviceId> pair = {cluster.gpus[static_cast<size_t>(first_gpu + ranks[0])],
                                          cluster.gpus[static_cast<size_t>(first_gpu + ranks[1])]};
      s.pp_send_ = prepare_collective(router, group_paths(router, pair), CollectiveOp::send_recv, c);
    }
  }
  return s;
}

int64_t ServingModel::max_batch() const {
  return engine_.max_batch > 0 ? std::min(engine_.max_batch * layout_.dp * layout_.pp, kv_max_batch_) : kv_max_batch_;
}

// Time of the operations of one rank, by what bounds each (roofline: max of its compute and its
// memory time), and what it moves.
struct ServingModel::Acc {
  double compute_s = 0, memory_s = 0, communication_s = 0;
  double flops = 0, weight_bytes = 0, kv_bytes = 0;
  void op(double compute, double memory) { (compute >= memory ? compute_s : memory_s) += std::max(compute, memory); }
  [[nodiscard]] double total() const { return compute_s + memory_s + communication_s; }
  void add(const Acc& o, double times) {
    compute_s += times * o.compute_s;
    memory_s += times * o.memory_s;
    communication_s += times * o.communication_s;
    flops += times * o.flops;
    weight_bytes += times * o.weight_bytes;
    kv_bytes += times * o.kv_bytes;
  }
};

double ServingModel::gemm_s(double rows, double n, double k, double rate) const {
  // The size roll-off stays the half-FLOPs one: XLA's measured tables (training's roll-off) start at
  // M = 256 rows, and a decode GEMM has as many rows as running sequences, down to one.
  return half_flops_gemm_s(2 * rows * n * k, rate, efficiency_.gemm_half_flops);
}

void ServingModel::layer_cost(const StepBatch& b, bool moe, bool decode_only, Acc& acc) const {
  const ModelSpec& m = model_;
  const auto tp = static_cast<double>(layout_.tp);
  const auto dp = static_cast<double>(layout_.dp);
  const auto h = static_cast<double>(m.hidden_size);
  const double e = dtype_bytes(workload_.activation_dtype);
  const double weight_bytes = workload_.weight_bytes_per_param();
  // Activations quantised for FP8 / NVFP4 GEMMs (NVFP4: half a byte and an E4M3 scale per 16).
  const DType gemm_dtype = low_precision_gemm_dtype(workload_, gpu_);
  const double input_bytes = gemm_dtype == DType::fp8 ? 1.0 : gemm_dtype == DType::fp4 ? 0.5 + 1.0 / 16.0 : e;
  const double tokens_instance = b.prefill_tokens + b.decode_sequences;
  const double t = tokens_instance / dp;  // this rank's tokens (attention, dense parts)
  if (t <= 0) return;
  const ComputeEfficiency& eff = efficiency_;
  auto gemm = [&](double rows, double n, double k, double per_weight, double count = 1.0) {
    const double flops = 2 * rows * n * k;
    if (flops <= 0 || count <= 0) return;
    const double memory = (n * k * per_weight + rows * k * input_bytes + rows * n * e) / bandwidth_;
    Acc one;
    one.op(gemm_s(rows, n, k, gemm_rate_), memory);
    one.flops = flops;
    one.weight_bytes = n * k * per_weight;
    acc.add(one, count);
  };

  // Attention projections (compute.cpp's shapes).
  double rope_width = 0;
  if (m.mla.enabled()) {
    const auto& a = m.mla;
    const auto heads = static_cast<double>(m.num_heads);
    const double q_out = heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim) / tp;
    if (a.q_lora_rank > 0) {
      gemm(t, static_cast<double>(a.q_lora_rank), h, weight_bytes);
      gemm(t, q_out, static_cast<double>(a.q_lora_rank), weight_bytes);
    } else {
      gemm(t, q_out, h, weight_bytes);
    }
    gemm(t, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), h, weight_bytes);
    gemm(t, heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim) / tp, static_cast<double>(a.kv_lora_rank),
         weight_bytes);
    gemm(t, h, heads * static_cast<double>(a.v_head_dim) / tp, weight_bytes);
    rope_width = heads * static_cast<double>(a.qk_rope_head_dim) / tp + static_cast<double>(a.qk_rope_head_dim);
  } else {
    gemm(t, static_cast<double>(m.q_width() + 2 * m.kv_width()) / tp, h, weight_bytes);
    gemm(t, h, static_cast<double>(m.q_width()) / tp, weight_bytes);
    rope_width = static_cast<double>(m.q_width() + m.kv_width()) / tp;
  }

  // Attention core. Prefill: FlashAttention at attention_forward of the 16-bit peak,
  // 2·heads·(d_qk + d_v) FLOPs per (query, key) pair. Decode: every sequence reads its KV cache
  // (FlashDecoding/paged attention is bandwidth-bound); MLA decodes in the absorbed form over the
  // latent (DeepSeek-V2 §2.1.2: W_UK into W_Q, W_UV into W_O).
  const double kv_element = dtype_bytes(workload_.kv_dtype);
  const auto heads_local = static_cast<double>(m.num_heads) / tp;
  double qk = static_cast<double>(m.head_dim), v = static_cast<double>(m.head_dim);
  double kv_per_token = 0, decode_width = 0;
  if (m.mla.enabled()) {
    qk = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    v = static_cast<double>(m.mla.v_head_dim);
    kv_per_token = static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * kv_element;
    decode_width = static_cast<double>(2 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
  } else {
    kv_per_token =
        2.0 * std::ceil(static_cast<double>(m.num_kv_heads) / tp) * static_cast<double>(m.head_dim) * kv_element;
    decode_width = qk + v;
  }
  if (b.prefill_pairs > 0) {
    const double flops = b.prefill_pairs * prefill_window_share_ / dp * 2.0 * heads_local * (qk + v);
    Acc one;
    one.op(flops / (attention_peak_ * eff.attention_forward), 0);
    one.flops = flops;
    acc.add(one, 1);
  }
  if (b.decode_context > 0) {
    const double context = b.decode_context * decode_window_share_ / dp;  // KV entries read
    const double flops = context * 2.0 * heads_local * decode_width;
    const double bytes = context * kv_per_token;
    Acc one;
    one.op(flops / (attention_peak_ * eff.attention_forward), bytes / bandwidth_);
    one.flops = flops;
    one.kv_bytes = bytes;
    acc.add(one, 1);
  }

  // MLP: dense, or router + routed experts + shared experts.
  const double gate = m.mlp == MlpKind::gated ? 2.0 : 1.0;
  double mlp_rows_width = 0;  // Σ rows × local FFN width (element-wise traffic of the activation)
  if (moe) {
    const auto experts = static_cast<double>(m.moe.num_experts);
    const auto k = static_cast<double>(m.moe.top_k);
    const auto ep = static_cast<double>(layout_.ep);
    const double f = static_cast<double>(m.moe.expert_ffn_hidden_size) / static_cast<double>(layout_.expert_tp());
    gemm(t, experts, h, e);  // router, kept in 16 bit
    // Balanced routing: every instance token picks k of E experts; this rank's ep group owns E/ep.
    // An expert is read once per iteration if at least one token picks it.
    const double routed = tokens_instance * k / ep;
    const double local = experts / ep;
    const double hit = local * (1.0 - std::pow(1.0 - k / experts, tokens_instance));
    if (hit > 0) {
      const double rows = routed / hit;
      gemm(rows, gate * f, h, weight_bytes, hit);
      gemm(rows, h, f, weight_bytes, hit);
    }
    mlp_rows_width += routed * f;
    if (m.moe.num_shared_experts > 0) {
      const double shared = static_cast<double>(m.moe.num_shared_experts * m.moe.shared_expert_ffn_hidden_size) / tp;
      gemm(t, gate * shared, h, weight_bytes);
      gemm(t, h, shared, weight_bytes);
      mlp_rows_width += t * shared;
    }
  } else {
    const double f = static_cast<double>(m.ffn_hidden_size) / tp;
    gemm(t, gate * f, h, weight_bytes);
    gemm(t, h, f, weight_bytes);
    mlp_rows_width += t * f;
  }

  // Element-wise kernels (compute.cpp's inventory): two norms, two residual adds, the activation,
  // RoPE on Q and K.
  {
    const double bytes = t * (2 * 2 * h + 2 * 3 * h) * e + (gate > 1 ? 3.0 : 2.0) * mlp_rows_width * e +
                         (m.position == PositionKind::rotary ? 2.0 * rope_width * t * e : 0.0);
    Acc one;
    one.op(0, bytes / bandwidth_);
    acc.add(one, 1);
  }

  // Communication. TP: an all-reduce after attention and after the MLP (SC21 §3.2), of this
  // rank's tokens; an EP MoE layer replaces the second by the combine. EP: dispatch (FP8 for FP8
  // checkpoints, as DeepEP does) and combine (16 bit) of every token's k copies, each rank
  // sending its 1/tp share of its tokens (DeepSeek-V3 §3.4; DeepEP).
  const bool expert_parallel = moe && layout_.ep > 1;
  const int tp_calls = layout_.tp > 1 ? (expert_parallel ? 1 : 2) : 0;
  acc.communication_s += tp_calls * evaluate(tp_all_reduce_, t * h * e, comm_);
  if (expert_parallel) {
    const double copies = tokens_instance * static_cast<double>(m.moe.top_k) / (tp * dp);
    // Low-precision checkpoints dispatch FP8 rows (DeepEP's formats are FP8 and BF16).
    const double dispatch = copies * h * (gemm_dtype != workload_.activation_dtype ? 1.0 : e);
    const double combine = copies * h * e;
    if (decode_only && engine_.low_latency_all_to_all && low_latency_s_per_byte_ > 0) {
      // DeepEP low-latency kernels: puts straight to each expert's rank, no NCCL algorithm latency.
      acc.communication_s += 2 * engine_.low_latency_base_s + (dispatch + combine) * low_latency_s_per_byte_;
    } else {
      acc.communication_s += evaluate(ep_all_to_all_, dispatch, comm_) + evaluate(ep_all_to_all_, combine, comm_);
    }
  }
}

StepCost ServingModel::step(const StepBatch& batch) const {
  const ModelSpec& m = model_;
  const auto pp = static_cast<double>(layout_.pp);
  const auto tp = static_cast<double>(layout_.tp);
  const auto dp = static_cast<double>(layout_.dp);
  const auto h = static_cast<double>(m.hidden_size);
  const double e = dtype_bytes(workload_.activation_dtype);
  // The engine splits the batch into up to pp micro-batches so that every stage is busy (vLLM
  // and TensorRT-LLM pipeline parallelism); one micro-batch passes every stage once per period.
  const double micro_batches = std::clamp(std::ceil(batch.decode_sequences + batch.prefill_prompts - 1e-9), 1.0, pp);
  StepBatch micro = batch;
  micro.prefill_tokens /= micro_batches;
  micro.prefill_prompts /= micro_batches;
  micro.prefill_pairs /= micro_batches;
  micro.decode_sequences /= micro_batches;
  micro.decode_context /= micro_batches;
  micro.sampled_tokens /= micro_batches;
  const bool decode_only = batch.prefill_tokens <= 0;
  Acc dense, moe;
  bool have_dense = false, have_moe = false;
  for (const auto& st : stages_) {
    have_dense = have_dense || st.dense_layers > 0;
    have_moe = have_moe || st.moe_layers > 0;
  }
  if (have_dense) layer_cost(micro, false, decode_only, dense);
  if (have_moe) layer_cost(micro, true, decode_only, moe);
  const double tokens = (micro.prefill_tokens + micro.decode_sequences) / dp;

  Acc path;
  double slowest_stage = 0;
  for (const auto& st : stages_) {
    Acc stage;
    stage.add(dense, static_cast<double>(st.dense_layers));
    stage.add(moe, static_cast<double>(st.moe_layers));
    if (st.first) {
      Acc embed;
      embed.op(0, 2 * tokens * h * e / bandwidth_);  // gather the rows, write the hidden states
      stage.add(embed, 1);
    }
    if (st.last && micro.sampled_tokens > 0) {
      // LM head (16-bit, vocabulary split over TP) only at sampled positions; the logits are
      // gathered over TP and read twice in fp32 by the sampler (softmax, top-k/top-p).
      const double rows = micro.sampled_tokens / dp;
      const double vocab = static_cast<double>(m.vocab_size);
      const double flops = 2 * rows * vocab / tp * h;
      Acc head;
      head.op(gemm_s(rows, vocab / tp, h, head_gemm_rate_),
              (vocab / tp * h * e + rows * h * e + rows * vocab / tp * e) / bandwidth_);
      head.flops = flops;
      head.weight_bytes = vocab / tp * h * e;
      head.op(0, rows * vocab * 4 * 2 / bandwidth_);
      head.communication_s += evaluate(tp_all_gather_, rows * vocab * e, comm_);
      stage.add(head, 1);
    }
    slowest_stage = std::max(slowest_stage, stage.total());
    path.add(stage, 1);
  }
  const double send = layout_.pp > 1 ? evaluate(pp_send_, tokens * h * e, comm_) : 0.0;
  path.communication_s += (pp - 1) * send;
  StepCost cost;
  const double period = layout_.pp > 1 ? std::max(micro_batches * (slowest_stage + send), path.total()) : path.total();
  // Each attention-DP rank schedules its own sequences (one engine process per DP rank).
  cost.overhead_s =
      engine_.step_overhead_s + engine_.sequence_overhead_s * (batch.decode_sequences + batch.prefill_prompts) / dp;
  cost.time_s = period + cost.overhead_s;
  cost.compute_s = path.compute_s;
  cost.memory_s = path.memory_s;
  cost.communication_s = path.communication_s;
  cost.flops = path.flops;
  cost.weight_bytes = path.weight_bytes;
  cost.kv_bytes = path.kv_bytes;
  const std::pair<double, ServingBinding> buckets[] = {{cost.compute_s, ServingBinding::compute},
                                                       {cost.memory_s, ServingBinding::memory_bandwidth},
                                                       {cost.communication_s, ServingBinding::communication},
                                                       {cost.overhead_s, ServingBinding::overhead}};
  cost.binding = std::max_element(std::begin(buckets), std::end(buckets), [](const auto& a, const auto& b) {
                   return a.first < b.first;
                 })->second;
  return cost;
}

double ServingModel::prefill_s(double prompt_tokens) const {
  // A prompt runs in one scheduled batch (one attention rank, one micro-batch).
  const double rank_budget = static_cast<double>(std::max<int64_t>(workload_.max_batched_tokens, 1));
  const double chunk = engine_.chunked_prefill ? rank_budget : std::max(rank_budget, prompt_tokens);
  double done = 0, time = 0;
  while (done < prompt_tokens) {
    const double c = std::min(chunk, prompt_tokens - done);
    StepBatch b;
    b.prefill_tokens = c;
    b.prefill_prompts = 1;
    b.prefill_pairs = c * (done + c / 2);
    done += c;
    b.sampled_tokens = done >= prompt_tokens ? 1 : 0;
    time += step(b).time_s;
  }
  return time;
}

StepCost ServingModel::decode_step(double sequences, double context) const {
  StepBatch b;
  b.decode_sequences = sequences;
  b.decode_context = sequences * context;
  b.sampled_tokens = sequences;
  return step(b);
}

// ---- Steady state ----------------------------------------------------------------------------------

namespace {

// The steady state of continuous batching with `n` sequences in flight (closed loop): per
// iteration r prompts start (r·Lp prefill tokens) and d = r·(Lo − 1) sequences decode; every
// sequence spends P prefill iterations and Lo − 1 decode iterations (Sarathi-Serve, vLLM V1).
ServingPoint steady_point(const ServingModel& s, double prompt, double prompt_square, double output, double n,
                          double arrival_wait_fraction) {
  ServingPoint point;
  point.concurrency = static_cast<int64_t>(std::llround(n));
  const auto max_batch = static_cast<double>(s.max_batch());
  const double running = std::min(n, max_batch);
  const double budget = s.token_budget();
  const auto schedulers = static_cast<double>(s.layout().dp * s.layout().pp);
  const bool chunked = s.engine().chunked_prefill;
  double prefill_iterations = 1, rate = 0, decoding = 0;
  bool budget_bound = false;
  for (int i = 0; i < 4; ++i) {
    rate = running / (prefill_iterations + output - 1);
    decoding = rate * (output - 1);
    const double room = std::max((budget - decoding) / schedulers, 1.0);  // per scheduled batch
    prefill_iterations = chunked ? std::max(1.0, std::ceil(prompt / room)) : 1.0;
  }
  if (rate * prompt + decoding > budget) {
    // The token budget binds: each iteration is full; prompts wait for room.
    budget_bound = true;
    rate = budget / (prompt + output - 1);
    decoding = rate * (output - 1);
  }
  StepBatch b;
  b.prefill_tokens = rate * prompt;
  b.prefill_prompts = rate;
  b.prefill_pairs = rate * prompt_square / 2;
  b.decode_sequences = decoding;
  b.decode_context = decoding * (prompt + output / 2);
  b.sampled_tokens = rate + decoding;
  point.step = s.step(b);
  const double t = point.step.time_s;
  point.itl_s = t;
  const double per_replica = rate * output / t;
  point.output_tokens_per_s = per_replica * static_cast<double>(s.layout().replicas);
  point.requests_per_s = rate / t * static_cast<double>(s.layout().replicas);
  // The iterations that hold a prompt carry the whole prompt (or its chunks) next to the decodes.
  StepBatch first = b;
  const double prompts = std::max(rate, 1.0);
  first.prefill_prompts = prompts;
  first.prefill_tokens = prompts * prompt / prefill_iterations;
  first.prefill_pairs = prompts * prompt_square / 2 / prefill_iterations;
  first.sampled_tokens = decoding + prompts / prefill_iterations;
  const double prompt_iteration = s.step(first).time_s;
  const double active = std::min(running, rate * (prefill_iterations + output - 1));
  const double waiting = std::max(n - active, 0.0);
  const double queue = waiting > 0 ? waiting / (rate / t) : 0.0;
  point.ttft_s = queue + prefill_iterations * prompt_iteration + arrival_wait_fraction * t;
  point.e2e_latency_s = point.ttft_s + (output - 1) * point.itl_s;
  point.running = static_cast<int64_t>(std::llround(active));
  if (n >= max_batch && max_batch > 0) {
    const bool kv = s.engine().max_batch <= 0 || s.kv_max_batch() <= s.engine().max_batch;
    point.binding = kv ? ServingBinding::kv_capacity : ServingBinding::batch_limit;
  } else if (budget_bound) {
    point.binding = ServingBinding::token_budget;
  } else {
    point.binding = point.step.binding;
  }
  return point;
}

double square_mean(double mean, double spread) {
  return mean * mean + spread * spread / 3.0;  // uniform on [mean − spread, mean + spread]
}

}  // namespace

ServingPoint serving_point(const ServingModel& model, double prompt_mean, double prompt_square_mean, double output_mean,
                           int64_t concurrency) {
  return steady_point(model, prompt_mean, prompt_square_mean, output_mean, static_cast<double>(concurrency), 0.0);
}

Result<ServingEstimate> estimate_serving(const ModelSpec& m, const ServingWorkload& w, const ServingTraffic& traffic,
                                         const ServingLayout& l, const Cluster& cluster, const Router& router,
                                         const ServingOptions& options) {
  const auto problems = validate_serving(m, l, cluster.num_gpus());
  if (!problems.empty()) {
    std::string message = "the serving layout is not valid for " + m.name + ":";
    for (const auto& p : problems) message += "\n  [" + p.field + "] " + p.message;
    return make_error(ErrorCode::invalid_layout, message, "--layout");
  }
  MS_TRY(s, ServingModel::create(m, w, l, cluster, router, options));
  if (!s.weights_fit())
    return make_error(ErrorCode::invalid_layout,
                      "the weights, workspace and runtime of one rank exceed " +
                          format("%.0f %% of the GPU's memory", 100 * w.memory_fraction),
                      "--layout");
  if (s.kv_max_batch() < 1)
    return make_error(ErrorCode::invalid_layout, "the KV cache cannot hold one sequence of prompt + output tokens",
                      "--serve");
  const auto prompt = static_cast<double>(w.prompt_len);
  const auto output = static_cast<double>(w.output_len);
  const double prompt_square = square_mean(prompt, traffic.prompt_spread);
  const auto replicas = static_cast<double>(l.replicas);

  ServingEstimate est;
  est.max_batch = s.max_batch();
  est.kv_max_batch = s.kv_max_batch();
  est.memory = s.memory();
  est.lone_prefill_s = s.prefill_s(prompt);
  est.lone_decode_step_s = s.decode_step(1, prompt + output / 2).time_s;
  const auto max_batch = static_cast<double>(est.max_batch);
  if (traffic.arrival_rate_per_s > 0) {
    // Open loop: the concurrency n at which the replica completes requests at λ/replicas
    // (Little's law, n = λ·E2E, follows); arrivals wait half an iteration on average.
    const double per_replica = traffic.arrival_rate_per_s / replicas;
    const ServingPoint full = steady_point(s, prompt, prompt_square, output, max_batch, 0.5);
    if (full.requests_per_s / replicas < per_replica) {
      est.overloaded = true;
      est.point = full;
    } else {
      double lo = 0, hi = max_batch;
      for (int i = 0; i < 60; ++i) {
        const double mid = (lo + hi) / 2;
        const ServingPoint p = steady_point(s, prompt, prompt_square, output, std::max(mid, 1e-6), 0.5);
        (p.requests_per_s / replicas < per_replica ? lo : hi) = mid;
      }
      est.point = steady_point(s, prompt, prompt_square, output, std::max(hi, 1e-6), 0.5);
    }
  } else {
    est.point = steady_point(s, prompt, prompt_square, output, static_cast<double>(w.concurrency), 0.0);
  }
  est.output_tokens_per_s = est.point.output_tokens_per_s;
  est.output_tokens_per_s_per_replica = est.output_tokens_per_s / replicas;
  est.output_tokens_per_s_per_gpu = est.output_tokens_per_s / static_cast<double>(l.gpus());
  for (int64_t n = 1; n < est.max_batch; n *= 2)
    est.curve.push_back(steady_point(s, prompt, prompt_square, output, static_cast<double>(n), 0.0));
  est.curve.push_back(steady_point(s, prompt, prompt_square, output, max_batch, 0.0));

  const ServingEngine& engine = s.engine();
  est.assumptions = {
      "continuous batching: every iteration runs the decodes of all running sequences plus " +
          std::string(engine.chunked_prefill ? "prompt chunks" : "whole prompts") + " up to " +
          format("%.0f tokens", s.token_budget()),
      format("engine CPU overhead %.3g ms per iteration + %.3g µs per scheduled sequence (assumption)",
             engine.step_overhead_s * 1e3, engine.sequence_overhead_s * 1e6),
      std::string("KV capacity reserves ") + (engine.reserve_full_context
                                                  ? "prompt + output per sequence (TensorRT-LLM GUARANTEED_NO_EVICT)"
                                                  : "the mean context, prompt + output/2"),
      format("GEMMs: roofline of FLOPs at %.0f TFLOP/s for large shapes (the GPU's measured sustained GEMM rate "
             "of the dtype; half of it at %.3g GFLOP) and weight/activation bytes at the memory efficiency; ",
             s.gemm_rate() / 1e12, options.efficiency.gemm_half_flops / 1e9) +
          std::string(low_precision_gemm_dtype(w, s.gpu()) == DType::fp8   ? "FP8 weights run FP8 GEMMs"
                      : low_precision_gemm_dtype(w, s.gpu()) == DType::fp4 ? "NVFP4 weights run FP4 GEMMs (W4A4)"
                      : w.weight_dtype == DType::fp4
                          ? "NVFP4 weights dequantised into 16-bit GEMMs (no FP4 tensor cores)"
                          : "16-bit GEMMs (integer weights dequantised)"),
      "decode attention reads every running sequence's KV cache at the memory efficiency",
      "communication is not overlapped with compute",
      "balanced expert routing; an expert's weights are read once per iteration if any token picks it",
  };
  if (traffic.prompt_spread > 0 || traffic.output_spread > 0)
    est.assumptions.emplace_back("length distributions: uniform; throughput uses the means, prefill attention E[s²]");
  if (est.overloaded)
    est.assumptions.push_back(format("overloaded: %.3g requests/s exceed the capacity; TTFT grows without bound",
                                     traffic.arrival_rate_per_s));
  return est;
}

}  // namespace meshscope
