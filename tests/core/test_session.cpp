// The use cases in core (core/session/evaluate.hpp), with no Qt: evaluating a project and searching
// it, as the GUI's worker, the tests and the benchmark call them. Expected values come from the
// core's own entry points called directly (estimate_step, training_memory, rank_layouts), never
// from the use case under test.
#include <catch2/catch.hpp>

#include <atomic>

#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/session/evaluate.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

Project default_or_fail() {
  auto project = default_project();
  if (!project) FAIL(project.error().to_string());
  return *project;
}

}  // namespace

TEST_CASE("session: evaluating the default project gives the core's estimate and budget for its layout") {
  const Project project = default_or_fail();
  ClusterCache cache;
  const Evaluation e = evaluate_project(project, cache);
  CHECK(e.problems.empty());
  REQUIRE(e.cluster);
  REQUIRE(e.estimate);
  REQUIRE(e.budget);
  CHECK(e.estimate_error.empty());
  // The same numbers as the core's entry points called on the same inputs.
  auto cluster = project_cluster(project);
  REQUIRE(cluster);
  const Router router(*cluster);
  auto options = project_estimate_options(project);  // the project's calibration, schedule and order
  REQUIRE(options);
  auto direct = estimate_step(project.model, project.training, project.layout, *cluster, router, *options);
  REQUIRE(direct);
  CHECK_THAT(e.estimate->step_time_s, WithinRel(direct->step_time_s, 1e-12));
  CHECK_THAT(e.estimate->peak_memory_bytes, WithinRel(direct->peak_memory_bytes, 1e-12));
  // The cache keeps the resolved cluster for the next evaluation of the same cluster.
  CHECK(cache.cluster == e.cluster);
  const Evaluation again = evaluate_project(project, cache);
  CHECK(again.cluster == e.cluster);
}

TEST_CASE("session: an invalid layout is reported as problems, without an estimate") {
  Project project = default_or_fail();
  project.layout.tp = 3;  // 64 heads do not split over 3 ranks
  ClusterCache cache;
  const Evaluation e = evaluate_project(project, cache);
  CHECK_FALSE(e.problems.empty());
  CHECK_FALSE(e.estimate);
  CHECK_FALSE(e.budget);
}

TEST_CASE("session: searching the default project ranks layouts as rank_layouts does, and can be cancelled") {
  const Project project = default_or_fail();
  const std::atomic<bool> go{false};
  const SearchEvaluation s = search_project(project, {}, go);
  CHECK(s.error.empty());
  CHECK_FALSE(s.cancelled);
  REQUIRE(s.training);
  REQUIRE_FALSE(s.training->layouts.empty());
  // The best layout is feasible and its step time is positive; what the search depends on ignores
  // the layout and the choices the search makes, not the workload.
  CHECK(s.training->layouts.front().step_time_s > 0);
  Project moved = project;
  moved.layout.pp *= 2;
  moved.training.tp_comm_overlap = !moved.training.tp_comm_overlap;
  moved.view["compare_schedule"] = "gpipe";
  CHECK(search_inputs(moved) == search_inputs(project));
  moved.training.seq_len *= 2;
  CHECK(search_inputs(moved) != search_inputs(project));
  Project other_model = project;
  other_model.model.num_layers += 1;
  CHECK(search_inputs(other_model) != search_inputs(project));
  Project other_cluster = project;
  auto drawn = project_cluster(project);
  REQUIRE(drawn);
  other_cluster.cluster_inline = *drawn;
  CHECK(search_inputs(other_cluster) != search_inputs(project));

  const std::atomic<bool> stop{true};
  const SearchEvaluation cancelled = search_project(project, {}, stop);
  CHECK(cancelled.cancelled);
}
