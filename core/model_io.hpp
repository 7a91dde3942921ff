#pragma once
// Reading models: meshscope model files (docs/formats.md) and Hugging Face config.json.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/model.hpp"
#include "core/result.hpp"

namespace meshscope {

// `origin` names the file in error messages.
[[nodiscard]] Result<ModelSpec> model_from_json(const nlohmann::json& doc, const std::string& origin);
[[nodiscard]] nlohmann::json model_to_json(const ModelSpec& model);

// Hugging Face config.json for model_type llama, mistral, mixtral, qwen2, qwen3, qwen3_moe,
// deepseek_v3 and gpt2. Unknown types and missing required fields are errors naming both.
[[nodiscard]] Result<ModelSpec> model_from_hf_config(const nlohmann::json& config, const std::string& origin);

// Parses text as JSON; a syntax error names the origin and the byte offset.
[[nodiscard]] Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& origin);
[[nodiscard]] Result<std::string> read_text_file(const std::string& path);

// A model file of either kind: HF config (has "model_type") or meshscope model (has "format").
[[nodiscard]] Result<ModelSpec> load_model_file(const std::string& path);

}  // namespace meshscope
