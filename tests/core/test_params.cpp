// Parameter counts against the totals the model authors publish.
#include <catch2/catch.hpp>

#include "core/model/catalogue.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {
ModelSpec preset(const char* name) {
  auto model = model_preset(name);
  REQUIRE(model);
  return *model;
}
}  // namespace

TEST_CASE("params: totals match the published figures within 0.5 %") {
  struct Published {
    const char* preset;
    double total;
    const char* source;
  };
  const auto row = GENERATE(values<Published>({
      {"llama3-8b", 8.03e9, "Meta Llama 3 model card: 8B (8.03B on the HF hub)"},
      {"llama3-70b", 70.6e9, "Meta Llama 3 model card / HF hub: 70.6B"},
      {"llama3.1-405b", 405.9e9, "HF hub meta-llama/Llama-3.1-405B: 405.9B"},
      {"mixtral-8x7b", 46.7e9, "Mixtral of Experts, arXiv:2401.04088 §2: 47B (46.7B on HF hub)"},
      {"deepseek-v3", 671e9, "DeepSeek-V3 technical report arXiv:2412.19437 abstract: 671B"},
      {"gpt2", 124.4e6, "HF hub openai-community/gpt2: 124.4M (124,439,808)"},
      {"qwen3-30b-a3b", 30.5e9, "Qwen3-30B-A3B model card: 30.5B total"},
      {"qwen3-235b-a22b", 235e9, "Qwen3-235B-A22B model card: 235B in total"},
  }));
  INFO(row.preset << " — " << row.source);
  CHECK_THAT(count_params(preset(row.preset)).total_params(), WithinRel(row.total, 0.005));
}

TEST_CASE("params: Mixtral activates 12.9 B parameters per token") {
  // Mixtral of Experts §2: "13B active parameters" — HF hub: 12.9B, counting embedding and head.
  CHECK_THAT(count_params(preset("mixtral-8x7b")).active_params(), WithinRel(12.9e9, 0.005));
}

TEST_CASE("params: active counts published to two significant digits agree to that precision") {
  // Qwen3-30B-A3B model card: "3.3B activated" — with embedding and head, as Qwen and Mistral count.
  // The figure is given to two significant digits (a ±1.5 % rounding step), hence 2 %.
  CHECK_THAT(count_params(preset("qwen3-30b-a3b")).active_params(), WithinRel(3.3e9, 0.02));
  // Qwen3-235B-A22B model card: "22B activated" (a ±2.3 % rounding step at two digits).
  CHECK_THAT(count_params(preset("qwen3-235b-a22b")).active_params(), WithinRel(22e9, 0.025));
  // DeepSeek-V3 report: "37B activated for each token", main model without MTP. DeepSeek's count
  // leaves out the input embedding lookup (36.6 B rounds to 37); with it the count is 37.6 B.
  const ParamCounts dsv3 = count_params(preset("deepseek-v3"));
  CHECK_THAT(dsv3.active_excluding_embedding(), WithinRel(37e9, 0.0135));
  CHECK(dsv3.active_excluding_embedding() >= 36.5e9);  // rounds to 37 B
  CHECK(dsv3.active_excluding_embedding() < 37.5e9);
}

TEST_CASE("params: GPT-2 small splits exactly as its module shapes") {
  // HF GPT2Model: wte 50257×768, wpe 1024×768, per block c_attn 768×2304+2304, c_proj 768×768+768,
  // c_fc 768×3072+3072, mlp c_proj 3072×768+768, ln_1/ln_2 2×(768+768); ln_f 768+768; tied head.
  const ParamCounts c = count_params(preset("gpt2"));
  CHECK(c.total.embedding == 50257.0 * 768 + 1024.0 * 768);
  CHECK(c.total.attention == 12 * (768.0 * 2304 + 2304 + 768.0 * 768 + 768));
  CHECK(c.total.mlp == 12 * (768.0 * 3072 + 3072 + 3072.0 * 768 + 768));
  CHECK(c.total.norms == 12 * 4 * 768.0 + 2 * 768.0);
  CHECK(c.total.head == 0);
  CHECK(c.total_params() == 124439808.0);  // HF hub safetensors metadata: 124,439,808
}

TEST_CASE("params: a dense model's active count equals its total") {
  const ParamCounts c = count_params(preset("llama3-70b"));
  CHECK(c.active_params() == c.total_params());
  CHECK(c.total.experts == 0);
}

TEST_CASE("params: DeepSeek-V3 has 3 dense layers and 58 MoE layers") {
  // DeepSeek-V3 report §4.2: the first three layers use dense FFNs; 61 layers in all.
  const ModelSpec m = preset("deepseek-v3");
  CHECK(m.num_moe_layers() == 58);
  CHECK_FALSE(m.is_moe_layer(2));
  CHECK(m.is_moe_layer(3));
}
