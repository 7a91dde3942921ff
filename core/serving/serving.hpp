#pragma once
// The serving model: the time of one engine iteration (prefill chunks and decode steps batched
// together) for a serving layout on a cluster, and from it TTFT, ITL, end-to-end latency and
// output tokens/s for a traffic shape; the throughput–latency curve as concurrency grows with the
// binding resource named at each point; disaggregated prefill/decode with the KV transfer between
// them; the offline (all requests queued) run of an engine with a batch limit; and the ranking of
// every serving layout of a cluster at a latency target. docs/serving.md gives every formula and
// its source.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/comm/collective.hpp"
#include "core/estimate/compute.hpp"
#include "core/hardware/hardware.hpp"
#include "core/keys/options.hpp"
#include "core/memory/memory.hpp"
#include "core/model/model.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

// What limits an operating point. The first four are the time buckets of an iteration (the
// largest names the point); the others are limits on how many sequences can run at once.
enum class ServingBinding {
  compute,           // tensor-core throughput (GEMMs, attention of long prompts)
  memory_bandwidth,  // HBM reads of the weights and the KV cache (decode)
  communication,     // TP all-reduces, EP all-to-alls, PP sends
  overhead,          // the engine's per-iteration CPU work (scheduling, sampling, launches)
  kv_capacity,       // the KV cache holds no more sequences
  batch_limit,       // the engine's max batch size
  token_budget,      // the engine's tokens per iteration (prefill waits for room)
};

template <>
struct EnumNames<ServingBinding> {
  static constexpr std::array<std::pair<ServingBinding, std::string_view>, 7> table{
      {{ServingBinding::compute, "compute"},
       {ServingBinding::memory_bandwidth, "memory bandwidth"},
       {ServingBinding::communication, "communication"},
       {ServingBinding::overhead, "scheduling overhead"},
       {ServingBinding::kv_capacity, "KV capacity"},
       {ServingBinding::batch_limit, "engine batch limit"},
       {ServingBinding::token_budget, "token budget"}}};
};
[[nodiscard]] std::string_view serving_binding_name(ServingBinding binding);

// Head/KV/FFN/expert splits (validate_serving_layout), EP dividing tp × dp, dense models without
// dp/ep, and the deployment fitting the cluster (cluster_gpus ≤ 0: not checked).
[[nodiscard]] std::vector<LayoutProblem> validate_serving(const ModelSpec& model, const ServingLayout& layout,
                                                          int64_t cluster_gpus = 0);

// The traffic beyond ServingWorkload's fixed prompt/output lengths and concurrency.
struct ServingTraffic {
  // Lengths uniform in [mean − spread, mean + spread] (0: fixed at the workload's prompt/output).
  double prompt_spread = 0;
  double output_spread = 0;
  // Requests per second to the whole deployment (open loop); 0: closed loop, `concurrency`
  // sequences in flight per replica.
  double arrival_rate_per_s = 0;
  // Offline run: this many requests queued at t = 0 (trtllm-bench throughput); 0: steady state.
  int64_t num_requests = 0;
};

struct ServingRequestKeys {
  ServingWorkload workload;
  ServingTraffic traffic;
};
// serving_from_keys' keys plus prompt_spread, output_spread, arrival_rate, requests.
[[nodiscard]] Result<ServingRequestKeys> serving_request_from_keys(const KeyValues& keys,
                                                                   const ServingWorkload& base = {});

