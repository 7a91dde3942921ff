#pragma once
// One GPU model from the catalogue (resources/gpus.json), with the datasheet behind it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/hardware/dtype.hpp"

namespace meshscope {

// How fast this GPU's GEMMs run, from measurements (docs/estimate.md §1, "GEMM rate";
// core/estimate/gemm_rate.hpp evaluates it): the maximum achievable rate per dtype, and the
// roll-off below it for small or unevenly divided shapes.
struct GemmRateModel {
  // "bf16" → FLOP/s: the Maximum Achievable Matmul FLOPS of ../shared/fidelity/mamf.csv (the best
  // of a sweep over shapes), or another measurement named in `achievable_source`.
  std::map<std::string, double> achievable_flops_per_s;
  std::string achievable_source;
  // "bf16" → FLOP/s: the Maximum Sustainable Matmul FLOPS (the same finder, power-saturated at
  // TDP, "the rate that matches real training throughput"), where one was published.
  std::map<std::string, double> sustained_flops_per_s;
  // Without a sustained rate: sustained / burst as measured on the same die (0: none measured).
  double sustained_share_of_burst = 0;
  std::string sustained_source;
  // Roll-off, fitted to XLA's measured GEMM tables (scripts/fit_gemm_rolloff.py; `shape_source`):
  double compute_units = 0;    // SMs / CUs: one output tile per unit per wave (0: no wave model)
  double kernel_floor_s = 0;   // fixed time of one GEMM kernel (launch, prologue, epilogue)
  double k_half_elements = 0;  // 16-bit K at which a tile's main loop reaches half its rate
  double tile_128x128 = 1;     // rate of 128×128 tiles against 256×128 ones
  double tile_64x64 = 1;       // rate of 64×64 tiles
  double bandwidth_share = 1;  // of the HBM bandwidth, when a GEMM is memory-bound
  std::string shape_source;
  bool operator==(const GemmRateModel&) const = default;
};

// The measured throughput of one family of fused attention kernels on a GPU, BF16, in the
// FlashAttention papers' FLOP convention (forward 4·s·s_kv·d per head, halved under a causal mask;
// backward 2.5× the forward's): forward with a causal mask and backward at head dim 128, at each
// measured sequence length (one kernel call's query and key length), as a short benchmark at the
// boost clock measures them; and the rate at head dim 64 as a share of the rate at 128 (the same
// kernel, measured in the same figures).
struct AttentionKernelRate {
  std::vector<double> sequence;              // ascending; one entry: the rate at every length
  std::vector<double> forward_flops_per_s;   // at each sequence length
  std::vector<double> backward_flops_per_s;  // at each sequence length
  double head_dim_64_forward = 1;
  double head_dim_64_backward = 1;
  std::string source;
  bool operator==(const AttentionKernelRate&) const = default;
};

struct GpuSpec {
  std::string id;    // "h100-sxm"
  std::string name;  // "NVIDIA H100 SXM5 80GB"
  std::string vendor;
  std::string architecture;
  double memory_bytes = 0;  // marketed capacity × 2^30 (HBM "GB" are binary; see docs/formats.md)
  double memory_bandwidth_bytes_per_s = 0;
  std::map<std::string, double> peak_dense_flops_per_s;  // "bf16" → FLOP/s, dense (no sparsity)
  double nvlink_bytes_per_s = 0;                         // total bidirectional, as printed
  double tdp_watts = 0;
  // SMs (NVIDIA) or compute units (AMD), as the vendor publishes them (0: unknown); sms_source.
  double streaming_multiprocessors = 0;
  std::string source;
  std::string notes;
  GemmRateModel gemm;
  // "flash2" (FlashAttention-2, PyTorch SDPA's flash backend), "cudnn" (cuDNN's fused attention:
  // Transformer Engine's FusedAttention, SDPA's cuDNN backend), "flash3" (FlashAttention-3) → the
  // measured rates; empty where no measurement was published (core/estimate/compute.cpp then
  // takes the generic shares of ComputeEfficiency).
  std::map<std::string, AttentionKernelRate> attention;

  [[nodiscard]] std::optional<double> peak_flops_per_s(DType type) const;
  bool operator==(const GpuSpec&) const = default;
};

// Whether cuBLASLt runs FP8 GEMMs in every operand layout on this GPU, so that Transformer Engine
// keeps no transposed copy of a per-tensor-scaled FP8 tensor and uses the one copy both ways
// (transformer_engine nvte_is_non_tn_fp8_gemm_supported: compute capability 10.x, datacenter
// Blackwell; pytorch/csrc/quantizer.cpp: create_transpose = columnwise_usage && !that). Hopper and
// Ada take FP8 operands in the TN layout only. Every Blackwell entry of the catalogue is a
// datacenter part (sm_100, sm_103); a consumer one (sm_120, TN only) would need its own flag.
[[nodiscard]] inline bool fp8_gemm_any_layout(const GpuSpec& gpu) {
  return gpu.vendor == "NVIDIA" && gpu.architecture.rfind("Blackwell", 0) == 0;
}

}  // namespace meshscope
