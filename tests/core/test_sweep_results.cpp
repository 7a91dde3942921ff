// A sweep's JSON lines read back (core/session/sweep_results.hpp): the lines are written here in the format
// docs/sweeps.md specifies (`result` is rank --json's document), so the expected figures are the inputs.
#include <catch2/catch.hpp>
#include <string>

#include "core/project/project.hpp"
#include "core/session/sweep_results.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;

namespace {

std::string line(int index, const std::string& cluster, int dp, double tokens_per_gpu) {
  return R"({"index":)" + std::to_string(index) + R"(,"id":"00000000000000)" + std::to_string(10 + index) +
         R"(","model":"llama3-8b","cluster":")" + cluster +
         R"(","workload":{"global_batch":256,"seq":4096},"objective":"throughput","top":3,"result":{"evaluated":10,)"
         R"("valid":4,"collapsed":0,"rejected":{"does not fit":5,"TP > heads":1},"layouts":[{"layout":{"dp":")" +
         std::to_string(dp) +
         R"(","tp":"1","pp":"1","cp":"1","recompute":"none","zero":1,"schedule":"1f1b","order":"megatron",)"
         R"("tp_comm_overlap":false},"step_time_s":1.5,"tokens_per_s_per_gpu":)" +
         std::to_string(tokens_per_gpu) +
         R"(,"mfu":0.4,"peak_memory_bytes":1e10,"headroom_bytes":1e9,"bubble_fraction":0,)"
         R"("cost_per_million_tokens":2.5,"refined":false}]},"elapsed_s":0.1})";
}

}  // namespace

TEST_CASE("sweep results: points, their best layouts and the Pareto front of speed against efficiency") {
  const std::string text = line(0, "dgx-h100:nodes=1", 8, 1000) + "\n" + line(1, "dgx-h100:nodes=2", 16, 900) + "\n" +
                           line(2, "dgx-h100:nodes=2,gpu=h200-sxm", 16, 800) + "\n" +
                           line(3, "dgx-h100:nodes=4", 32, 950) + "\n" +
                           R"({"index":4,"id":"ff","model":"llama3-8b","cluster":"x","error":"no GPUs"})" + "\n";
  auto results = parse_sweep_results(text, "s.jsonl");
  REQUIRE(results);
  REQUIRE(results->points.size() == 5);
  const SweepResultPoint& first = results->points[0];
  CHECK(first.has_layout);
  CHECK(first.gpus == 8);
  CHECK(first.tokens_per_s() == 8000);
  CHECK(first.workload == KeyValues{{"global_batch", "256"}, {"seq", "4096"}});
  CHECK(first.layout_choices ==
        KeyValues{
            {"recompute", "none"}, {"schedule", "1f1b"}, {"tp_comm_overlap", "false"}, {"zero", "1"}});  // key order
  CHECK(first.top_rejected.front() == "does not fit");
  CHECK(first.series() == "llama3-8b · dgx-h100");
  CHECK(results->points[2].series() == "llama3-8b · dgx-h100:gpu=h200-sxm");
  CHECK(results->points[4].error == "no GPUs");
  CHECK_FALSE(results->points[4].has_layout);
  // 8 GPUs at 1,000/GPU is the most efficient; 32 at 950 is faster than and as efficient as 16 at 900 or 800.
  const auto front = sweep_pareto_front(results->points);
  REQUIRE(front.size() == 2);
  CHECK(front[0] == 0);
  CHECK(front[1] == 3);
}

TEST_CASE("sweep results: a bad line is an error with its line; a cut-off last line is a warning") {
  const std::string good = line(0, "dgx-h100:nodes=1", 8, 1000);
  auto bad = parse_sweep_results(good + "\nnot json\n" + good + "\n", "s.jsonl");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().to_string(), Contains("s.jsonl:2"));
  auto missing = parse_sweep_results(R"({"index":0,"id":"a","model":"m"})"
                                     "\n",
                                     "m.jsonl");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().to_string(), Contains("cluster"));
  auto cut = parse_sweep_results(good + "\n" + good.substr(0, 40), "cut.jsonl");
  REQUIRE(cut);
  CHECK(cut->points.size() == 1);
  REQUIRE(cut->warnings.size() == 1);
  CHECK_THAT(cut->warnings.front(), Contains("cut.jsonl:2"));
  CHECK_FALSE(parse_sweep_results("", "empty.jsonl"));
}

TEST_CASE("sweep results: a point opens as the project it ran") {
  auto base = default_project();
  REQUIRE(base);
  auto results = parse_sweep_results(line(0, "dgx-h100:nodes=1", 8, 1000) + "\n", "s.jsonl");
  REQUIRE(results);
  auto project = project_from_sweep_point(*base, results->points.front());
  REQUIRE(project);
  CHECK(project->model_ref == "llama3-8b");
  CHECK(project->cluster == "dgx-h100:nodes=1");
  CHECK(project->gpu_count == 8);
  CHECK(project->training.seq_len == 4096);
  CHECK(project->training.global_batch == 256);
  CHECK(project->training.recompute == RecomputeMode::none);
  CHECK(project->layout.dp == 8);
  CHECK(project->name == base->name);
  SweepResultPoint unknown = results->points.front();
  unknown.model = "llama9";
  CHECK_FALSE(project_from_sweep_point(*base, unknown));
}