// The engine's scheduler and its constants (docs/serving.md §5).
struct ServingEngine {
  // Per scheduled batch: an instance runs dp × pp of them (one scheduler per attention-DP rank,
  // one batch per pipeline micro-batch).
  int64_t max_batch = 0;       // sequences per iteration; 0: only the KV cache limits it
  int64_t max_num_tokens = 0;  // tokens per iteration; 0: the workload's max_batched_tokens
  // Chunked prefill (vLLM V1, Sarathi-Serve): a prompt longer than the room left in an iteration
  // is split over iterations. Without it a prompt enters whole (trtllm-bench's default).
  bool chunked_prefill = true;
  // KV for prompt + output is reserved when a request is admitted (TensorRT-LLM's
  // GUARANTEED_NO_EVICT); false: the cache holds the average context, prompt + output/2.
  bool reserve_full_context = true;
  // CPU work per iteration and per scheduled sequence (scheduling, sampling, detokenisation,
  // launches): assumptions, docs/serving.md §5.
  double step_overhead_s = 1.0e-3;
  double sequence_overhead_s = 2.0e-6;
  // DeepEP's low-latency all-to-all (pure RDMA/NVLink puts, no NCCL algorithm latency) for
  // decode-only iterations of EP instances.
  bool low_latency_all_to_all = true;
  double low_latency_base_s = 10e-6;  // per dispatch or combine (assumption)
};
// Keys: max_batch, max_num_tokens, chunked_prefill, reserve_full_context, step_overhead_ms,
// sequence_overhead_us, low_latency_a2a.
[[nodiscard]] Result<ServingEngine> serving_engine_from_keys(const KeyValues& keys, ServingEngine base = {});

// The engine limits trtllm-bench derives when none are given (NVIDIA/TensorRT-LLM
// tensorrt_llm/bench/build/tuning.py calc_engine_setting + finetune_setting, and
// bench/benchmark/utils/general.py get_settings: chunked prefill off, so max_num_tokens is at
// least the prompt plus the batch): KV requests from (memory − weights) × kv_fraction, batch capped
// at 4096/pp and rounded up, tokens = batch × (1 + ISL/OSL) capped at 32768 and rounded up.
[[nodiscard]] ServingEngine trtllm_bench_engine(const ModelSpec& model, const ServingWorkload& workload,
                                                const ServingLayout& layout, const GpuSpec& gpu, double kv_fraction);

// The GEMM precision a checkpoint's weights run at: FP8 weights FP8 GEMMs (W8A8); NVFP4 weights FP4
// GEMMs (W4A4) where the GPU has FP4 tensor cores (Blackwell), else the activation dtype (dequantised,
// as vLLM's Marlin NVFP4 kernels on Hopper/Ampere); integer weights the activation dtype.
[[nodiscard]] DType low_precision_gemm_dtype(const ServingWorkload& workload, const GpuSpec& gpu);

struct ServingOptions {
  ComputeEfficiency efficiency;
  CommConstants comm = CommConstants::defaults();
  ServingEngine engine;
  AxisOrder order = AxisOrder::megatron;
};

// The work of one engine iteration of one instance, summed over its sequences.
struct StepBatch {
  double prefill_tokens = 0;    // prompt tokens processed (whole prompts or chunks)
  double prefill_prompts = 0;   // prompts (or chunks) among them
  double prefill_pairs = 0;     // Σ query tokens × mean causal context (s²/2 for a whole prompt)
  double decode_sequences = 0;  // sequences producing their next token
  double decode_context = 0;    // Σ their context lengths (KV tokens read)
  double sampled_tokens = 0;    // positions whose logits are computed (decodes + completed prompts)
};

struct StepCost {
  double time_s = 0;  // one token for every decoding sequence
  // The path of one micro-batch through every stage, by what bounds each operation (roofline).
  double compute_s = 0;
  double memory_s = 0;
  double communication_s = 0;
  double overhead_s = 0;
  double flops = 0;         // per GPU of the busiest stage
  double weight_bytes = 0;  // weights read per GPU
  double kv_bytes = 0;      // KV cache read per GPU
  ServingBinding binding = ServingBinding::compute;
};

// Everything size-independent about one instance, prepared once: shapes, bytes, memory, the
// collective models of its groups. Cheap to evaluate for many batches.
class ServingModel {
 public:
  // The instance's ranks sit on cluster.gpus[first_gpu ...]; the layout must be valid.
  [[nodiscard]] static Result<ServingModel> create(const ModelSpec& model, const ServingWorkload& workload,
                                                   const ServingLayout& layout, const Cluster& cluster,
                                                   const Router& router, const ServingOptions& options,
                                                   int64_t first_gpu = 0);

