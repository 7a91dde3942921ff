// Layout validation: every violated constraint, each with a sentence a user understands.
#include <catch2/catch.hpp>
#include <numeric>

#include "core/catalogue.hpp"
#include "core/layout.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {
bool has_problem(const std::vector<LayoutProblem>& problems, const std::string& field, const std::string& words) {
  for (const auto& p : problems)
    if (p.field == field && p.message.find(words) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("layout: a valid Megatron layout has no problems") {
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 512;
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.vpp = 5;
  l.dp = 2;
  l.sp = true;
  CHECK(validate_training_layout(*model_preset("llama3.1-70b"), w, l, 64).empty());
}

TEST_CASE("layout: every violated constraint is reported, not only the first") {
  TrainingWorkload w;
  w.seq_len = 8190;
  w.global_batch = 100;
  Layout l;
  l.tp = 3;  // 64 heads, 8 KV heads
  l.pp = 7;  // 80 layers
  l.cp = 2;  // 8190 % 4 != 0
  l.dp = 3;  // 100 % 3 != 0
  const auto problems = validate_training_layout(*model_preset("llama3.1-70b"), w, l, 64);
  CHECK(has_problem(problems, "tp", "64 attention heads"));
  CHECK(has_problem(problems, "tp", "8 KV heads"));
  CHECK(has_problem(problems, "pp", "80 layers"));
  CHECK(has_problem(problems, "cp", "2×CP"));
  CHECK(has_problem(problems, "global_batch", "not divisible by DP×micro-batch"));
  CHECK(has_problem(problems, "dp", "the cluster has 64 GPUs"));
}

TEST_CASE("layout: expert parallelism must divide the experts and fit the stage's ranks") {
  TrainingWorkload w;
  w.global_batch = 64;
  Layout l;
  l.dp = 6;
  l.ep = 3;  // 8 experts
  auto problems = validate_training_layout(*model_preset("mixtral-8x7b"), w, l);
  CHECK(has_problem(problems, "ep", "8 experts"));
  l.ep = 4;
  l.dp = 2;
  problems = validate_training_layout(*model_preset("mixtral-8x7b"), w, l);
  CHECK(has_problem(problems, "ep", "must divide TP×CP×DP"));
  l.ep = 2;
  l.dp = 2;
  CHECK(validate_training_layout(*model_preset("mixtral-8x7b"), w, l).empty());
  l.ep = 2;
  CHECK(has_problem(validate_training_layout(*model_preset("llama3-8b"), w, l), "ep", "dense"));
}

TEST_CASE("layout: explicit stage layers must add up and match PP") {
  TrainingWorkload w;
  w.global_batch = 64;
  Layout l;
  l.pp = 4;
  l.stage_layers = {10, 10, 10};
  auto problems = validate_training_layout(*model_preset("llama3-8b"), w, l);
  CHECK(has_problem(problems, "stage_layers", "3 stages but PP=4"));
  CHECK(has_problem(problems, "stage_layers", "add up to 30"));
  l.stage_layers = {7, 9, 9, 7};
  CHECK(validate_training_layout(*model_preset("llama3-8b"), w, l).empty());
}

TEST_CASE("layout: interleaving needs PP > 1 and micro-batches in multiples of PP") {
  TrainingWorkload w;
  w.global_batch = 6;
  Layout l;
  l.pp = 4;
  l.vpp = 2;
  auto problems = validate_training_layout(*model_preset("llama3-8b"), w, l);
  CHECK(has_problem(problems, "vpp", "multiple of PP=4"));
  l.pp = 1;
  problems = validate_training_layout(*model_preset("llama3-8b"), w, l);
  CHECK(has_problem(problems, "vpp", "PP > 1"));
}

TEST_CASE("layout: an uneven split is interleaved chunk by chunk, the ends one layer lighter") {
  // Llama 3 405B: 126 layers on 16 pipeline ranks, one fewer on the first and the last (Dubey et
  // al. 2024 §3.3.2), interleaved over 4 chunks per rank: 7 layers become 1+2+2+2 on the first
  // rank (its first chunk holds the embedding) and 2+2+2+1 on the last (its last, the LM head).
  const ModelSpec m = *model_preset("llama3.1-405b");
  TrainingWorkload w;
  w.global_batch = 2048;
  Layout l;
  l.tp = 8;
  l.pp = 16;
  l.dp = 64;
  l.vpp = 4;
  l.stage_layers = {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7};
  CHECK(validate_training_layout(m, w, l).empty());
  const auto chunks = layers_per_virtual_stage(m, l);
  REQUIRE(chunks.size() == 64);
  CHECK(std::accumulate(chunks.begin(), chunks.end(), int64_t{0}) == 126);
  const auto chunk_of = [&](int64_t rank, int64_t chunk) { return chunks[static_cast<size_t>(chunk * 16 + rank)]; };
  CHECK(chunk_of(0, 0) == 1);
  CHECK(chunk_of(0, 1) == 2);
  CHECK(chunk_of(0, 3) == 2);
  CHECK(chunk_of(15, 0) == 2);
  CHECK(chunk_of(15, 3) == 1);
  for (int64_t r = 1; r < 15; ++r)
    for (int64_t c = 0; c < 4; ++c) CHECK(chunk_of(r, c) == 2);
  // Virtual stages run the layers in order.
  const auto firsts = first_layer_of_virtual_stage(m, l);
  CHECK(firsts[0] == 0);
  CHECK(firsts[1] == 1);
  CHECK(firsts[63] == 125);
  // Without interleaving a virtual stage is the rank.
  l.vpp = 1;
  CHECK(layers_per_virtual_stage(m, l) == layers_per_stage(m, l));
  // A chunk needs a layer: 7 layers cannot fill 8 chunks.
  l.vpp = 8;
  CHECK(has_problem(validate_training_layout(m, w, l), "stage_layers", "7 layers cannot fill 8 virtual stages"));
}

TEST_CASE("layout: degrees below one are refused by name") {
  TrainingWorkload w;
  Layout l;
  l.tp = 0;
  const auto problems = validate_training_layout(*model_preset("llama3-8b"), w, l);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems.front().message, Contains("tp must be at least 1"));
}
