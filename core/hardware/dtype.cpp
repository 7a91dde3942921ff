#include "core/hardware/dtype.hpp"

#include <array>
#include <utility>

namespace meshscope {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  double bytes;
};
constexpr std::array<DTypeInfo, 8> kDTypes{{
    {DType::fp32, "fp32", 4.0},
    {DType::tf32, "tf32", 4.0},
    {DType::bf16, "bf16", 2.0},
    {DType::fp16, "fp16", 2.0},
    {DType::fp8, "fp8", 1.0},
    {DType::int8, "int8", 1.0},
    {DType::int4, "int4", 0.5},
    {DType::fp4, "fp4", 0.5},
}};
}  // namespace

double dtype_bytes(DType type) {
  for (const auto& info : kDTypes)
    if (info.type == type) return info.bytes;
  return 0.0;
}

std::string_view dtype_name(DType type) {
  for (const auto& info : kDTypes)
    if (info.type == type) return info.name;
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& info : kDTypes)
    if (info.name == name) return info.type;
  if (name == "nvfp4") return DType::fp4;  // the FP4 format the catalogue's fp4 peak runs (NVIDIA Blackwell)
  if (name == "float32") return DType::fp32;
  if (name == "bfloat16") return DType::bf16;
  if (name == "float16") return DType::fp16;
  if (name == "e4m3" || name == "fp8_e4m3") return DType::fp8;
  return std::nullopt;
}

}  // namespace meshscope
