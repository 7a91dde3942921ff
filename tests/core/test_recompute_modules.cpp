// Megatron-Core's selective recompute modules (--recompute-modules, the --train key
// recompute_modules): which saved tensors each frees and what each adds to the backward, from
// megatron/core/transformer/transformer_config.py (recompute_modules), transformer_layer.py
// (the layernorm and MLP checkpoints), moe/experts.py (moe_act) and multi_latent_attention.py
// (mla_up_proj). The expected bytes are the tensors' shapes in those files, written out here.
#include <catch2/catch.hpp>
#include <string>

#include "core/estimate/compute.hpp"
#include "core/estimate/step.hpp"
#include "core/keys/options.hpp"
#include "core/memory/activations.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"
#include "core/workload/flops.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

constexpr uint32_t bit(RecomputeModule m) {
  return recompute_bit(m);
}
constexpr uint32_t kCoreAttn = bit(RecomputeModule::core_attn);

int64_t first_moe_layer(const ModelSpec& m) {
  int64_t layer = 0;
  while (layer < m.num_layers && !m.is_moe_layer(layer)) ++layer;
  return layer;
}

// One layer's saved bytes for one micro-batch of `tokens` (TP 1, no SP, BF16, FlashAttention).
double saved(const ModelSpec& m, int64_t layer, uint32_t modules, int64_t tokens = 4096) {
  ActivationConfig c;
  c.seq_len = tokens;
  c.recompute_modules = modules;
  return layer_activation_bytes(m, layer, c, RecomputeMode::selective);
}

}  // namespace

TEST_CASE("recompute_modules: each module frees the tensors Megatron-Core discards or does not save") {
  const double tokens = 4096, e = 2;
  SECTION("Qwen3-30B-A3B's MoE layer: moe_act, layernorm, moe") {
    const ModelSpec m = *model_preset("qwen3-30b-a3b");
    const int64_t layer = first_moe_layer(m);
    const auto h = static_cast<double>(m.hidden_size), k = static_cast<double>(m.moe.top_k);
    const auto f = static_cast<double>(m.moe.expert_ffn_hidden_size);
    const double base = saved(m, layer, kCoreAttn);
    // moe_act: the SwiGLU output [tokens · k, f], the down projection's input (experts.py
    // CheckpointWithoutOutput around the activation, discard_output_and_register_recompute).
    CHECK_THAT(base - saved(m, layer, kCoreAttn | bit(RecomputeModule::moe_act)), WithinRel(tokens * k * f * e, 1e-12));
    // layernorm: the pre-MLP norm's output [tokens, h] (a TENorm of its own in an MoE layer, the
    // router's input); the attention's input norm is fused into its QKV projection.
    CHECK_THAT(base - saved(m, layer, kCoreAttn | bit(RecomputeModule::layernorm)), WithinRel(tokens * h * e, 1e-12));
    // moe: the layer checkpointed from the norm's output: the fp32 routing probabilities
    // [tokens, E], the permuted tokens [tokens · k, h], the gate and up outputs [tokens · k, 2f],
    // the activation output [tokens · k, f] and the experts' outputs [tokens · k, h] go.
    const double moe = tokens * static_cast<double>(m.moe.num_experts) * 4 + tokens * k * (h + 2 * f + f + h) * e;
    CHECK_THAT(base - saved(m, layer, kCoreAttn | bit(RecomputeModule::moe)), WithinRel(moe, 1e-12));
    // moe_act under moe frees nothing more; modules the layer lacks free nothing.
    CHECK(saved(m, layer, kCoreAttn | bit(RecomputeModule::moe) | bit(RecomputeModule::moe_act)) ==
          saved(m, layer, kCoreAttn | bit(RecomputeModule::moe)));
    CHECK(saved(m, layer,
                kCoreAttn | bit(RecomputeModule::mla_up_proj) | bit(RecomputeModule::mlp) |
                    bit(RecomputeModule::shared_experts)) == base);
  }
  SECTION("Llama 3 8B's dense layer: mlp") {
    const ModelSpec m = *model_preset("llama3-8b");
    const auto h = static_cast<double>(m.hidden_size), f = static_cast<double>(m.ffn_hidden_size);
    // The MLP checkpointed from its input (the norm fused into fc1): fc1's saved normed input [tokens, h],
    // the gate and up outputs [tokens, 2f] and the activation output [tokens, f] go.
    CHECK_THAT(saved(m, 0, kCoreAttn) - saved(m, 0, kCoreAttn | bit(RecomputeModule::mlp)),
               WithinRel(tokens * (h + 3 * f) * e, 1e-12));
    // No norm of its own to discard.
    CHECK(saved(m, 0, kCoreAttn | bit(RecomputeModule::layernorm)) == saved(m, 0, kCoreAttn));
  }
  SECTION("DeepSeek-V3's MLA: mla_up_proj and layernorm") {
    const ModelSpec m = *model_preset("deepseek-v3");
    const auto heads = static_cast<double>(m.num_heads);
    const double qk = static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    const double v = static_cast<double>(m.mla.v_head_dim);
    // Q and K [tokens, heads · (nope + rope)] and V [tokens, heads · v], the up-projections' outputs
    // with RoPE applied (multi_latent_attention.py, the mla_up_proj checkpoint).
    CHECK_THAT(saved(m, 0, kCoreAttn) - saved(m, 0, kCoreAttn | bit(RecomputeModule::mla_up_proj)),
               WithinRel(tokens * heads * (2 * qk + v) * e, 1e-12));
    // MLA's input norm is a TENorm of its own (both down-projections read it): [tokens, h].
    CHECK_THAT(saved(m, 0, kCoreAttn) - saved(m, 0, kCoreAttn | bit(RecomputeModule::layernorm)),
               WithinRel(tokens * static_cast<double>(m.hidden_size) * e, 1e-12));
  }
}

