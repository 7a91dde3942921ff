#pragma once
// Time of the work one rank does per micro-batch: every GEMM of a layer (split by TP/CP/EP),
// the attention core, the memory-bound element-wise kernels, the embedding and the LM head;
// forward, backward input gradients (B) and weight gradients (W) separately, and recomputation.
// Constants live in one documented, overridable table (ComputeEfficiency).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/hardware/hardware.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

// Achievable fractions of the datasheet peaks. GEMMs run at the GPU's measured rate (the
// catalogue's `gemm` block, core/estimate/gemm_rate.hpp); the others are assumptions (no
// measurement behind them), to be calibrated from profiler traces; docs/estimate.md explains each.
struct ComputeEfficiency {
  // Large dense GEMMs, share of the dense tensor-core peak of the compute dtype. Unset: the GPU's
  // measured sustained rate (resources/gpus.json; core/estimate/gemm_rate.hpp);
  // set (--efficiency gemm=…, a calibration): this share for every GPU. The size roll-off below
  // it is the GPU's measured one either way.
  std::optional<double> gemm;
  // Serving, and training on a GPU without a measured roll-off (no `compute_units` in its
  // catalogue entry): a GEMM of this many FLOPs reaches half of the rate, eff · F / (F + this).
  double gemm_half_flops = 2e9;
  // FlashAttention-2 (Dao 2023, §4.1): 50–73 % of peak forward, lower in backward on A100. The
  // generic shares: a GPU with measured rates for the workload's attention kernel (the catalogue's
  // `attention` block, attention_core_rates below) runs at those unless these keys are given.
  double attention_forward = 0.55;
  double attention_backward = 0.45;
  bool attention_shares_given = false;  // --efficiency attention_forward= or attention_backward= was set
  // Stored attention scores (no FlashAttention): the score GEMMs are batched small GEMMs.
  double attention_unfused = 0.5;
  // Memory-bound element-wise kernels (norms, activations, dropout, residuals, softmax,
  // optimizer), share of the HBM bandwidth.
  double memory = 0.7;
  // Host dispatch (PyTorch eager; docs/estimate.md "Host dispatch"): the CPU time between two
  // framework ops a layer issues from Python (dispatcher, autograd bookkeeping, the launch), and
  // the launch of each further kernel an op issues from C++ (Transformer Engine's grouped GEMMs
  // and multi-tensor casts). Measured on the shared profiler traces (tests/core/
  // test_host_dispatch.cpp): the median interval between consecutive launches on the issuing
  // thread of hta_rank0_ws16_A100-SXM4-80GB is 20 µs, the median cudaLaunchKernel 4 µs.
  double host_op_us = 20;
  double host_kernel_us = 4;
  bool host_costs_given = false;  // --efficiency host_op_us= or host_kernel_us= was set
  // The host CPU the costs above were scaled to (on_host_cpu); empty: the measured x86 costs.
  std::string host_cpu;
};

// How much longer a framework op takes on `cpu_name` (a cluster's CPU device name) than on the x86
// hosts the default host costs were measured on: NVIDIA Grace (Neoverse V2) 2.75 — TE issue #2053
// (NVIDIA/TransformerEngine, 2025-08-11) measured one torch.nn.Linear forward's CPU time at
// 37.08 µs on GB200 and 13.48 µs on DGX H100 (Xeon Platinum 8480C), with the same script, PyTorch
// and shapes (GH200: 33.17 µs, 2.46×). 1 for every other CPU: x86 hosts alike, as measured.
[[nodiscard]] double host_cpu_op_time_ratio(std::string_view cpu_name);

// `e` on the host `cpu_name`: the default host costs times host_cpu_op_time_ratio (costs given
// with --efficiency are the user's own host's and stay as given).
[[nodiscard]] ComputeEfficiency on_host_cpu(ComputeEfficiency e, std::string_view cpu_name);

