// Hugging Face config.json import, on the real files in ../shared/data/hf_configs and on broken
// variants derived from them here.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using nlohmann::json;

namespace {
const std::string kMixtral = test::shared_path("data/hf_configs/mixtral-8x7b-v0.1_config.json");
const std::string kQwen3 = test::shared_path("data/hf_configs/qwen3-30b-a3b_moe_config.json");

json load(const std::string& path) {
  auto text = read_text_file(path);
  REQUIRE(text);
  auto doc = parse_json_text(*text, path);
  REQUIRE(doc);
  return *doc;
}
}  // namespace

TEST_CASE("hf config: Mixtral-8x7B config.json gives 8 experts, top-2 and 46.7 B parameters") {
  auto model = load_model_file(kMixtral);
  REQUIRE(model);
  CHECK(model->moe.num_experts == 8);
  CHECK(model->moe.top_k == 2);
  CHECK(model->num_kv_heads == 8);
  CHECK(model->head_dim == 128);
  CHECK_FALSE(model->tied_embeddings);
  CHECK_THAT(count_params(*model).total_params(), WithinRel(46.7e9, 0.005));  // Mixtral paper / HF hub
}

TEST_CASE("hf config: Qwen3-30B-A3B config.json gives 128 experts, q/k norms and 30.5 B parameters") {
  auto model = load_model_file(kQwen3);
  REQUIRE(model);
  CHECK(model->moe.num_experts == 128);
  CHECK(model->moe.top_k == 8);
  CHECK(model->moe.expert_ffn_hidden_size == 768);
  CHECK(model->qk_norm);
  CHECK(model->num_moe_layers() == 48);
  CHECK_THAT(count_params(*model).total_params(), WithinRel(30.5e9, 0.005));  // Qwen3 model card
}

TEST_CASE("hf config: the imported configs count the same as the built-in presets") {
  auto mixtral = load_model_file(kMixtral);
  auto qwen = load_model_file(kQwen3);
  REQUIRE(mixtral);
  REQUIRE(qwen);
  CHECK(count_params(*mixtral).total_params() == count_params(*model_preset("mixtral-8x7b")).total_params());
  CHECK(count_params(*qwen).total_params() == count_params(*model_preset("qwen3-30b-a3b")).total_params());
}

TEST_CASE("hf config: GPT-2 and DeepSeek-V3 configs (hub values) give the published totals") {
  // openai-community/gpt2 config.json fields.
  const json gpt2 = {{"model_type", "gpt2"}, {"vocab_size", 50257}, {"n_embd", 768},      {"n_layer", 12},
                     {"n_head", 12},         {"n_positions", 1024}, {"n_inner", nullptr}, {"resid_pdrop", 0.1}};
  auto g = model_from_hf_config(gpt2, "gpt2/config.json");
  REQUIRE(g);
  CHECK(count_params(*g).total_params() == 124439808.0);  // HF hub: 124,439,808
  // deepseek-ai/DeepSeek-V3 config.json fields.
  const json dsv3 = {{"model_type", "deepseek_v3"},  {"vocab_size", 129280},          {"hidden_size", 7168},
                     {"intermediate_size", 18432},   {"moe_intermediate_size", 2048}, {"num_hidden_layers", 61},
                     {"num_attention_heads", 128},   {"num_key_value_heads", 128},    {"n_shared_experts", 1},
                     {"n_routed_experts", 256},      {"num_experts_per_tok", 8},      {"first_k_dense_replace", 3},
                     {"moe_layer_freq", 1},          {"q_lora_rank", 1536},           {"kv_lora_rank", 512},
                     {"qk_rope_head_dim", 64},       {"qk_nope_head_dim", 128},       {"v_head_dim", 128},
                     {"tie_word_embeddings", false}, {"num_nextn_predict_layers", 1}};
  auto d = model_from_hf_config(dsv3, "DeepSeek-V3/config.json");
  REQUIRE(d);
  CHECK_THAT(count_params(*d).total_params(), WithinRel(671e9, 0.005));  // DeepSeek-V3 report: 671B
}

