// The saved-tensor inventory reproduces every formula of Korthikanti et al. 2022
// (../shared/fidelity/korthikanti2022_activation_formulas.csv) exactly, under their assumptions.
#include <catch2/catch.hpp>

#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
#include "gpt_style.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

// GPT-3 175B as in Korthikanti Table 3: a = 96, h = 12288, L = 96, s = 2048, V = 51200.
constexpr int64_t kA = 96, kH = 12288, kL = 96, kS = 2048, kV = 51200;
constexpr double s = kS, h = kH, a = kA, L = kL, V = kV;

ActivationConfig config(int64_t tp, bool sp, int64_t micro_batch = 1) {
  ActivationConfig c;
  c.seq_len = kS;
  c.micro_batch = micro_batch;
  c.element_bytes = 2;
  c.dropout = true;
  c.flash_attention = false;
  c.tp = tp;
  c.sp = sp;
  return c;
}

const ModelSpec& gpt3() {
  static const ModelSpec m = test::gpt_style(kL, kH, kA, kV, kS);
  return m;
}

}  // namespace

TEST_CASE("activations: Eq. 1, one layer without parallelism is sbh(34 + 5as/h)") {
  const int64_t b = GENERATE(1, 4);
  const double expected = s * static_cast<double>(b) * h * (34 + 5 * a * s / h);
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(1, false, b), RecomputeMode::none), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Eq. 2, tensor parallel is sbh(10 + 24/t + 5as/(ht))") {
  const int64_t tp = GENERATE(2, 4, 8);
  const auto t = static_cast<double>(tp);
  const double expected = s * h * (10 + 24 / t + 5 * a * s / (h * t));
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(tp, false), RecomputeMode::none), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Eq. 4, tensor + sequence parallel is (sbh/t)(34 + 5as/h)") {
  const int64_t tp = GENERATE(2, 8);
  const auto t = static_cast<double>(tp);
  const double expected = s * h / t * (34 + 5 * a * s / h);
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(tp, true), RecomputeMode::none), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Table 2, tensor parallel + selective recompute is sbh(10 + 24/t)") {
  const double expected = s * h * (10 + 24.0 / 8);
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(8, false), RecomputeMode::selective), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Eq. 6, tensor + sequence parallel + selective recompute is 34sbh/t") {
  const double expected = s * h * 34 / 8;
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(8, true), RecomputeMode::selective), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Table 2, full recompute keeps 2sbh per layer") {
  CHECK_THAT(layer_activation_bytes(gpt3(), 0, config(8, false), RecomputeMode::full), WithinRel(2 * s * h, 1e-12));
}

TEST_CASE("activations: Eq. 5 + Eq. 8, the first 1F1B stage holds (sbhL/t)(34 + 5as/h + p/L)") {
  // Eq. 5: p micro-batches of L/p layers = L layers on the first stage; Eq. 8 adds the embedding
  // dropout mask sbhp/t (the output-layer term applies only for p = 1).
  const int64_t pp = 8, tp = 8;
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.sp = true;
  const TrainingWorkload w = test::korthikanti_workload(kS, 64, RecomputeMode::none);
  const MemoryBudget budget = training_memory(gpt3(), w, l, *find_gpu("a100-80gb-sxm"));
  const RankMemory& first = budget.ranks.front();
  REQUIRE(first.role == "first stage");
  const double expected = s * h * L / 8 * (34 + 5 * a * s / h + static_cast<double>(pp) / L);
  CHECK_THAT(first.bytes(MemoryCategory::activations), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: Eq. 8 with p = 1 adds the output layer (4/L)(1 + v/h)") {
  Layout l;
  l.tp = 8;
  l.sp = true;
  const TrainingWorkload w = test::korthikanti_workload(kS, 8, RecomputeMode::none);
  const MemoryBudget budget = training_memory(gpt3(), w, l, *find_gpu("a100-80gb-sxm"));
  const double expected = s * h * L / 8 * (34 + 5 * a * s / h + 1 / L + 4 / L * (1 + V / h));
  CHECK_THAT(budget.ranks.front().bytes(MemoryCategory::activations), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: the interleaved schedule multiplies the first stage by 1 + (p−1)/(pm)") {
  // Korthikanti Eq. 5 note: with m model chunks per stage (our v), the first stage holds
  // L(1 + (p − 1)/(p·m)) layers' worth of activations.
  const int64_t p = GENERATE(4, 8, 35);
  const int64_t v = GENERATE(2, 3);
  const double expected = static_cast<double>(p) * (1 + static_cast<double>(p - 1) / static_cast<double>(p * v));
  CHECK_THAT(in_flight_micro_batches(PipelineSchedule::interleaved, 0, p, v, 10 * p), WithinRel(expected, 1e-12));
}

TEST_CASE("activations: 1F1B stage i holds min(m, p − i) micro-batches; GPipe holds all m") {
  CHECK(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 0, 8, 1, 64) == 8);
  CHECK(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 7, 8, 1, 64) == 1);
  CHECK(in_flight_micro_batches(PipelineSchedule::one_f_one_b, 0, 8, 1, 4) == 4);
  CHECK(in_flight_micro_batches(PipelineSchedule::gpipe, 3, 8, 1, 64) == 64);
}

TEST_CASE("activations: FlashAttention stores no s×s scores, so selective recompute saves nothing more") {
  ModelSpec m = *model_preset("llama3-8b");
  ActivationConfig c = config(1, false);
  c.flash_attention = true;
  c.dropout = false;
  CHECK(layer_activation_bytes(m, 0, c, RecomputeMode::none) ==
        layer_activation_bytes(m, 0, c, RecomputeMode::selective));
  // Doubling the sequence doubles the activations: no quadratic term left.
  ActivationConfig longer = c;
  longer.seq_len = 2 * c.seq_len;
  CHECK_THAT(layer_activation_bytes(m, 0, longer, RecomputeMode::none),
             WithinRel(2 * layer_activation_bytes(m, 0, c, RecomputeMode::none), 1e-12));
}

TEST_CASE("activations: GQA stores smaller K and V than MHA, SwiGLU stores three FFN-wide tensors") {
  ModelSpec m = *model_preset("llama3-8b");  // h 4096, 32 heads, 8 KV heads × 128, FFN 14336
  ActivationConfig c = config(1, false);
  c.flash_attention = true;
  c.dropout = false;
  double k_bytes = 0, ffn_bytes = 0;
  for (const auto& t : layer_saved_tensors(m, 0, c)) {
    if (t.name == "attention: K") k_bytes = t.bytes_per_token;
    if (t.name == "mlp: gate and up outputs" || t.name == "mlp: down projection input") ffn_bytes += t.bytes_per_token;
  }
  CHECK(k_bytes == 2.0 * 8 * 128);
  CHECK(ffn_bytes == 2.0 * 3 * 14336);
}

TEST_CASE("activations: MLA saves its latents and full-width Q/K/V per head") {
  const ModelSpec m = *model_preset("deepseek-v3");
  ActivationConfig c = config(1, false);
  c.flash_attention = true;
  c.dropout = false;
  bool has_kv_latent = false;
  for (const auto& t : layer_saved_tensors(m, 0, c)) {
    if (t.name == "attention: kv latent (norm input)") {
      has_kv_latent = true;
      CHECK(t.bytes_per_token == 2.0 * (512 + 64));
    }
    if (t.name == "attention: K") CHECK(t.bytes_per_token == 2.0 * 128 * (128 + 64));
  }
  CHECK(has_kv_latent);
}