TEST_CASE("recompute_modules: the recomputed forward work is charged to the backward") {
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.recompute = RecomputeMode::selective;
  Layout l;
  l.dp = 8;
  l.ep = 8;
  const GpuSpec gpu = *find_gpu("b200");
  const ComputeEfficiency efficiency;
  const int64_t layer = first_moe_layer(m);
  const auto recompute_of = [&](uint32_t modules) {
    w.recompute_modules = modules;
    return layer_compute({m, w, l, gpu, efficiency}, layer, false).recompute_s;
  };
  const auto ops = layer_operations({m, w, l, gpu, efficiency}, layer);
  const auto forward_of = [&](const std::string& prefix) {
    double s = 0;
    for (const auto& op : ops)
      if (op.name.rfind(prefix, 0) == 0) s += op.forward_s;
    return s;
  };
  const double attention = recompute_of(kCoreAttn);
  CHECK_THAT(attention, WithinRel(forward_of("attention: core"), 1e-12));
  // moe_act re-runs the experts' SwiGLU (element-wise, memory-bound: more, but less than a GEMM).
  const double act = recompute_of(kCoreAttn | bit(RecomputeModule::moe_act)) - attention;
  CHECK(act > 0);
  CHECK(act < forward_of("moe: experts down projection"));
  // moe re-runs the router, the routing, the permutations, both expert GEMMs and their activation.
  const double moe = recompute_of(kCoreAttn | bit(RecomputeModule::moe)) - attention;
  CHECK(moe > forward_of("moe: ") + act * 0.99);
  CHECK(recompute_of(kCoreAttn | bit(RecomputeModule::moe) | bit(RecomputeModule::moe_act)) ==
        recompute_of(kCoreAttn | bit(RecomputeModule::moe)));
  // With no module, selective recompute repeats nothing.
  CHECK(recompute_of(0) == 0);

  // The whole step: moe repeats each MoE layer's dispatch and combine (two all-to-alls more on top
  // of the four a layer runs: 1.5×), and its FLOPs count as hardware FLOPs.
  auto cluster = generate_cluster("dgx-b200:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  w.recompute_modules = kCoreAttn;
  auto base = estimate_step(m, w, l, *cluster, router);
  w.recompute_modules = kCoreAttn | bit(RecomputeModule::moe);
  auto whole = estimate_step(m, w, l, *cluster, router);
  REQUIRE(base);
  REQUIRE(whole);
  CHECK_THAT(whole->breakdown.ep_exposed_s, WithinRel(1.5 * base->breakdown.ep_exposed_s, 1e-9));
  CHECK(whole->step_time_s > base->step_time_s);
  CHECK(whole->hardware_tflops_per_gpu * whole->step_time_s > base->hardware_tflops_per_gpu * base->step_time_s);
  CHECK(whole->peak_memory_bytes < base->peak_memory_bytes);
  bool stated = false;
  for (const auto& a : whole->assumptions) stated = stated || a.find("recompute_modules=core_attn+moe") == 0;
  CHECK(stated);
}

TEST_CASE("recompute_modules: hardware FLOPs count the recomputed modules' GEMMs") {
  const ModelSpec m = *model_preset("qwen3-30b-a3b");
  const auto h = static_cast<double>(m.hidden_size), f = static_cast<double>(m.moe.expert_ffn_hidden_size);
  const double layers = static_cast<double>(m.num_layers);
  const FlopsPerToken attention_only = flops_per_token(m, 4096, true, RecomputeMode::selective);
  const FlopsPerToken moe = flops_per_token(m, 4096, true, RecomputeMode::selective, 0.0,
                                            SelectiveRecomputeFlops::physical, kCoreAttn | bit(RecomputeModule::moe));
  // Per token and MoE layer: top-k experts of three h × f matrices and the h × E router, 2 FLOPs
  // per multiply-add (every layer of Qwen3-30B-A3B is an MoE layer).
  const double per_layer =
      static_cast<double>(m.moe.top_k) * 3 * 2 * h * f + 2 * h * static_cast<double>(m.moe.num_experts);
  CHECK_THAT(moe.recompute - attention_only.recompute, WithinRel(layers * per_layer, 1e-12));
  const FlopsPerToken none_set =
      flops_per_token(m, 4096, true, RecomputeMode::selective, 0.0, SelectiveRecomputeFlops::physical, 0);
  CHECK(none_set.recompute == 0);
}

TEST_CASE("recompute_modules: the key reads Megatron's names joined by '+', and says what it does not know") {
  auto w = training_from_keys({{"recompute", "selective"}, {"recompute_modules", "moe_act+layernorm"}});
  REQUIRE(w);
  CHECK(w->recompute_modules == (bit(RecomputeModule::moe_act) | bit(RecomputeModule::layernorm)));
  CHECK(recompute_modules_text(w->recompute_modules) == "moe_act+layernorm");
  CHECK(recomputes_module(*w, RecomputeModule::moe_act));
  CHECK_FALSE(recomputes_module(*w, RecomputeModule::core_attn));
  auto none = training_from_keys({{"recompute_modules", "none"}});
  REQUIRE(none);
  CHECK(none->recompute_modules == 0);
  auto bad = training_from_keys({{"recompute_modules", "core_attn+experts"}});
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("recompute_modules") && Contains("experts"));
  CHECK_FALSE(training_from_keys({{"recompute_modules", "core_attn+"}}));
  // Under another recompute mode the modules change nothing, and the estimate says so.
  const ModelSpec m = *model_preset("llama3-8b");
  auto full = training_from_keys({{"recompute", "full"}, {"recompute_modules", "mlp"}, {"gbs", "8"}});
  auto plain = training_from_keys({{"recompute", "full"}, {"gbs", "8"}});
  REQUIRE(full);
  REQUIRE(plain);
  CHECK_FALSE(recomputes_module(*full, RecomputeModule::mlp));
  auto cluster = generate_cluster("dgx-h100:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  Layout l;
  l.dp = 8;
  auto with = estimate_step(m, *full, l, *cluster, router);
  auto without = estimate_step(m, *plain, l, *cluster, router);
  REQUIRE(with);
  REQUIRE(without);
  CHECK(with->step_time_s == without->step_time_s);
  bool stated = false;
  for (const auto& a : with->assumptions)
    stated = stated || a.find("has no effect: recompute=full") != std::string::npos;
  CHECK(stated);
}
