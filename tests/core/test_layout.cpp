// Layout validation: every violated constraint, each with a sentence a user understands.
#include <catch2/catch.hpp>
#include <numeric>

#include "core/model/catalogue.hpp"
#include "core/workload/layout.hpp"

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

// Megatron-LM docs/source/api-guide/pipeline_parallel_layout.md ("Custom Pipeline Model Parallel
// Layout"): DeepSeek-V3 (61 decoder layers + 1 MTP layer) on PP 16 × VPP 2 with
// "Et*3|(tt|)*29,m|L" holds, per the table there, embedding + 3 decoder layers | 2 on PP rank 0,
// 2 | 2 on ranks 1–13, 2 | mtp on rank 14 and 2 | loss on rank 15.
TEST_CASE("layout: Megatron-Core's pipeline layout string, as its documentation tabulates it") {
  const auto chunks = parse_pipeline_layout("Et*3|(tt|)*29,m|L");
  REQUIRE(chunks);
  REQUIRE(chunks->size() == 32);
  CHECK((*chunks)[0] == ModelChunk{3, 0, true, false});
  CHECK((*chunks)[16] == ModelChunk{2, 0, false, false});  // rank 0, chunk 1
  CHECK((*chunks)[30] == ModelChunk{0, 1, false, false});  // rank 14, chunk 1: the MTP layer
  CHECK((*chunks)[31] == ModelChunk{0, 0, false, true});   // rank 15, chunk 1: the loss alone

  const ModelSpec dsv3 = *model_preset("deepseek-v3");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 1024;
  Layout l;
  l.pp = 16;
  l.vpp = 2;
  l.ep = 8;
  l.dp = 8;
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";
  CHECK(validate_training_layout(dsv3, w, l, 128).empty());
  const auto stages = layers_per_stage(dsv3, l);
  CHECK(stages.front() == 5);
  CHECK(stages[13] == 4);
  CHECK(stages[14] == 2);
  CHECK(stages.back() == 2);
  CHECK(std::accumulate(stages.begin(), stages.end(), int64_t{0}) == 61);
  const auto chunk_layers = layers_per_virtual_stage(dsv3, l);
  CHECK(chunk_layers[31] == 0);
  const auto mtp = mtp_layers_per_virtual_stage(l);
  CHECK(std::accumulate(mtp.begin(), mtp.end(), int64_t{0}) == 1);
  CHECK(mtp[30] == 1);

  // Megatron-Bridge's DeepSeek-V3 recipe for PP 16 (recipes/deepseek/deepseek_v3.py layout_map
  // (16, 1): [embedding + 4 decoder], 14 × [4 decoder], [decoder, mtp, loss]).
  Layout bridge = l;
  bridge.vpp = 1;
  bridge.pipeline_layout = "Et*4|(t*4|)*14tmL";
  CHECK(validate_training_layout(dsv3, w, bridge, 128).empty());
  const auto bridge_stages = layers_per_stage(dsv3, bridge);
  CHECK(bridge_stages.front() == 4);
  CHECK(bridge_stages.back() == 1);
}

TEST_CASE("layout: a pipeline layout that does not fit the model or the degrees says why") {
  const ModelSpec dsv3 = *model_preset("deepseek-v3");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 1024;
  Layout l;
  l.pp = 16;
  l.vpp = 1;
  l.ep = 8;
  l.dp = 8;
  // Syntax, as Megatron-Core's parser refuses it.
  for (const auto& [text, words] :
       std::vector<std::pair<std::string, std::string>>{{"Et*4|x|L", "'x' is not a layer"},
                                                        {"E(t|*3L", "not closed"},
                                                        {"E(tt|)L", "must be followed by *n"},
                                                        {"E((t)*2|)*3L", "cannot be nested"},
                                                        {"t|E|L", "begin with the embedding"},
                                                        {"Et|L|t", "end with the loss"},
                                                        {"Etm|tL", "before the MTP layers"},
                                                        {"EEt|L", "exactly one E"},
                                                        {"Et*|L", "repeat count"}}) {
    INFO(text);
    const auto chunks = parse_pipeline_layout(text);
    REQUIRE_FALSE(chunks);
    CHECK_THAT(chunks.error().message, Contains(words));
  }
  // Against the model and the degrees.
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";  // 32 chunks: vpp 2, not 1
  CHECK(has_problem(validate_training_layout(dsv3, w, l, 128), "vpp", "set vpp=2"));
  l.pipeline_layout = "Et*4|(t*4|)*14L";  // 60 layers
  CHECK(has_problem(validate_training_layout(dsv3, w, l, 128), "pp_layout", "places 60 transformer layers"));
  l.pipeline_layout = "Et*4|(t*4|)*13t*5|L";  // 16 chunks over PP 16 but MTP-free: valid
  CHECK(validate_training_layout(dsv3, w, l, 128).empty());
  l.pipeline_layout = "Et*4|(t*4|)*14tmL";
  l.stage_layers.assign(16, 4);
  CHECK(has_problem(validate_training_layout(dsv3, w, l, 128), "stage_layers", "not both"));
  l.stage_layers.clear();
  l.pipeline_layout = "Et*4|(t*4|)*15t|L";  // 18 chunks
  CHECK(has_problem(validate_training_layout(dsv3, w, l, 128), "pp_layout", "not a multiple of PP=16"));
  // The MTP layer in rank 15's first chunk of two, ranks' second chunks empty (validate_layer_layout).
  l.vpp = 2;
  l.pipeline_layout = "Et*5|(t*4|)*14m|(|)*15L";
  CHECK(has_problem(validate_training_layout(dsv3, w, l, 128), "pp_layout", "last model chunk"));
}
