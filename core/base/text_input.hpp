#pragma once
// Limits and checks shared by the readers of text files (JSON and XML): the encodings they take, how large a file
// and how deep a document may be. Hostile or broken files get a clear error here instead of a crash, a stack
// overflow or an allocation without bound (docs/formats.md, "Limits").
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/result.hpp"

namespace meshscope {

// The largest file read_text_file() reads (project, cluster, model, HF config, topology and nccl-tests files; real
// ones are kilobytes to a few megabytes). Profiler traces are streamed and have no such limit.
inline constexpr int64_t kMaxTextFileBytes = int64_t{256} << 20;
// The deepest nesting of JSON arrays/objects and of XML elements accepted (real files nest under 20 levels).
inline constexpr size_t kMaxJsonDepth = 256;
inline constexpr size_t kMaxXmlDepth = 256;

// UTF-8 (with or without a byte-order mark) is what the readers take. A UTF-16 or UTF-32 file (told by its
// byte-order mark, or by NUL bytes where text should be) is refused with an error saying so and how to convert it,
// rather than transcoded: line numbers in later messages then always count the bytes the user has.
[[nodiscard]] std::optional<Error> check_text_encoding(std::string_view text, const std::string& origin);

}  // namespace meshscope
