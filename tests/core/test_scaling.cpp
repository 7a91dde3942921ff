// Weak and strong scaling (core/session/scaling.hpp): every point is the layout search's own best for its
// size and batch, the batch follows the stated rule, and the efficiency is the stated ratio to the baseline.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/catalogue.hpp"
#include "core/report/scaling.hpp"
#include "core/session/scaling.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

TrainingWorkload small_workload(int64_t global_batch) {
  TrainingWorkload w;
  w.seq_len = 1024;
  w.global_batch = global_batch;
  return w;
}

ScalingResult scale(const std::string& model, const std::string& family, std::vector<int64_t> gpus, ScalingMode mode,
                    int64_t batch) {
  SearchOptions options;
  options.top = 1;
  auto result = run_scaling(*model_preset(model), small_workload(batch), {family, std::move(gpus), mode}, options);
  if (!result) FAIL(result.error().to_string());
  return *result;
}

}  // namespace

TEST_CASE("scaling: GPU counts parse as powers of two, steps, factors or a list; bad ones are errors") {
  CHECK(*parse_gpu_counts("64:512") == std::vector<int64_t>{64, 128, 256, 512});
  CHECK(*parse_gpu_counts("8:32:+8") == std::vector<int64_t>{8, 16, 24, 32});
  CHECK(*parse_gpu_counts("8:200:x4") == std::vector<int64_t>{8, 32, 128});
  CHECK(*parse_gpu_counts("8,16,48") == std::vector<int64_t>{8, 16, 48});
  for (const char* bad : {"", "64:8", "0:8", "8:16:*2", "8:16:x1", "16,8", "8,a", "1:100000", "a:b"}) {
    INFO(bad);
    const auto counts = parse_gpu_counts(bad);
    REQUIRE(!counts);
    CHECK(counts.error().location == "--gpus");
  }
}

TEST_CASE("scaling: the family varies the node count; a size that is not a multiple of a node is an error") {
  const auto family = parse_cluster_family("dgx-h100:nodes=2,oversubscription=2");
  REQUIRE(family);
  CHECK(family->gpus_per_unit == 8);
  CHECK(*family_cluster_spec(*family, 64) == "dgx-h100:oversubscription=2,nodes=8");
  const auto bad = family_cluster_spec(*family, 12);
  REQUIRE(!bad);
  CHECK_THAT(bad.error().message, Contains("12 GPUs is not a multiple of the 8 GPUs per node"));
  CHECK(!parse_cluster_family("no-such-generator"));
  CHECK(parse_cluster_family("gb200-nvl72")->gpus_per_unit == 72);
  SearchOptions options;
  const auto run =
      run_scaling(*model_preset("gpt2"), small_workload(8), {"rtx4090-ws", {4, 6}, ScalingMode::weak}, options);
  REQUIRE(!run);
  CHECK_THAT(run.error().message, Contains("6 GPUs is not a multiple of the 4 GPUs per node"));
}

TEST_CASE("scaling: each point is rank_layouts' own best for its size and batch") {
  const auto mode = GENERATE(ScalingMode::weak, ScalingMode::strong);
  const ScalingResult r = scale("gpt2", "rtx4090-ws", {4, 8, 16}, mode, 16);
  REQUIRE(r.points.size() == 3);
  for (const ScalingPoint& p : r.points) {
    INFO(p.gpus);
    REQUIRE(p.valid);
    TrainingWorkload w = small_workload(p.global_batch);
    SearchOptions options;
    options.top = 1;
    const auto search = rank_layouts(*model_preset("gpt2"), w, *generate_cluster(p.cluster), options);
    REQUIRE(search);
    REQUIRE(!search->layouts.empty());
    const RankedLayout& best = search->layouts.front();
    CHECK(best.layout == p.best.layout);
    CHECK(ranked_layout_keys(best) == ranked_layout_keys(p.best));
    CHECK(best.step_time_s == p.best.step_time_s);
    CHECK(best.tokens_per_s_per_gpu == p.best.tokens_per_s_per_gpu);
    CHECK(p.tokens_per_s == best.tokens_per_s_per_gpu * static_cast<double>(p.gpus));
    CHECK(p.best.layout.world_size() == p.gpus);
  }
}

TEST_CASE("scaling: weak scaling grows the batch as B0 · N / N0, strong scaling keeps it") {
  const ScalingResult weak = scale("gpt2", "rtx4090-ws", {4, 8, 16}, ScalingMode::weak, 16);
  for (const ScalingPoint& p : weak.points) CHECK(p.global_batch == 16 * p.gpus / 4);
  const ScalingResult strong = scale("gpt2", "rtx4090-ws", {4, 8, 16}, ScalingMode::strong, 16);
  for (const ScalingPoint& p : strong.points) CHECK(p.global_batch == 16);
  CHECK_THAT(weak.efficiency_definition, Contains("16 × N / 4"));
  CHECK_THAT(strong.efficiency_definition, Contains("T(N_b) × N_b / (T(N) × N)"));
}

