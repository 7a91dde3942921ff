#pragma once
// One GPU model from the catalogue (resources/gpus.json), with the datasheet behind it.
#include <map>
#include <optional>
#include <string>

#include "core/dtype.hpp"

namespace meshscope {

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
  std::string source;
  std::string notes;

  [[nodiscard]] std::optional<double> peak_flops_per_s(DType type) const;
};

}  // namespace meshscope
