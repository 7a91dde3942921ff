// The inputs and measurements every front end shares (core/session/inputs.hpp, measurements.hpp, training.hpp):
// the training setup and its checks, the files a list of trace paths names, a run loaded with progress and
// cancellation, and a project built from a front end's arguments. Expected values come from the core's own entry
// points called directly (validate_training_layout, load_kineto_trace, analyze_kineto_run, estimate_step), from
// the shared folder's own listing, or from the inputs themselves — never from the function under test.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/session/inputs.hpp"
#include "core/session/measurements.hpp"
#include "core/session/training.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using meshscope::test::shared_path;

namespace {

const std::string kRankFolder = shared_path("data/kineto_traces/param_dlrm_8rank");

Cluster cluster_of(const std::string& spec) {
  auto cluster = resolve_cluster(spec);
  if (!cluster) FAIL(cluster.error().to_string());
  return *cluster;
}

ModelSpec model_of(const std::string& name) {
  auto model = resolve_model(name);
  if (!model) FAIL(model.error().to_string());
  return *model;
}

}  // namespace

TEST_CASE("session inputs: a layout that does not fill the cluster is refused for an estimate, not for a comparison") {
  const KeyValues train = {{"seq", "4096"}, {"global_batch", "64"}};
  const KeyValues dp8 = {{"dp", "8"}};
  // dgx-h100:nodes=2 has 16 GPUs; DP 8 uses half of them.
  auto fill = training_setup(model_of("llama3-8b"), cluster_of("dgx-h100:nodes=2"), train, dp8, ClusterUse::fill);
  REQUIRE_FALSE(fill);
  CHECK(fill.error().code == ErrorCode::invalid_layout);
  CHECK_THAT(fill.error().message,
             Catch::Matchers::StartsWith("the layout is not valid for Llama-3-8B on this cluster:"));
  auto fit = training_setup(model_of("llama3-8b"), cluster_of("dgx-h100:nodes=2"), train, dp8, ClusterUse::fit);
  REQUIRE(fit);
  CHECK(fit->layout.dp == 8);
  CHECK(fit->workload.seq_len == 4096);
  // Twice the cluster: refused even for a comparison, with the counts.
  const KeyValues dp32 = {{"dp", "32"}};
  auto too_big = training_setup(model_of("llama3-8b"), cluster_of("dgx-h100:nodes=2"), train, dp32, ClusterUse::fit);
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message == "the layout has 32 ranks but the cluster only 16 GPUs");
  // The search chooses its own layout: nothing checked.
  CHECK(training_setup(model_of("llama3-8b"), cluster_of("dgx-h100:nodes=2"), train, dp32, ClusterUse::any));
}

TEST_CASE("session inputs: the problems message lists every problem validate_training_layout finds, in order") {
  const ModelSpec model = model_of("llama3-70b");  // 64 heads, 80 layers
  Layout layout;
  layout.tp = 3;
  layout.pp = 7;
  const auto problems = validate_training_layout(model, TrainingWorkload{}, layout);
  REQUIRE(problems.size() >= 2);
  const std::string message = problems_message("M", problems);
  std::string expected = "the layout is not valid for M:";
  for (const auto& p : problems) expected += "\n  [" + p.field + "] " + p.message;
  CHECK(message == expected);
}

TEST_CASE("session measurements: a folder stands for its traces sorted by name; bad entries are located") {
  std::vector<std::string> listed;
  for (const auto& item : std::filesystem::directory_iterator(kRankFolder)) listed.push_back(item.path().string());
  std::sort(listed.begin(), listed.end());
  auto files = expand_trace_paths({kRankFolder}, "--trace");
  REQUIRE(files);
  CHECK(*files == listed);
  CHECK(files->size() == 8);  // worker0 … worker7 (tests/data/shared/PROVENANCE.md)
  // A file as given, in the order given, around the folder's.
  auto mixed = expand_trace_paths({"b.json", kRankFolder, "a.json"}, "--trace");
  REQUIRE(mixed);
  CHECK(mixed->front() == "b.json");
  CHECK(mixed->back() == "a.json");
  // A folder with no trace in it (the shared nccl-tests logs: .log files only), and nothing at all.
  const std::string no_traces = shared_path("data/nccl_tests");
  auto empty_folder = expand_trace_paths({no_traces}, "--trace");
  REQUIRE_FALSE(empty_folder);
  CHECK(empty_folder.error().location == no_traces);
  auto nothing = expand_trace_paths({}, "trace");
  REQUIRE_FALSE(nothing);
  CHECK(nothing.error().to_string() == "trace: needs at least one file or folder");
}

