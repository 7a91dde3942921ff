#include "core/estimate/gemm_rate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace meshscope {

namespace {

// The dense peak of `type`, else bf16's, else fp16's (a V100 has only fp16 tensor cores): as
// compute_peak_flops in core/estimate/compute.hpp.
double peak_of(const GpuSpec& gpu, DType type) {
  return gpu.peak_flops_per_s(type).value_or(
      gpu.peak_flops_per_s(DType::bf16).value_or(gpu.peak_flops_per_s(DType::fp16).value_or(0)));
}

}  // namespace

double achievable_gemm_flops_per_s(const GpuSpec& gpu, DType type) {
  const auto& measured = gpu.gemm.achievable_flops_per_s;
  const std::string name(dtype_name(type));
  if (const auto it = measured.find(name); it != measured.end()) return it->second;
  if (type == DType::fp16)
    if (const auto it = measured.find("bf16"); it != measured.end()) return it->second;
  const double peak = peak_of(gpu, type);
  if (const auto it = measured.find("bf16"); it != measured.end())
    if (const auto bf16_peak = gpu.peak_flops_per_s(DType::bf16); bf16_peak && *bf16_peak > 0)
      return peak * it->second / *bf16_peak;
  return peak * kUnmeasuredGemmShare;
}

double sustained_gemm_flops_per_s(const GpuSpec& gpu, DType type) {
  const auto& sustained = gpu.gemm.sustained_flops_per_s;
  const std::string name(dtype_name(type));
  if (const auto it = sustained.find(name); it != sustained.end()) return it->second;
  if (type == DType::fp16)
    if (const auto it = sustained.find("bf16"); it != sustained.end()) return it->second;
  const double burst = achievable_gemm_flops_per_s(gpu, type);
  if (gpu.gemm.sustained_share_of_burst > 0) return burst * gpu.gemm.sustained_share_of_burst;
  // Another dtype on a GPU with a measured bf16 sustained rate: the same clock drop.
  if (const auto it = sustained.find("bf16"); it != sustained.end())
    return burst * it->second / achievable_gemm_flops_per_s(gpu, DType::bf16);
  return std::min(burst, kUnmeasuredGemmShare * peak_of(gpu, type));
}

namespace {

// Share of the peak tile rate over ceil(tiles / units) waves, with tiles of a×c on a b×m×n output.
double wave_share(const GemmShape& g, double units, double a, double c) {
  const double tiles = g.batch * std::ceil(g.m / a) * std::ceil(g.n / c);
  const double waves = std::ceil(tiles / units);
  return g.batch * g.m * g.n / (a * c) / (waves * units);
}

double best_wave_share(const GemmRateModel& r, const GemmShape& g) {
  const double units = r.compute_units;
  return std::max({wave_share(g, units, 256, 128), wave_share(g, units, 128, 256),
                   r.tile_128x128 * wave_share(g, units, 128, 128), r.tile_64x64 * wave_share(g, units, 64, 64)});
}

}  // namespace

double gemm_time_s(const GemmRateModel& r, double achievable, double hbm_bytes_per_s, const GemmShape& g) {
  const double flops = 2 * g.batch * g.m * g.n * g.k;
  if (!(flops > 0) || !(achievable > 0)) return 0;
  if (r.compute_units <= 0) return flops / achievable;
  const double k_half = r.k_half_elements * 2 / std::max(g.element_bytes, 0.5);
  const double u = g.k / (g.k + k_half) * best_wave_share(r, g);
  const double bytes = g.element_bytes * g.batch * (g.m * g.k + g.k * g.n + g.m * g.n);
  return r.kernel_floor_s + std::max(flops / (achievable * u), bytes / (hbm_bytes_per_s * r.bandwidth_share));
}

}  // namespace meshscope
