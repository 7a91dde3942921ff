// FLOPs per token against the published formulas, each in its source's own convention.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "core/model/catalogue.hpp"
#include "core/workload/flops.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

// A Megatron-style GPT (SC21 §5.1 / Korthikanti Table 3): 4h GeLU MLP, learned positions, tied head.
ModelSpec gpt_from_row(const test::CsvRow& row) {
  ModelSpec m = *model_preset("gpt2");
  m.num_layers = std::stoll(row.at("layers"));
  m.hidden_size = std::stoll(row.at("hidden"));
  m.num_heads = std::stoll(row.at("heads"));
  m.num_kv_heads = m.num_heads;
  m.head_dim = m.hidden_size / m.num_heads;
  m.ffn_hidden_size = std::stoll(row.at("ffn"));
  m.vocab_size = std::stoll(row.at("vocab"));
  m.max_position_embeddings = std::stoll(row.at("seq_len"));
  return m;
}

}  // namespace

TEST_CASE("flops: SC21 Eq. 3 FLOPs per iteration for every Table 1 model") {
  // Narayanan et al. SC21 Eq. 3: F = 96·B·s·l·h²·(1 + s/6h + V/16lh) — GEMMs only, full
  // attention (not causal), full recompute counted. The CSV's derived_flops_per_iter_eq3 column
  // is that formula evaluated on the paper's configurations (5 significant digits).
  for (const auto& row : test::read_fidelity_csv("megatron_sc21_table1_weak_scaling.csv")) {
    INFO(row.at("id") << " " << row.at("model"));
    const ModelSpec m = gpt_from_row(row);
    const int64_t seq = std::stoll(row.at("seq_len"));
    const double batch = std::stod(row.at("global_batch"));
    const FlopsPerToken f = flops_per_token(m, seq, /*causal=*/false, RecomputeMode::full);
    const double per_iteration = f.hardware_training() * batch * static_cast<double>(seq);
    CHECK_THAT(per_iteration, WithinRel(std::stod(row.at("derived_flops_per_iter_eq3")), 1e-4));
  }
}

TEST_CASE("flops: Korthikanti Eq. 7 model FLOPs and Eq. 8 hardware FLOPs") {
  for (const auto& row : test::read_fidelity_csv("korthikanti2022_tables.csv")) {
    if (row.at("metric") != "MFU" || row.at("id").find("_t5_") == std::string::npos) continue;
    INFO(row.at("id"));
    const ModelSpec m = gpt_from_row(row);
    const auto L = static_cast<double>(m.num_layers), h = static_cast<double>(m.hidden_size),
               V = static_cast<double>(m.vocab_size);
    const int64_t seq = std::stoll(row.at("seq_len"));
    const auto s = static_cast<double>(seq);
    // Appendix A, per token (B·s tokens per iteration): 72·L·h²·(1 + s/6h + V/12hL) and Eq. 8.
    const double eq7 = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * h * L));
    const double eq8 = 72 * L * h * h * (1 + s / (3 * h) + V / (12 * h * L));
    const FlopsPerToken f =
        flops_per_token(m, seq, false, RecomputeMode::selective, 0.0, SelectiveRecomputeFlops::korthikanti);
    CHECK_THAT(f.model_training(), WithinRel(eq7, 1e-12));
    CHECK_THAT(f.hardware_training(), WithinRel(eq8, 1e-12));
  }
}

TEST_CASE("flops: the HFU/MFU ratios of Korthikanti Table 5 follow from Eq. 7 and Eq. 8") {
  // Table 5 prints MFU and HFU to 3 digits (e.g. 22B: 41.5 % / 43.7 %); their ratio is Eq.8/Eq.7.
  std::map<std::string, double> mfu, hfu;
  std::map<std::string, test::CsvRow> config;
  for (const auto& row : test::read_fidelity_csv("korthikanti2022_tables.csv")) {
    const std::string& id = row.at("id");
    if (id.find("kor_t5_") != 0) continue;
    const std::string model = id.substr(7, id.rfind('_') - 7);
    if (row.at("metric") == "MFU") {
      mfu[model] = std::stod(row.at("value"));
      config[model] = row;
    }
    if (row.at("metric") == "HFU") hfu[model] = std::stod(row.at("value"));
  }
  REQUIRE(mfu.size() == 4);
  for (const auto& [model, published_mfu] : mfu) {
    INFO(model);
    const ModelSpec m = gpt_from_row(config[model]);
    const FlopsPerToken f =
        flops_per_token(m, 2048, false, RecomputeMode::selective, 0.0, SelectiveRecomputeFlops::korthikanti);
    // 0.1-point rounding of each printed percentage bounds the ratio to about ±0.3 %.
    CHECK_THAT(f.hardware_training() / f.model_training(), WithinRel(hfu[model] / published_mfu, 0.004));
  }
}

