#pragma once
// Numeric formats and their storage size.
#include <optional>
#include <string>
#include <string_view>

namespace meshscope {

enum class DType { fp32, tf32, bf16, fp16, fp8, int8, int4, fp4 };

// Bytes per element. int4/fp4 are half a byte; group-wise scales are accounted by the caller.
[[nodiscard]] double dtype_bytes(DType type);
[[nodiscard]] std::string_view dtype_name(DType type);
[[nodiscard]] std::optional<DType> parse_dtype(std::string_view name);

}  // namespace meshscope
