// Sweeps: the spec and its range syntax, the points' order and ids, output that does not depend on
// the number of threads, resuming from a killed run's file, shards, and merging them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/session/sweep.hpp"

using namespace meshscope;
using nlohmann::json;

namespace {

const char* const kSpec = R"({
  "models": ["gpt2", "llama3-8b"],
  "clusters": ["dgx-h100:nodes=1..2"],
  "workloads": [{"seq": 2048, "global_batch": 32}, {"seq": 4096, "global_batch": 16}],
  "objectives": ["throughput", "cost-per-token"],
  "top": 2
})";

SweepPlan tiny_plan() {
  auto spec = parse_sweep_spec_text(kSpec);
  REQUIRE(spec);
  auto plan = plan_sweep(*spec);
  REQUIRE(plan);
  return std::move(*plan);
}

std::vector<std::string> run_all(const SweepPlan& plan, const std::vector<SweepPoint>& points, int threads) {
  std::vector<std::string> lines;
  SweepRunOptions options;
  options.threads = threads;
  run_sweep_points(plan, points, options, [&](const std::string& line) { lines.push_back(line); });
  return lines;
}

std::vector<json> without_elapsed(const std::vector<std::string>& lines) {
  std::vector<json> docs;
  for (const auto& line : lines) docs.push_back(sweep_line_without_elapsed(json::parse(line)));
  return docs;
}

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("meshscope_sweep_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  [[nodiscard]] std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace

TEST_CASE("sweep: ranges expand to every value, the leftmost key slowest") {
  auto single = expand_cluster_ranges("dgx-h100:nodes=4");
  REQUIRE(single);
  CHECK(*single == std::vector<std::string>{"dgx-h100:nodes=4"});
  auto doubling = expand_cluster_ranges("dgx-h100:nodes=1..64:x2");
  REQUIRE(doubling);
  CHECK(doubling->size() == 7);
  CHECK(doubling->front() == "dgx-h100:nodes=1");
  CHECK(doubling->back() == "dgx-h100:nodes=64");
  auto stepped = expand_cluster_ranges("dgx-h100:nodes=2..9:+3");
  REQUIRE(stepped);
  CHECK(*stepped == std::vector<std::string>{"dgx-h100:nodes=2", "dgx-h100:nodes=5", "dgx-h100:nodes=8"});
  auto product = expand_cluster_ranges("dgx-a100:nodes=1..2,oversubscription=1|2");
  REQUIRE(product);
  CHECK(*product ==
        std::vector<std::string>{"dgx-a100:nodes=1,oversubscription=1", "dgx-a100:nodes=1,oversubscription=2",
                                 "dgx-a100:nodes=2,oversubscription=1", "dgx-a100:nodes=2,oversubscription=2"});
  CHECK_FALSE(expand_cluster_ranges("dgx-h100:nodes=8..2"));
  CHECK_FALSE(expand_cluster_ranges("dgx-h100:nodes=1..8:x1"));
  CHECK_FALSE(expand_cluster_ranges("dgx-h100:nodes=1..8:*2"));
}

TEST_CASE("sweep: spec errors name the field and its index") {
  const auto error_of = [](const char* text) {
    auto spec = parse_sweep_spec_text(text);
    if (!spec) return spec.error().to_string();
    auto plan = plan_sweep(*spec);
    return plan ? std::string() : plan.error().to_string();
  };
  CHECK_THAT(error_of("{"), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of(R"({"clusters": ["dgx-h100"]})"), Catch::Contains("models"));
  CHECK_THAT(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100", "dgx-h100:nodes=3..1"]})"),
             Catch::Contains("clusters[1]"));
  CHECK_THAT(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100"], "workloads": [{}, {"sequence": 1}]})"),
             Catch::Contains("workloads[1]") && Catch::Contains("sequence"));
  CHECK_THAT(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100"], "objectives": ["speed"]})"),
             Catch::Contains("objectives[0]"));
  CHECK_THAT(error_of(R"({"models": ["gpt2", "llama9"], "clusters": ["dgx-h100"]})"), Catch::Contains("models[1]"));
  CHECK_THAT(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100", "nosuch:nodes=2"]})"),
             Catch::Contains("clusters[1]"));
  CHECK_THAT(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100"], "extra": 1})"), Catch::Contains("extra"));
  CHECK(error_of(R"({"models": ["gpt2"], "clusters": ["dgx-h100"]})").empty());
}