TEST_CASE("hf config: llama, mistral, qwen2 and qwen3 configs are read") {
  const json llama = {{"model_type", "llama"},      {"vocab_size", 128256},        {"hidden_size", 4096},
                      {"intermediate_size", 14336}, {"num_hidden_layers", 32},     {"num_attention_heads", 32},
                      {"num_key_value_heads", 8},   {"tie_word_embeddings", false}};
  auto l = model_from_hf_config(llama, "Meta-Llama-3-8B/config.json");
  REQUIRE(l);
  CHECK_THAT(count_params(*l).total_params(), WithinRel(8.03e9, 0.005));  // Llama 3 8B: 8.03B
  json mistral = llama;
  mistral["model_type"] = "mistral";
  CHECK(model_from_hf_config(mistral, "mistral/config.json"));
  json qwen2 = llama;
  qwen2["model_type"] = "qwen2";
  auto q2 = model_from_hf_config(qwen2, "qwen2/config.json");
  REQUIRE(q2);
  CHECK(q2->qkv_bias);
  json qwen3 = llama;
  qwen3["model_type"] = "qwen3";
  qwen3["head_dim"] = 128;
  auto q3 = model_from_hf_config(qwen3, "qwen3/config.json");
  REQUIRE(q3);
  CHECK(q3->qk_norm);
}

TEST_CASE("hf config: a missing required field names the file and the field") {
  json config = load(kQwen3);
  config.erase("hidden_size");
  auto model = model_from_hf_config(config, kQwen3);
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::missing_field);
  CHECK_THAT(model.error().to_string(), Contains("qwen3-30b-a3b_moe_config.json") && Contains("hidden_size"));
}

TEST_CASE("hf config: a field of the wrong type is an error naming it") {
  json config = load(kMixtral);
  config["num_hidden_layers"] = "32";
  auto model = model_from_hf_config(config, kMixtral);
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::wrong_type);
  CHECK_THAT(model.error().to_string(), Contains("num_hidden_layers"));
  config = load(kMixtral);
  config["tie_word_embeddings"] = 3;
  CHECK_FALSE(model_from_hf_config(config, kMixtral));
}

TEST_CASE("hf config: an unknown model_type is refused by name") {
  json config = load(kMixtral);
  config["model_type"] = "mamba";
  auto model = model_from_hf_config(config, kMixtral);
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::unsupported);
  CHECK_THAT(model.error().to_string(), Contains("mamba") && Contains("model_type"));
}

TEST_CASE("hf config: a truncated file is a parse error with its position") {
  auto text = read_text_file(kQwen3);
  REQUIRE(text);
  auto doc = parse_json_text(text->substr(0, text->size() / 2), kQwen3);
  REQUIRE_FALSE(doc);
  CHECK(doc.error().code == ErrorCode::parse_error);
  CHECK_THAT(doc.error().location, Contains("qwen3-30b-a3b_moe_config.json") && Contains("byte"));
}

TEST_CASE("hf config: corrupted values are rejected, not silently defaulted") {
  json config = load(kMixtral);
  config["num_key_value_heads"] = 7;  // does not divide 32 heads
  auto model = model_from_hf_config(config, kMixtral);
  REQUIRE_FALSE(model);
  CHECK_THAT(model.error().to_string(), Contains("num_kv_heads"));
  config = load(kMixtral);
  config["num_experts_per_tok"] = 9;  // more than the 8 experts
  CHECK_FALSE(model_from_hf_config(config, kMixtral));
  config = load(kMixtral);
  config["hidden_size"] = -4096;
  CHECK_FALSE(model_from_hf_config(config, kMixtral));
  CHECK_FALSE(model_from_hf_config(json::array({1, 2}), kMixtral));
}

TEST_CASE("hf config: a file that does not exist is an I/O error naming it") {
  auto model = load_model_file("/nonexistent/config.json");
  REQUIRE_FALSE(model);
  CHECK(model.error().code == ErrorCode::io_error);
  CHECK_THAT(model.error().to_string(), Contains("/nonexistent/config.json"));
}

TEST_CASE("hf config: a number beyond the range of a double is a parse error, not a crash") {
  // Found by tests/fuzz/fuzz_hf_config: nlohmann throws out_of_range (not parse_error) for
  // "0.0255…e5555"; the input is the shared Qwen3 config with one field mutated
  // (tests/data/regressions/hf_config_number_overflow.json).
  auto text =
      read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/tests/data/regressions/hf_config_number_overflow.json");
  REQUIRE(text);
  auto doc = parse_json_text(*text, "overflow.json");
  REQUIRE_FALSE(doc);
  CHECK(doc.error().code == ErrorCode::parse_error);
  CHECK_THAT(doc.error().to_string(), Contains("overflow.json"));
  CHECK_FALSE(parse_json_text(R"({"hidden_size": 1e999})", "inline.json"));
}