TEST_CASE("flops: physical selective recompute adds exactly one attention forward") {
  const ModelSpec m = *model_preset("llama3-8b");
  const FlopsPerToken f = flops_per_token(m, 8192, true, RecomputeMode::selective);
  CHECK(f.recompute == f.forward_attention);
  const FlopsPerToken none = flops_per_token(m, 8192, true, RecomputeMode::none);
  CHECK(none.hardware_training() == none.model_training());
  const FlopsPerToken full = flops_per_token(m, 8192, true, RecomputeMode::full);
  CHECK(full.recompute == full.forward_gemm + full.forward_attention);  // the head is not recomputed
}

TEST_CASE("flops: causal attention counts half the score FLOPs of full attention") {
  const ModelSpec m = *model_preset("llama3-70b");
  const FlopsPerToken causal = flops_per_token(m, 8192, true, RecomputeMode::none);
  const FlopsPerToken full = flops_per_token(m, 8192, false, RecomputeMode::none);
  CHECK(causal.forward_attention * 2 == full.forward_attention);
  CHECK(causal.forward_gemm == full.forward_gemm);
}

TEST_CASE("flops: PaLM's 6N + 12·L·H·Q·T for a dense model without the embedding") {
  // PaLM Appendix B: model FLOPs per token = 6N + 12·L·H·Q·T (N: non-embedding params incl. head
  // for an untied model, full attention). Checked on Llama-3-8B's configuration.
  const ModelSpec m = *model_preset("llama3-8b");
  const ParamCounts c = count_params(m);
  const double n = c.total_params() - c.total.embedding - c.total.norms;
  const double expected = 6 * n + 12.0 * 32 * 32 * 128 * 4096;
  CHECK_THAT(flops_per_token(m, 4096, false, RecomputeMode::none).model_training(), WithinRel(expected, 1e-12));
}

TEST_CASE("flops: an MoE token runs top-k experts, not all of them") {
  const ModelSpec m = *model_preset("mixtral-8x7b");
  const ParamCounts c = count_params(m);
  const FlopsPerToken f = flops_per_token(m, 4096, true, RecomputeMode::none);
  // 2 FLOPs per active weight (embedding lookup and norms excluded).
  const double active_matmul = c.active_params() - c.active.embedding - c.active.norms;
  CHECK_THAT(f.forward_gemm + f.forward_head, WithinRel(2 * active_matmul, 1e-12));
}

TEST_CASE("flops: a sliding-window layer's queries attend to the window, counted as the definition sums them") {
  // GPT-OSS-120B at sequence 4096: 18 full layers (a causal query i attends to i + 1 keys, on
  // average s/2 in the convention above) and 18 sliding layers of window 128 (query i attends to
  // min(i + 1, 128) keys; summed exactly here).
  const ModelSpec m = *model_preset("gpt-oss-120b");
  const int64_t s = 4096, window = 128;
  double sliding_keys = 0;
  for (int64_t i = 0; i < s; ++i) sliding_keys += static_cast<double>(std::min<int64_t>(i + 1, window));
  sliding_keys /= static_cast<double>(s);       // 126.02
  const double per_key = 2.0 * 64 * (64 + 64);  // 2 · heads · (d_qk + d_v)
  const double expected = 18 * per_key * (static_cast<double>(s) / 2) + 18 * per_key * sliding_keys;
  const FlopsPerToken f = flops_per_token(m, s, true, RecomputeMode::none);
  CHECK_THAT(f.forward_attention, Catch::Matchers::WithinRel(expected, 1e-3));
  // Up to the window a sliding layer attends as a full one; without the window every layer is full.
  CHECK(m.mean_attended_keys(0, 128, true) == m.mean_attended_keys(1, 128, true));
  ModelSpec full = m;
  full.sliding_window = 0;
  full.full_attention_every = 0;
  CHECK(flops_per_token(full, s, true, RecomputeMode::none).forward_attention == 36 * per_key * (s / 2));
  // The KV a serving engine keeps per layer, averaged: half the layers hold 128 tokens of 4096.
  CHECK(m.kv_resident_tokens(4096) == (18 * 4096 + 18 * 128) / 36.0);
  CHECK(m.kv_resident_tokens(100) == 100);
}