// The share of the dense peak of `type` that large GEMMs reach on `gpu` under `efficiency`.
[[nodiscard]] double gemm_share_of_peak(const GpuSpec& gpu, DType type, const ComputeEfficiency& efficiency);
// The rate (FLOP/s) large GEMMs of `type` reach on `gpu`: gemm_share_of_peak × the dense peak.
[[nodiscard]] double gemm_rate_flops_per_s(const GpuSpec& gpu, DType type, const ComputeEfficiency& efficiency);
// Seconds of a GEMM of `flops` at `rate` for large shapes with the former size roll-off, half of the
// rate at `half_flops` FLOPs (GPUs without a measured roll-off; serving's decode GEMMs).
[[nodiscard]] double half_flops_gemm_s(double flops, double rate, double half_flops);

[[nodiscard]] Result<ComputeEfficiency> compute_efficiency_from_keys(const KeyValues& keys,
                                                                     ComputeEfficiency base = {});

// One attention kernel call: its length (the sequence, or under ring CP (p2p) one rank's chunk of it
// against another's, Megatron-Core/TE AttnFuncWithCPAndKVP2P; all-to-all CP attends the whole
// sequence) and its query/key head dim (MLA: the no-RoPE and RoPE parts together).
struct AttentionCall {
  double sequence = 0;
  double head_dim = 0;
};
[[nodiscard]] AttentionCall attention_call(const ModelSpec& model, const TrainingWorkload& workload,
                                           const Layout& layout);

// The FP8 recipe a workload runs: its fp8_recipe, or for `auto` current scaling under FSDP2
// (torchao's tensorwise float8) and delayed scaling otherwise (Megatron-LM's default).
[[nodiscard]] Fp8Recipe fp8_recipe_of(const TrainingWorkload& workload);

// The attention core's rates on one GPU (FLOP/s in the FlashAttention papers' convention) and where
// they come from.
struct AttentionCoreRates {
  double forward_flops_per_s = 0;
  double backward_flops_per_s = 0;
  std::string kernel;     // "flash2", "cudnn", "flash3"
  bool measured = false;  // false: the generic shares of the BF16 peak
  // Not measured, and a call shorter than the reference GPU's longest measurement: the generic
  // shares times the kernel's measured length roll-off there (attention_core_rates).
  bool length_scaled = false;
};
// The GPU whose measured attention rates give the length roll-off of GPUs without their own.
inline constexpr const char* kAttentionReferenceGpu = "h100-sxm";
// The kernel `workload.attention_kernel` names (automatic: cuDNN's on Hopper and newer NVIDIA GPUs,
// FlashAttention-2 before), at its measured rate on `gpu` for one kernel call's `sequence` length
// (linear in log2 of the length between the measured ones, held beyond them) and `head_dim`
// (linear between the measurements at 64 and 128, held outside them), times the GPU's sustained
// clock (its sustained / burst GEMM rate: the kernel benchmarks, like MAMF, run at the boost clock;
// a training step is power-saturated). With the shares given: the generic shares of `bf16_peak`;
// without a measurement: the generic shares times the kernel's length roll-off measured on
// kAttentionReferenceGpu (its rate at `sequence` over its rate at its longest measured call).
[[nodiscard]] AttentionCoreRates attention_core_rates(const GpuSpec& gpu, const TrainingWorkload& workload,
                                                      const ComputeEfficiency& efficiency, double sequence,
                                                      double head_dim, double bf16_peak);

struct WorkTime {
  double forward_s = 0;
  double backward_input_s = 0;   // B: gradients of the inputs (and the attention backward)
  double backward_weight_s = 0;  // W: gradients of the weights
  double recompute_s = 0;        // forward work repeated in the backward pass
  double forward_flops = 0;      // what the rank computes in forward (for checks and reports)
  double forward_bytes = 0;      // its forward HBM traffic (reports)
  // Of forward_s and backward_input_s: the attention core's kernels (what context parallelism's
  // exchanges can hide under).
  double attention_forward_s = 0;
  double attention_backward_s = 0;
  WorkTime& operator+=(const WorkTime& o) {
    forward_s += o.forward_s;
    backward_input_s += o.backward_input_s;
    backward_weight_s += o.backward_weight_s;
    recompute_s += o.recompute_s;
    forward_flops += o.forward_flops;
    forward_bytes += o.forward_bytes;
    attention_forward_s += o.attention_forward_s;
    attention_backward_s += o.attention_backward_s;
    return *this;
  }
};