  [[nodiscard]] StepCost step(const StepBatch& batch) const;
  // A lone prompt of `prompt_tokens` (chunked by the token budget): its time to first token.
  [[nodiscard]] double prefill_s(double prompt_tokens) const;
  // A decode-only iteration of `sequences` sequences at mean context `context`.
  [[nodiscard]] StepCost decode_step(double sequences, double context) const;

  [[nodiscard]] int64_t kv_max_batch() const { return kv_max_batch_; }  // sequences per instance
  [[nodiscard]] int64_t max_batch() const;  // per instance: min(KV, engine limit × dp × pp)
  [[nodiscard]] double token_budget() const { return token_budget_; }  // tokens per iteration, instance
  [[nodiscard]] const MemoryBudget& memory() const { return memory_; }
  [[nodiscard]] const ServingLayout& layout() const { return layout_; }
  [[nodiscard]] const ServingWorkload& workload() const { return workload_; }
  [[nodiscard]] const ServingEngine& engine() const { return engine_; }
  [[nodiscard]] const GpuSpec& gpu() const { return gpu_; }
  // The rate large weight GEMMs of the checkpoint's GEMM dtype run at (FLOP/s): the GPU's measured
  // sustained rate (core/estimate/gemm_rate.hpp), or the --efficiency gemm share of its peak.
  [[nodiscard]] double gemm_rate() const { return gemm_rate_; }
  [[nodiscard]] bool weights_fit() const { return weights_fit_; }

 private:
  struct StageShape {
    int64_t dense_layers = 0;
    int64_t moe_layers = 0;
    bool first = false;
    bool last = false;
  };
  struct Acc;
  void layer_cost(const StepBatch& micro, bool moe, bool decode_only, Acc& acc) const;
  // The compute time of one rows×n×k GEMM at `rate` (FLOP/s for large shapes).
  [[nodiscard]] double gemm_s(double rows, double n, double k, double rate) const;

  ModelSpec model_;
  ServingWorkload workload_;
  ServingLayout layout_;
  ServingEngine engine_;
  ComputeEfficiency efficiency_;
  CommConstants comm_;
  GpuSpec gpu_;
  MemoryBudget memory_;
  std::vector<StageShape> stages_;
  // Sliding-window layers (ModelSpec::sliding_window) over the model's layers: the prefill's
  // (query, key) pairs and the decode's KV reads as a share of full attention's, at the workload's
  // prompt and mean decode context; 1 without a window.
  double prefill_window_share_ = 1;
  double decode_window_share_ = 1;
  int64_t kv_max_batch_ = 0;
  double token_budget_ = 0;
  bool weights_fit_ = true;
  double gemm_rate_ = 1, head_gemm_rate_ = 1, attention_peak_ = 1, bandwidth_ = 1;
  std::optional<CollectiveModel> tp_all_reduce_, tp_all_gather_, ep_all_to_all_, pp_send_;
  double low_latency_s_per_byte_ = 0;  // EP low-latency all-to-all: seconds per byte a rank sends
};

// One operating point of a replica.
struct ServingPoint {
  int64_t concurrency = 0;         // sequences in flight per replica (admitted or waiting)
  int64_t running = 0;             // of which the engine runs at once
  double output_tokens_per_s = 0;  // whole deployment
  double requests_per_s = 0;       // whole deployment
  double ttft_s = 0;
  double itl_s = 0;
  double e2e_latency_s = 0;
  ServingBinding binding = ServingBinding::compute;
  StepCost step;  // the mean steady-state iteration
};

struct ServingEstimate {
  ServingPoint point;  // at the traffic's concurrency or arrival rate
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  double output_tokens_per_s_per_replica = 0;
  int64_t max_batch = 0;          // per replica: min(KV capacity, engine limit)
  int64_t kv_max_batch = 0;       // per replica: what the KV cache holds
  double lone_prefill_s = 0;      // TTFT of one prompt on an idle instance
  double lone_decode_step_s = 0;  // ITL of one sequence on an idle instance
  bool overloaded = false;        // open loop: the arrival rate exceeds the capacity
  MemoryBudget memory;
  std::vector<ServingPoint> curve;  // concurrency 1, 2, 4, … up to the max batch
  std::vector<std::string> assumptions;
};