TEST_CASE("scaling: the efficiency is 1 at the baseline and the defined ratio elsewhere") {
  const auto mode = GENERATE(ScalingMode::weak, ScalingMode::strong);
  const ScalingResult r = scale("gpt2", "rtx4090-ws", {4, 8, 16}, mode, 16);
  REQUIRE(r.has_baseline);
  CHECK(r.baseline_gpus == 4);
  CHECK(r.points.front().scaling_efficiency == 1.0);
  CHECK_THAT(r.efficiency_definition, Contains("N_b = 4 GPUs"));
  for (const ScalingPoint& p : r.points) {
    CHECK(p.scaling_efficiency == p.best.tokens_per_s_per_gpu / r.baseline_tokens_per_s_per_gpu);
    if (mode == ScalingMode::strong)  // fixed tokens per step: the step-time form of the same ratio
      CHECK_THAT(p.scaling_efficiency,
                 WithinRel(r.baseline_step_time_s * 4 / (p.best.step_time_s * static_cast<double>(p.gpus)), 1e-9));
  }
}

TEST_CASE("scaling: layout_changed marks exactly the points whose best layout differs (dp aside)") {
  const ScalingResult r = scale("llama3-8b", "dgx-h100", {8, 16, 32, 64}, ScalingMode::strong, 64);
  const ScalingPoint* previous = nullptr;
  for (const ScalingPoint& p : r.points) {
    if (!p.valid) continue;
    if (!previous) {
      CHECK(!p.layout_changed);
    } else {
      auto a = ranked_layout_keys(previous->best), b = ranked_layout_keys(p.best);
      std::erase_if(a, [](const auto& kv) { return kv.first == "dp"; });
      std::erase_if(b, [](const auto& kv) { return kv.first == "dp"; });
      CHECK(p.layout_changed == (a != b));
      CHECK(p.layout_change == layout_change_text(previous->best, p.best));
    }
    previous = &p;
  }
  RankedLayout tp4, tp8;
  tp4.layout.tp = 4;
  tp8.layout.tp = 8;
  tp8.layout.pp = 2;
  tp8.layout.dp = 7;
  CHECK(layout_change_text(tp4, tp8) == "tp 4→8, pp 1→2");
  CHECK(layout_change_text(tp4, tp4).empty());
}

TEST_CASE("scaling: sizes that cannot run come out invalid with the reason") {
  // Weak scaling from 8 GPUs with one sequence: 12 GPUs would need 1.5 sequences.
  const ScalingResult weak = scale("gpt2", "rtx4090-ws", {8, 12}, ScalingMode::weak, 1);
  REQUIRE(weak.points.size() == 2);
  CHECK(!weak.points[1].valid);
  CHECK_THAT(weak.points[1].error, Contains("not a whole number of sequences"));
  // Strong scaling of one sequence of GPT-2 (12 heads, 12 layers) over 512 GPUs: no mesh splits it.
  const ScalingResult strong = scale("gpt2", "dgx-h100", {8, 512}, ScalingMode::strong, 1);
  REQUIRE(strong.points.size() == 2);
  CHECK(!strong.points[1].valid);
  CHECK_THAT(strong.points[1].error, Contains("no valid layout"));
  CHECK(!strong.points[1].top_rejections.empty());
  CHECK(strong.points[1].scaling_efficiency == 0);
}

TEST_CASE("scaling: the report names each point's baseline and the definition; invalid points say why") {
  const ScalingResult r = scale("gpt2", "rtx4090-ws", {8, 12}, ScalingMode::weak, 1);
  const nlohmann::json doc = scaling_report(r);
  CHECK(doc.at("mode") == "weak");
  CHECK(doc.at("efficiency_definition") == r.efficiency_definition);
  REQUIRE(doc.at("points").size() == 2);
  for (const auto& point : doc.at("points")) CHECK(point.at("baseline") == doc.at("baseline"));
  CHECK(doc.at("baseline").at("gpus") == 8);
  CHECK(doc.at("points")[0].at("scaling_efficiency") == 1.0);
  CHECK(doc.at("points")[0].at("tokens_per_s") == r.points[0].tokens_per_s);
  CHECK(doc.at("points")[1].at("valid") == false);
  CHECK(doc.at("points")[1].at("error") == r.points[1].error);
}