TEST_CASE("sweep: points are the cross product in a fixed order with ids that do not depend on the spec's size") {
  const SweepPlan plan = tiny_plan();
  REQUIRE(plan.points.size() == 2 * 2 * 2 * 2);
  for (size_t i = 0; i < plan.points.size(); ++i) CHECK(plan.points[i].index == static_cast<int64_t>(i));
  CHECK(plan.points[0].objective == RankObjective::throughput);
  CHECK(plan.points[1].objective == RankObjective::cost_per_token);
  CHECK(plan.points[8].model == 1);
  std::set<std::string> ids;
  for (const auto& p : plan.points) ids.insert(p.id);
  CHECK(ids.size() == plan.points.size());
  // The same point in a smaller spec keeps its id (a resumed run recognises it).
  auto smaller = plan_sweep(*parse_sweep_spec_text(R"({"models": ["llama3-8b"], "clusters": ["dgx-h100:nodes=1"],
      "workloads": [{"seq": 2048, "global_batch": 32}], "top": 2})"));
  REQUIRE(smaller);
  CHECK(smaller->points.at(0).id == plan.points[8].id);
}

TEST_CASE("sweep: a point's line holds its inputs, its best layouts and its rejection counts") {
  const SweepPlan plan = tiny_plan();
  const json line = json::parse(run_sweep_point(plan, plan.points[8]));
  CHECK(line["index"] == 8);
  CHECK(line["id"] == plan.points[8].id);
  CHECK(line["model"] == "llama3-8b");
  CHECK(line["cluster"] == "dgx-h100:nodes=1");
  CHECK(line["workload"]["seq"] == 2048);
  CHECK(line["objective"] == "throughput");
  CHECK(line["elapsed_s"].get<double>() >= 0);
  const json& result = line["result"];
  CHECK_FALSE(result.contains("elapsed_s"));
  CHECK(result["layouts"].size() == 2);
  CHECK(result["layouts"][0].contains("tokens_per_s_per_gpu"));
  CHECK(result["layouts"][0]["layout"].contains("tp"));
  CHECK(result["evaluated"].get<int64_t>() > 0);
  CHECK(result["rejected"].is_object());
}

TEST_CASE("sweep: the output is the same for one thread and for many") {
  const SweepPlan plan = tiny_plan();
  const auto serial = run_all(plan, plan.points, 1);
  const auto parallel = run_all(plan, plan.points, 4);
  REQUIRE(serial.size() == plan.points.size());
  CHECK(without_elapsed(serial) == without_elapsed(parallel));
}

TEST_CASE("sweep: shards partition the points and their merge is the whole sweep") {
  const SweepPlan plan = tiny_plan();
  TempDir dir;
  std::vector<std::string> files;
  size_t total = 0;
  for (int64_t shard = 0; shard < 3; ++shard) {
    const auto points = shard_points(plan.points, shard, 3);
    for (const auto& p : points) CHECK(p.index % 3 == shard);
    total += points.size();
    files.push_back(dir.file("shard" + std::to_string(shard) + ".jsonl"));
    REQUIRE(run_sweep_to_file(plan, points, files.back(), {}));
  }
  CHECK(total == plan.points.size());
  files.push_back(files.front());  // a shard given twice merges once
  auto merged = merge_sweep_files(files);
  REQUIRE(merged);
  CHECK(without_elapsed(*merged) == without_elapsed(run_all(plan, plan.points, 2)));
}

TEST_CASE("sweep: merge refuses conflicting results for one point") {
  const SweepPlan plan = tiny_plan();
  TempDir dir;
  json line = json::parse(run_sweep_point(plan, plan.points[0]));
  std::ofstream(dir.file("a.jsonl")) << line.dump() << "\n";
  line["result"]["evaluated"] = 1;
  std::ofstream(dir.file("b.jsonl")) << line.dump() << "\n";
  auto merged = merge_sweep_files({dir.file("a.jsonl"), dir.file("b.jsonl")});
  REQUIRE_FALSE(merged);
  CHECK_THAT(merged.error().to_string(), Catch::Contains(plan.points[0].id));
}

TEST_CASE("sweep: a resumed run skips the points in its file and drops a killed run's partial line") {
  const SweepPlan plan = tiny_plan();
  TempDir dir;
  const std::string path = dir.file("points.jsonl");
  const auto whole = run_all(plan, plan.points, 2);
  {
    // A killed run: five lines out of order (two threads), then half a line.
    std::ofstream out(path, std::ios::binary);
    for (const size_t i : {0, 2, 1, 3, 5}) out << whole[i] << "\n";
    out << whole[4].substr(0, whole[4].size() / 2);
  }
  auto summary = run_sweep_to_file(plan, plan.points, path, {});
  REQUIRE(summary);
  CHECK(summary->dropped_partial_line);
  CHECK(summary->skipped == 5);
  CHECK(summary->ran == static_cast<int64_t>(plan.points.size()) - 5);
  const auto lines = file_lines(path);
  CHECK(without_elapsed(lines) == without_elapsed(whole));
  // Everything done: nothing runs and the file stays as it is.
  auto again = run_sweep_to_file(plan, plan.points, path, {});
  REQUIRE(again);
  CHECK(again->ran == 0);
  CHECK(file_lines(path) == lines);
}