// The steady state of a replica at `concurrency` sequences in flight (closed loop).
[[nodiscard]] ServingPoint serving_point(const ServingModel& model, double prompt_mean, double prompt_square_mean,
                                         double output_mean, int64_t concurrency);

[[nodiscard]] Result<ServingEstimate> estimate_serving(const ModelSpec& model, const ServingWorkload& workload,
                                                       const ServingTraffic& traffic, const ServingLayout& layout,
                                                       const Cluster& cluster, const Router& router,
                                                       const ServingOptions& options = {});

// All requests queued at t = 0, the engine admitting them iteration by iteration (token budget,
// batch limit, KV reservation), every prompt/output of the workload's fixed lengths.
struct OfflineRun {
  int64_t requests = 0;
  int64_t iterations = 0;
  int64_t peak_batch = 0;
  double total_s = 0;
  double output_tokens_per_s = 0;  // one replica
  double mean_ttft_s = 0;
  double mean_itl_s = 0;
};
[[nodiscard]] OfflineRun simulate_offline(const ServingModel& model, int64_t num_requests);

// Disaggregated serving: prefill instances on the first GPUs, decode instances after them, the
// KV cache of each prompt sent between them over the cluster's route.
struct DisaggregatedLayout {
  ServingLayout prefill;
  ServingLayout decode;
  [[nodiscard]] int64_t gpus() const { return prefill.gpus() + decode.gpus(); }
};
struct DisaggregatedEstimate {
  double ttft_s = 0;  // prefill of the batch that holds the prompt + KV transfer
  double itl_s = 0;
  double e2e_latency_s = 0;
  double kv_transfer_s = 0;
  double kv_bytes_per_request = 0;
  double prefill_requests_per_s = 0;  // capacity of the prefill pool
  double decode_requests_per_s = 0;   // capacity of the decode pool at its batch
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  int64_t prefill_batch = 0;  // prompts per prefill iteration
  int64_t decode_batch = 0;   // sequences per decode instance
  std::string bound_by;       // "prefill pool" or "decode pool"
  ServingBinding binding = ServingBinding::compute;
};
// prefill_batch / decode_batch ≤ 0: the largest the engine and the KV cache allow.
[[nodiscard]] Result<DisaggregatedEstimate> estimate_disaggregated(
    const ModelSpec& model, const ServingWorkload& workload, const DisaggregatedLayout& layout, const Cluster& cluster,
    const Router& router, const ServingOptions& options = {}, int64_t prefill_batch = 0, int64_t decode_batch = 0);

// ---- "Replicas or sharding?" ---------------------------------------------------------------------

struct ServingTarget {
  double max_ttft_s = std::numeric_limits<double>::infinity();
  double max_itl_s = std::numeric_limits<double>::infinity();
};

struct RankedServing {
  bool disaggregated = false;
  ServingLayout layout;          // colocated; for disaggregated: the decode side
  ServingLayout prefill_layout;  // disaggregated only
  int64_t gpus_used = 0;
  int64_t concurrency = 0;  // colocated: per replica; disaggregated: decode batch per instance
  double ttft_s = 0;
  double itl_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  ServingBinding binding = ServingBinding::compute;
  std::string bound_by;  // disaggregated: which pool
};

struct ServingRankOptions {
  ServingOptions serving;
  int64_t top = 10;
  bool disaggregated = true;  // also try prefill/decode splits
  int64_t max_tp = 0;         // 0: GPUs per node
};

struct ServingRankResult {
  int64_t evaluated = 0;
  int64_t valid = 0;                        // meet the target
  std::map<std::string, int64_t> rejected;  // reason → count
  std::vector<RankedServing> layouts;       // best first, by output tokens/s per GPU
};

[[nodiscard]] Result<ServingRankResult> rank_serving_layouts(const ModelSpec& model, const ServingWorkload& workload,
                                                             const Cluster& cluster, const ServingTarget& target,
                                                             const ServingRankOptions& options = {});

// The GPU model of the cluster's first GPU, from the catalogue (H100 SXM if unknown).
[[nodiscard]] GpuSpec cluster_gpu(const Cluster& cluster);

}  // namespace meshscope
