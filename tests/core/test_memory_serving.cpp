// Serving memory: KV cache per token against serving_benchmarks.csv, and the concurrency limit.
#include <catch2/catch.hpp>

#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

TEST_CASE("serving: KV-cache bytes per token match every kv_* row of serving_benchmarks.csv") {
  // kv_8B/70B/405B: 2 × layers × kv_heads × head_dim × 2 B (Llama 3 paper Table 3);
  // kv_dsv3_mla: layers × (d_c + d_h^R) × 2 B (DeepSeek-V3 report §2.1.1).
  const std::map<std::string, std::string> presets = {
      {"kv_8B", "llama3-8b"}, {"kv_70B", "llama3-70b"}, {"kv_405B", "llama3.1-405b"}, {"kv_dsv3_mla", "deepseek-v3"}};
  int checked = 0;
  for (const auto& row : test::read_fidelity_csv("serving_benchmarks.csv")) {
    const auto it = presets.find(row.at("id"));
    if (it == presets.end()) continue;
    INFO(row.at("id"));
    const double published = std::stod(row.at("value"));
    CHECK(kv_cache_bytes_per_token(*model_preset(it->second), DType::bf16) == published);
    // "halve for FP8 KV cache" (same rows' notes)
    CHECK(kv_cache_bytes_per_token(*model_preset(it->second), DType::fp8) == published / 2);
    ++checked;
  }
  CHECK(checked == 4);
}

TEST_CASE("serving: the largest concurrency fills the memory fraction and one more does not fit") {
  const ModelSpec m = *model_preset("llama3-70b");
  const GpuSpec gpu = *find_gpu("h200-sxm");
  ServingWorkload w;
  w.weight_dtype = DType::fp8;
  w.kv_dtype = DType::fp8;
  w.prompt_len = 2048;
  w.output_len = 2048;
  Layout l;
  l.tp = 2;
  w.concurrency = 1;
  const int64_t max_concurrency = serving_memory(m, w, l, gpu).max_concurrency;
  REQUIRE(max_concurrency > 1);
  w.concurrency = max_concurrency;
  CHECK(serving_memory(m, w, l, gpu).fits());
  w.concurrency = max_concurrency + 8;
  CHECK_FALSE(serving_memory(m, w, l, gpu).fits());
}

TEST_CASE("serving: fp8 and int4 weights shrink the weight memory by their width") {
  const ModelSpec m = *model_preset("llama3-8b");
  const GpuSpec gpu = *find_gpu("h100-sxm");
  Layout l;
  ServingWorkload w;
  const double bf16 = serving_memory(m, w, l, gpu).ranks.front().bytes(MemoryCategory::parameters);
  w.weight_dtype = DType::fp8;
  const double fp8 = serving_memory(m, w, l, gpu).ranks.front().bytes(MemoryCategory::parameters);
  w.weight_dtype = DType::int4;
  w.weight_group_size = 128;
  const double int4 = serving_memory(m, w, l, gpu).ranks.front().bytes(MemoryCategory::parameters);
  // Embedding and head stay 16-bit; the rest halves (fp8) or takes 0.5 + 2/128 B (int4, g128).
  const ParamCounts c = count_params(m);
  const double quantised = c.total_params() - c.total.embedding - c.total.head;
  CHECK_THAT(bf16 - fp8, WithinRel(quantised * 1.0, 1e-9));
  CHECK_THAT(bf16 - int4, WithinRel(quantised * (2.0 - 0.5 - 2.0 / 128), 1e-9));
}

TEST_CASE("serving: MLA's latent cache is replicated on every TP rank, GQA's heads are split") {
  ServingWorkload w;
  w.concurrency = 4;
  Layout l;
  l.tp = 8;
  const GpuSpec gpu = *find_gpu("h200-sxm");
  const auto llama = serving_memory(*model_preset("llama3-70b"), w, l, gpu);
  CHECK_THAT(llama.ranks.front().bytes(MemoryCategory::kv_cache),
             WithinRel(327680.0 / 8 * 4 * static_cast<double>(w.context_len()), 1e-12));
  const auto dsv3 = serving_memory(*model_preset("deepseek-v3"), w, l, gpu);
  CHECK_THAT(dsv3.ranks.front().bytes(MemoryCategory::kv_cache),
             WithinRel(70272.0 * 4 * static_cast<double>(w.context_len()), 1e-12));
}

TEST_CASE("serving: TP beyond the KV heads replicates them (vLLM) rather than failing") {
  Layout l;
  l.tp = 16;  // Llama-3-70B has 8 KV heads and 64 query heads
  CHECK(validate_serving_layout(*model_preset("llama3-70b"), l).empty());
  ServingWorkload w;
  w.concurrency = 1;
  const auto b = serving_memory(*model_preset("llama3-70b"), w, l, *find_gpu("h200-sxm"));
  CHECK_THAT(b.ranks.front().bytes(MemoryCategory::kv_cache),
             WithinRel(2.0 * 80 * 1 * 128 * 2 * static_cast<double>(w.context_len()), 1e-12));
}

TEST_CASE("serving: a sliding-window layer keeps only its window of KV (GPT-OSS-120B)") {
  // GPT-OSS-120B: 36 layers of 8 KV heads × 64 dims, 2 B each for K and V: 2048 B per token and
  // layer; the 18 sliding layers keep the last 128 tokens, the 18 full ones the whole context.
  ServingWorkload w;
  w.prompt_len = 8000;
  w.output_len = 192;
  w.concurrency = 3;
  Layout l;
  const GpuSpec gpu = *find_gpu("h200-sxm");
  const auto budget = serving_memory(*model_preset("gpt-oss-120b"), w, l, gpu);
  const double per_sequence = 2048.0 * (18 * 8192 + 18 * 128);
  CHECK_THAT(budget.ranks.front().bytes(MemoryCategory::kv_cache), WithinRel(3 * per_sequence, 1e-12));
  // A context inside the window holds the whole context in every layer.
  w.prompt_len = 100;
  w.output_len = 28;
  CHECK_THAT(serving_memory(*model_preset("gpt-oss-120b"), w, l, gpu).ranks.front().bytes(MemoryCategory::kv_cache),
             WithinRel(3 * 2048.0 * 36 * 128, 1e-12));
}