struct ComputeContext {
  const ModelSpec& model;
  const TrainingWorkload& workload;
  const Layout& layout;
  const GpuSpec& gpu;
  const ComputeEfficiency& efficiency;
};

// One operation of a layer on one rank and micro-batch: what it computes and moves, and its time
// in forward, input-gradient and weight-gradient passes.
struct OperationCost {
  std::string name;  // "attention: QKV projection", "mlp: down projection", ...
  double flops = 0;  // forward
  double bytes = 0;  // forward HBM traffic (GEMM operands and result; element-wise reads and writes)
  double forward_s = 0;
  double backward_input_s = 0;
  double backward_weight_s = 0;
  // The selective recompute's modules that run the whole operation again in backward
  // (RecomputeModule bits; TrainingWorkload::recompute_modules), and parts of it that other
  // modules run again (the element-wise kernels of a norm or an activation; the casts of a
  // recomputed GEMM's input): recompute_forward_s sums what a module set repeats.
  uint32_t recomputed_by = 0;
  struct Part {
    uint32_t recomputed_by = 0;
    double forward_s = 0;
  };
  std::vector<Part> recomputed_parts{};
  // Host dispatch of the operation (ComputeEfficiency::host_op_us, host_kernel_us): forward and
  // backward (input and weight gradients together). Zero where CUDA graphs replay it.
  double host_forward_s = 0;
  double host_backward_s = 0;
  // The share of its forward torchtitan's op-level SAC (RecomputeMode::op) runs again in backward
  // (flops.hpp op_sac_recomputed_flops): the even-numbered matmuls and the element-wise ops.
  double op_sac_share = 0;
  bool attention_core = false;  // the attention core's kernels (WorkTime::attention_forward_s)
};
[[nodiscard]] std::vector<OperationCost> layer_operations(const ComputeContext& context, int64_t layer);
// The forward time of `op` that selective recompute with `modules` (RecomputeModule bits) runs again.
[[nodiscard]] double recompute_forward_s(const OperationCost& op, uint32_t modules);

// One transformer layer, one micro-batch, on one rank (no communication): the sum of its operations.
[[nodiscard]] WorkTime layer_compute(const ComputeContext& context, int64_t layer, bool recompute_fully);
// Embedding (first stage) and LM head with the loss (last stage).
[[nodiscard]] WorkTime embedding_compute(const ComputeContext& context);
[[nodiscard]] WorkTime head_compute(const ComputeContext& context);
// What one multi-token-prediction module adds besides its transformer block (DeepSeek-V3 §2.2,
// Megatron-Core multi_token_prediction.py): the embedding of the shifted tokens, the two RMSNorms
// and the 2h → h projection of their concatenation (eh_proj, column-parallel over TP), and its own
// pass through the shared LM head and the loss. The block itself is a layer_compute of the model's
// last layer.
[[nodiscard]] WorkTime mtp_extra_compute(const ComputeContext& context);
// The optimizer step over the rank's (sharded) parameters: memory-bound.
[[nodiscard]] double optimizer_step_s(const ComputeContext& context, double params_on_rank, int64_t shard);
// The HBM traffic of that step.
[[nodiscard]] double optimizer_step_bytes(const ComputeContext& context, double params_on_rank, int64_t shard);

// The dense peak the compute dtype runs at on this GPU (fp8 falls back to bf16/fp16 if absent).
[[nodiscard]] double compute_peak_flops(const GpuSpec& gpu, DType compute_dtype);
// Whether the GPU has tensor cores for a low-precision training recipe (fp8, nvfp4): an error
// naming the GPU and the precisions it has otherwise. The frameworks refuse rather than emulate:
// Transformer Engine runs FP8 from compute capability 8.9 (Ada, Hopper) and NVFP4 from 10.0
// (Blackwell), transformer_engine/pytorch/fp8.py check_fp8_support / check_nvfp4_support. The
// catalogue's dense peaks say which a GPU has (resources/gpus.json, from the vendors' datasheets).
[[nodiscard]] Result<bool> check_training_precision(const GpuSpec& gpu, DType compute_dtype);

}  // namespace meshscope
