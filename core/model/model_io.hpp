#pragma once
// Reading models: meshscope model files (docs/formats.md) and Hugging Face config.json.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/base/result.hpp"
#include "core/base/text_input.hpp"
#include "core/model/model.hpp"

namespace meshscope {

// `origin` names the file in error messages.
[[nodiscard]] Result<ModelSpec> model_from_json(const nlohmann::json& doc, const std::string& origin);
[[nodiscard]] nlohmann::json model_to_json(const ModelSpec& model);

// Hugging Face config.json for model_type llama, mistral, mixtral, qwen2, qwen3, qwen3_moe,
// deepseek_v3 and gpt2. Unknown types and missing required fields are errors naming both.
[[nodiscard]] Result<ModelSpec> model_from_hf_config(const nlohmann::json& config, const std::string& origin);

// Parses text as JSON (UTF-8, with or without a byte-order mark). Errors name the origin and the line and byte of a
// syntax error (a number beyond the range of a double, such as 1e400, is one; so are NaN and Infinity); a key given
// twice in one object and nesting deeper than kMaxJsonDepth are errors too (text_input.hpp).
[[nodiscard]] Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& origin);
// The file's bytes; a file larger than max_bytes is an error that says so (nothing of that size is allocated).
[[nodiscard]] Result<std::string> read_text_file(const std::string& path, int64_t max_bytes = kMaxTextFileBytes);

// A model file of either kind: HF config (has "model_type") or meshscope model (has "format").
[[nodiscard]] Result<ModelSpec> load_model_file(const std::string& path);

}  // namespace meshscope