TEST_CASE("session measurements: a run loads as the importer and the analysis give it, with progress and cancel") {
  auto files = expand_trace_paths({kRankFolder}, "--trace");
  REQUIRE(files);
  std::vector<KinetoTrace> traces;
  int64_t total_bytes = 0;
  for (const std::string& f : *files) {
    auto trace = load_kineto_trace(f);
    REQUIRE(trace);
    traces.push_back(std::move(*trace));
    total_bytes += static_cast<int64_t>(std::filesystem::file_size(f));
  }
  const KinetoRunAnalysis direct = analyze_kineto_run(traces);

  std::vector<int64_t> seen;
  auto run = load_trace_run(*files, {}, [&seen](int64_t bytes) {
    seen.push_back(bytes);
    return true;
  });
  REQUIRE(run);
  CHECK(run->ranks.size() == direct.ranks.size());
  CHECK(run->warnings == direct.warnings);
  REQUIRE_FALSE(seen.empty());
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(seen.back() == total_bytes);

  int calls = 0;
  auto cancelled = load_trace_run(*files, {}, [&calls](int64_t) { return ++calls < 3; });
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().message == kKinetoCancelled);

  auto missing = load_trace_run({kRankFolder + "/no-such-rank.json"});
  REQUIRE_FALSE(missing);
}

TEST_CASE("session training: a project from a front end's arguments estimates as estimate_step does") {
  TrainingArguments arguments;
  arguments.model = model_of("llama3-8b");
  arguments.cluster = cluster_of("dgx-h100:nodes=2");
  arguments.cluster_ref = "dgx-h100:nodes=2";
  arguments.train = {{"seq", "4096"}, {"global_batch", "64"}};
  arguments.layout = {{"tp", "2"}, {"dp", "8"}};
  arguments.efficiency = {{"gemm", "0.6"}};
  auto project = training_project(arguments);
  REQUIRE(project);
  CHECK(project->cluster == "dgx-h100:nodes=2");
  CHECK_FALSE(project->cluster_inline);
  CHECK(project->gpu_count == 16);
  CHECK(project->layout.tp == 2);

  auto evaluation = evaluate_training(*project, &arguments.cluster);
  REQUIRE(evaluation);
  REQUIRE(evaluation->estimate);
  // The core's estimate of the same inputs, with the same calibration.
  auto workload = training_from_keys(arguments.train);
  auto layout = layout_from_keys(arguments.layout);
  REQUIRE(workload);
  REQUIRE(layout);
  EstimateOptions options;
  auto efficiency = compute_efficiency_from_keys(arguments.efficiency);
  REQUIRE(efficiency);
  options.efficiency = *efficiency;
  const Router router(arguments.cluster);
  auto direct = estimate_step(arguments.model, *workload, *layout, arguments.cluster, router, options);
  REQUIRE(direct);
  CHECK(evaluation->estimate->step_time_s == direct->step_time_s);
  CHECK(evaluation->estimate->mfu == direct->mfu);

  // Without the resolved cluster the project resolves its own, to the same estimate.
  auto again = evaluate_training(*project);
  REQUIRE(again);
  CHECK(again->estimate->step_time_s == direct->step_time_s);

  // A bad calibration key is the project's error, before anything is estimated.
  arguments.comm = {{"no_such_constant", "1"}};
  CHECK_FALSE(training_project(arguments));

  // A layout that does not fill the cluster: the problems, as estimate prints them.
  arguments.comm.clear();
  arguments.layout = {{"dp", "8"}};
  auto half = training_project(arguments);
  REQUIRE(half);
  auto refused = evaluate_training(*half, &arguments.cluster);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message,
             Catch::Matchers::StartsWith("the layout is not valid for Llama-3-8B on this cluster:"));
}

TEST_CASE("session training: rank_project ranks as rank_layouts does under the project's calibration") {
  TrainingArguments arguments;
  arguments.model = model_of("llama3-8b");
  arguments.cluster = cluster_of("dgx-h100:nodes=2");
  arguments.cluster_ref = "dgx-h100:nodes=2";
  arguments.train = {{"seq", "4096"}, {"global_batch", "64"}};
  arguments.efficiency = {{"gemm", "0.5"}};
  auto project = training_project(arguments);
  REQUIRE(project);
  SearchRequest request;
  request.top = 3;
  auto ranked = rank_project(*project, arguments.cluster, request);
  REQUIRE(ranked);
  SearchOptions options;
  options.top = 3;
  auto efficiency = compute_efficiency_from_keys(arguments.efficiency);
  REQUIRE(efficiency);
  options.estimate.efficiency = *efficiency;
  auto direct = rank_layouts(project->model, project->training, arguments.cluster, options);
  REQUIRE(direct);
  REQUIRE(ranked->layouts.size() == direct->layouts.size());
  for (size_t i = 0; i < direct->layouts.size(); ++i) {
    CHECK(ranked->layouts[i].layout == direct->layouts[i].layout);
    CHECK(ranked->layouts[i].step_time_s == direct->layouts[i].step_time_s);
  }
}
