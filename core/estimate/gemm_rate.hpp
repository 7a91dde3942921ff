#pragma once
// The time of one GEMM on one GPU from measurements: the GPU's maximum achievable matmul rate for
// the dtype (../shared/fidelity/mamf.csv, in the catalogue) and a roll-off below it for small or
// unevenly divided shapes, fitted to XLA's measured GEMM tables
// (../shared/fidelity/gemm_measured_xla*.csv, scripts/fit_gemm_rolloff.py). docs/estimate.md §1
// ("GEMM rate") explains each term; tests/core/test_gemm_rate.cpp checks the curve against every
// measured row.
#include "core/hardware/dtype.hpp"
#include "core/hardware/hardware.hpp"

namespace meshscope {

// The achievable share of peak assumed where the catalogue has no measurement for a GPU (the
// former single GEMM efficiency: cuBLAS reaches 70–80 % of peak on large bf16 GEMMs of A100/H100).
inline constexpr double kUnmeasuredGemmShare = 0.75;

// The burst rate a large GEMM of `type` reaches on `gpu` (what mamf.csv and XLA's tables
// measure): its measured achievable rate; for fp16 the bf16 one (the same tensor-core rate on every
// catalogue GPU); else the measured bf16 share of the bf16 peak applied to the dtype's peak; else
// kUnmeasuredGemmShare of the peak.
[[nodiscard]] double achievable_gemm_flops_per_s(const GpuSpec& gpu, DType type);
// The rate a training step's GEMMs sustain. The burst (MAMF) rate runs at the boost clock; a GPU
// power-saturated at its TDP settles lower: stas00/ml-engineering
// compute/accelerator/benchmarks/README.md ("What we measured: alone vs all-8 concurrent", GPU0
// alone, n = 5) measured H200 bf16 MSMF 702.9 against MAMF 828.0 TFLOP/s and B200 1455.7 against
// 1732.6 ("MSMF … the power-saturated, sustained rate that matches real training throughput").
// So: the measured sustained rate of `type` (fp16: bf16's); else the burst rate times the
// GPU's `sustained_share_of_burst` (measured on the same die) or, for another dtype, times its
// measured bf16 sustained / burst (the same clock drop); else, with no sustained measurement
// for the GPU, the burst rate capped at kUnmeasuredGemmShare of the peak.
[[nodiscard]] double sustained_gemm_flops_per_s(const GpuSpec& gpu, DType type);

struct GemmShape {
  double batch = 1;  // independent GEMMs of the same shape in one kernel
  double m = 0, n = 0, k = 0;
  double element_bytes = 2;  // of the operands and the result
};

// Seconds of one GEMM kernel at `achievable_flops_per_s` (for large shapes) on a GPU whose roll-off
// is `model` and whose HBM moves `hbm_bytes_per_s`:
//   t = floor + max(2·b·m·n·k / (R · u_k · u_wave), bytes / (HBM · bandwidth_share))
// u_k = K / (K + k_half): a tile's main loop fills and drains its pipeline once per tile (k_half in
// 16-bit elements; an fp8 K-tile holds twice the elements in the same bytes, CUTLASS's Hopper FP8
// kernels use a K-tile of 128 against 64 for BF16). u_wave: wave and tile quantisation, the best of
// 256×128, 128×128 and 64×64 output tiles (either orientation), each tile's rate times the share
// of the units busy over ceil(tiles / units) waves: what cuBLAS/hipBLASLt's heuristics pick among.
// Where the catalogue has no roll-off (compute_units 0), u_wave = u_k = 1 and floor = 0.
[[nodiscard]] double gemm_time_s(const GemmRateModel& model, double achievable_flops_per_s, double hbm_bytes_per_s,
                                 const GemmShape& shape);

}  // namespace meshscope