namespace {
// openai/gpt-oss-120b config.json fields (transformers' GptOssConfig, model_type gpt_oss): 36
// layers whose layer_types alternate sliding_attention and full_attention from layer 0, window 128.
json gpt_oss_120b() {
  json layer_types = json::array();
  for (int i = 0; i < 36; ++i) layer_types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  return {{"model_type", "gpt_oss"},      {"vocab_size", 201088},
          {"hidden_size", 2880},          {"intermediate_size", 2880},
          {"num_hidden_layers", 36},      {"num_attention_heads", 64},
          {"num_key_value_heads", 8},     {"head_dim", 64},
          {"num_local_experts", 128},     {"num_experts_per_tok", 4},
          {"experts_per_token", 4},       {"attention_bias", true},
          {"sliding_window", 128},        {"layer_types", layer_types},
          {"tie_word_embeddings", false}, {"max_position_embeddings", 131072}};
}
}  // namespace

TEST_CASE("hf config: GPT-OSS-120B reads its window, sinks and biases and counts 116.8 B, 5.1 B active") {
  auto model = model_from_hf_config(gpt_oss_120b(), "gpt-oss-120b/config.json");
  REQUIRE(model);
  CHECK(model->sliding_window == 128);
  CHECK(model->full_attention_every == 2);
  CHECK(model->is_sliding_layer(0));
  CHECK_FALSE(model->is_sliding_layer(1));
  CHECK(model->num_sliding_layers() == 18);
  CHECK(model->attention_sinks);
  CHECK(model->moe.top_k == 4);
  // OpenAI's gpt-oss model card (arXiv:2508.10925): 116.8 B parameters in total, 5.1 B active per
  // token, the input embedding not counted (as DeepSeek-V3's 37 B).
  const ParamCounts counts = count_params(*model);
  CHECK_THAT(counts.total_params(), WithinRel(116.8e9, 0.001));
  CHECK_THAT(counts.active_excluding_embedding(), WithinRel(5.1e9, 0.01));
  CHECK(count_params(*model_preset("gpt-oss-120b")).total_params() == counts.total_params());
  CHECK(*model_preset("gpt-oss-120b") == [&] {
    ModelSpec m = *model;
    const ModelSpec preset = *model_preset("gpt-oss-120b");
    m.name = preset.name;
    m.source = preset.source;
    return m;
  }());
}

TEST_CASE("hf config: sliding windows of Mistral and of layer_types, and the patterns refused") {
  const json mistral = {{"model_type", "mistral"},    {"vocab_size", 32000},     {"hidden_size", 4096},
                        {"intermediate_size", 14336}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                        {"num_key_value_heads", 8},   {"sliding_window", 4096}};  // Mistral-7B-v0.1
  auto m = model_from_hf_config(mistral, "Mistral-7B-v0.1/config.json");
  REQUIRE(m);
  CHECK(m->sliding_window == 4096);
  CHECK(m->num_sliding_layers() == 32);  // no layer_types: every layer slides
  json none = mistral;
  none["sliding_window"] = nullptr;  // Mistral-7B-v0.2 and later
  CHECK(model_from_hf_config(none, "mistral/config.json")->sliding_window == 0);
  // Qwen3-30B-A3B's real file: sliding_window null, use_sliding_window false.
  CHECK(load_model_file(kQwen3)->sliding_window == 0);

  json broken = gpt_oss_120b();
  broken["layer_types"][5] = "sliding_attention";  // layer 5 breaks the alternation
  auto b = model_from_hf_config(broken, "gpt-oss-120b/config.json");
  REQUIRE_FALSE(b);
  CHECK(b.error().code == ErrorCode::unsupported);
  CHECK_THAT(b.error().to_string(),
             Contains("gpt-oss-120b/config.json") && Contains("layer_types") && Contains("layer 5"));
  broken = gpt_oss_120b();
  broken["layer_types"][0] = "chunked_attention";
  b = model_from_hf_config(broken, "gpt-oss-120b/config.json");
  REQUIRE_FALSE(b);
  CHECK_THAT(b.error().to_string(), Contains("layer_types[0]") && Contains("chunked_attention"));
  json qwen = load(kQwen3);
  qwen["use_sliding_window"] = true;
  qwen["sliding_window"] = 4096;
  b = model_from_hf_config(qwen, kQwen3);
  REQUIRE_FALSE(b);
  CHECK_THAT(b.error().to_string(), Contains("use_sliding_window"));
}
