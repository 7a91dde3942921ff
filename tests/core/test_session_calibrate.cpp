// The calibration use cases (core/session/calibrate.hpp) on the real nccl-tests logs of an 8×A100 machine
// (../shared/data/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_*.log) and on variants derived from them, and on a
// real profiler trace (../shared/data/kineto_traces). No multi-node nccl-tests log is mirrored: the logs from the
// held-out sources are not read here (tests/data/shared/PROVENANCE.md). Each use case must give what
// the lower-level functions give on the same inputs, merged into the project's keys, and refuse bad input with
// a clear error, the project unchanged.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/session/calibrate.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

std::string superbench_path(const std::string& name) {
  return test::shared_path("data/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_" + name + ".log");
}

Cluster cluster_of(const std::string& spec) {
  auto cluster = generate_cluster(spec);
  REQUIRE(cluster);
  return *cluster;
}

// The project the logs calibrate: its cluster is the logs' machine.
Project a100_project() {
  auto project = default_project();
  REQUIRE(project);
  project->cluster = "dgx-a100:gpu=a100-40gb-sxm";
  return *project;
}

// A temporary copy of `source` named `name` (a file name that does not say which collective it measured).
std::string copy_as(const std::string& source, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "meshscope_test_session_calibrate";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::copy_file(source, path, std::filesystem::copy_options::overwrite_existing);
  return path.string();
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "meshscope_test_session_calibrate";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("session calibrate: the default GPUs of a log are the cluster's first `ranks` GPUs") {
  const Cluster cluster = cluster_of("dgx-a100:nodes=2,gpu=a100-40gb-sxm");
  auto log = load_collective_log(superbench_path("allreduce"));
  REQUIRE(log);
  REQUIRE(log->ranks == 8);
  auto gpus = default_log_gpus(cluster, *log, "the log");
  REQUIRE(gpus);
  CHECK(*gpus == std::vector<DeviceId>(cluster.gpus.begin(), cluster.gpus.begin() + 8));

  NcclTestsLog unknown = *log;
  unknown.ranks = 0;
  auto none = default_log_gpus(cluster, unknown, "the log");
  REQUIRE_FALSE(none);
  CHECK_THAT(none.error().message, Contains("how many ranks"));
  CHECK(none.error().location == "the log");
}

TEST_CASE("session calibrate: a project is calibrated from an nccl-tests log as calibrate_from_nccl_tests fits it") {
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");
  Project project = a100_project();
  // A key the fit changes (its value replaced in place) and one it does not (kept).
  project.comm_keys = {{"nvlink_efficiency", "0.5"}, {"latency_scale", "1.5"}};
  const Project before = project;
  const std::string path = superbench_path("allgather");
  auto calibration = calibrate_project_from_nccl_tests(project, cluster, {path});
  REQUIRE(calibration);
  CHECK(project == before);

  // The same fit by hand: the log on the first 8 GPUs, from the project's keys, rows of at least 64 MiB.
  auto log = load_nccl_tests(path);
  REQUIRE(log);
  auto start = comm_constants_from_keys(project.comm_keys);
  REQUIRE(start);
  const std::vector<DeviceId> gpus(cluster.gpus.begin(), cluster.gpus.begin() + 8);
  auto fit = calibrate_from_nccl_tests({{*log, gpus}}, cluster, *start, 64.0 * 1024 * 1024);
  REQUIRE(fit);
  CHECK(calibration->min_bytes == 64.0 * 1024 * 1024);
  CHECK(calibration->fit.comm_keys == fit->comm_keys);
  CHECK(calibration->fit.changes == fit->changes);
  CHECK(calibration->fit.rows == fit->rows);
  CHECK(calibration->fit.error_before == fit->error_before);
  CHECK(calibration->fit.error_after == fit->error_after);

  // The merged keys: the project's in their order, fitted values in place, new keys appended.
  REQUIRE_FALSE(fit->comm_keys.empty());
  KeyValues expected = project.comm_keys;
  for (const auto& [key, value] : fit->comm_keys) {
    bool found = false;
    for (auto& entry : expected)
      if (entry.first == key) {
        entry.second = value;
        found = true;
      }
    if (!found) expected.emplace_back(key, value);
  }
  CHECK(calibration->comm_keys == expected);
  CHECK(calibration->comm_keys[0].first == "nvlink_efficiency");
  CHECK(calibration->comm_keys[0].second != "0.5");
  CHECK(calibration->comm_keys[1] == std::pair<std::string, std::string>{"latency_scale", "1.5"});

  // One row per measured out-of-place size, with the log's measured numbers and the model's before and after.
  auto rows_before = compare_nccl_tests(*log, cluster, gpus, *start);
  auto rows_after = compare_nccl_tests(*log, cluster, gpus, fit->constants);
  REQUIRE(rows_before);
  REQUIRE(rows_after);
  REQUIRE(calibration->rows.size() == rows_after->size());
  size_t measured = 0;
  for (const auto& r : log->rows) measured += r.bytes > 0 && r.out_of_place_time_s > 0 ? 1 : 0;
  CHECK(calibration->rows.size() == measured);
  for (size_t i = 0; i < calibration->rows.size(); ++i) {
    const NcclCalibrationRow& row = calibration->rows[i];
    CHECK(row.collective == "all-gather");
    CHECK(row.bytes == (*rows_after)[i].bytes);
    CHECK(row.measured_time_s == (*rows_after)[i].measured_time_s);
    CHECK(row.before_time_s == (*rows_before)[i].predicted_time_s);
    CHECK(row.after_time_s == (*rows_after)[i].predicted_time_s);
    CHECK(row.measured_busbw == (*rows_after)[i].measured_busbw);
    CHECK(row.after_busbw == (*rows_after)[i].predicted_busbw);
  }
}

TEST_CASE("session calibrate: several logs are fitted together and their rows kept in the logs' order") {
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");
  const Project project = a100_project();
  auto calibration =
      calibrate_project_from_nccl_tests(project, cluster, {superbench_path("allreduce"), superbench_path("alltoall")});
  REQUIRE(calibration);
  REQUIRE_FALSE(calibration->rows.empty());
  CHECK(calibration->rows.front().collective == "all-reduce");
  CHECK(calibration->rows.back().collective == "all-to-all");
  CHECK(calibration->fit.error_after <= calibration->fit.error_before);
}

TEST_CASE("session calibrate: the CLI's entry point takes its own GPUs, start keys and minimum size") {
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");
  auto log = load_collective_log(superbench_path("allreduce"));
  REQUIRE(log);
  const std::vector<DeviceId> gpus(cluster.gpus.begin(), cluster.gpus.begin() + 8);
  const double min_bytes = 16.0 * 1024 * 1024;
  auto calibration = calibrate_collectives({{*log, gpus}}, cluster, {{"nvlink_efficiency", "0.7"}}, min_bytes);
  REQUIRE(calibration);
  CHECK(calibration->min_bytes == min_bytes);
  auto start = comm_constants_from_keys({{"nvlink_efficiency", "0.7"}});
  REQUIRE(start);
  auto fit = calibrate_from_nccl_tests({{*log, gpus}}, cluster, *start, min_bytes);
  REQUIRE(fit);
  CHECK(calibration->fit.comm_keys == fit->comm_keys);
  CHECK(calibration->fit.rows == fit->rows);

  auto bad_key = calibrate_collectives({{*log, gpus}}, cluster, {{"bogus", "1"}}, min_bytes);
  REQUIRE_FALSE(bad_key);
  CHECK_THAT(bad_key.error().to_string(), Contains("bogus"));
}

TEST_CASE("session calibrate: a log that does not parse, names no collective or outgrows the cluster is an error") {
  const Project project = a100_project();
  const Project before = project;
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");

  SECTION("not an nccl-tests log") {
    const std::string junk = write_temp("junk.log", "not an nccl-tests log\n");
    auto calibration = calibrate_project_from_nccl_tests(project, cluster, {superbench_path("allreduce"), junk});
    REQUIRE_FALSE(calibration);
    CHECK_THAT(calibration.error().to_string(), Contains("junk.log"));
  }
  SECTION("a log whose header and file name do not say which collective it measured") {
    const std::string run = copy_as(superbench_path("allgather"), "run.log");
    auto calibration = calibrate_project_from_nccl_tests(project, cluster, {run});
    REQUIRE_FALSE(calibration);
    CHECK_THAT(calibration.error().message, Contains("which collective"));
    CHECK(calibration.error().location == run);
  }
  SECTION("a 16-rank log on an 8-GPU cluster") {
    // The superbench all-reduce log with its device report (lines 4-11, "#   Rank  0 Pid 112424 on localhost
    // device  0 [0x00] A100-SXM4-40GB" ..) repeated for a second process on a second host: ranks 8..15.
    auto source = read_text_file(superbench_path("allreduce"));
    REQUIRE(source);
    std::string text = *source;
    const size_t report_end = text.find("#   Rank  7");
    REQUIRE(report_end != std::string::npos);
    const size_t insert_at = text.find('\n', report_end) + 1;
    std::string second_node;
    for (int rank = 8; rank < 16; ++rank)
      second_node += "#   Rank " + std::string(rank < 10 ? " " : "") + std::to_string(rank) +
                     " Pid 112425 on localhost2 device  " + std::to_string(rank - 8) + " [0x00] A100-SXM4-40GB\n";
    text.insert(insert_at, second_node);
    const std::string two_nodes = write_temp("superbench_nccl_allreduce_16_ranks.log", text);
    auto calibration = calibrate_project_from_nccl_tests(project, cluster, {two_nodes});
    REQUIRE_FALSE(calibration);
    CHECK(calibration.error().code == ErrorCode::invalid_argument);
    CHECK_THAT(calibration.error().message, Contains("16 ranks") && Contains("8 GPUs"));
    CHECK(calibration.error().location == two_nodes);
  }
  SECTION("no log") {
    CHECK_FALSE(calibrate_project_from_nccl_tests(project, cluster, {}));
  }
  CHECK(project == before);
}

TEST_CASE("session calibrate: a one-node log calibrates a two-node cluster on its first node") {
  // No real multi-node nccl-tests log is mirrored (see the header): the 8-rank superbench all-reduce log
  // (Rank 0..7, lines 4-11) runs on the first node's 8 GPUs of two.
  const Cluster cluster = cluster_of("dgx-a100:nodes=2,gpu=a100-40gb-sxm");
  Project project = a100_project();
  project.cluster = "dgx-a100:nodes=2,gpu=a100-40gb-sxm";
  auto calibration = calibrate_project_from_nccl_tests(project, cluster, {superbench_path("allreduce")});
  REQUIRE(calibration);
  REQUIRE_FALSE(calibration->fit.comm_keys.empty());
  // Nothing in the project's keys: the merged keys are the fitted ones.
  CHECK(calibration->comm_keys == calibration->fit.comm_keys);
}

namespace {

// GPT-2 small on two A100s, data parallel: the layout the two-rank HTA trace implies (as test_trace_compare.cpp).
Project gpt2_dp2_project(int64_t global_batch) {
  Project project = a100_project();
  auto model = resolve_model("gpt2");
  REQUIRE(model);
  project.model_ref = "gpt2";
  project.model = *model;
  project.mode = Mode::training;
  project.training = TrainingWorkload{};
  project.training.seq_len = 1024;
  project.training.global_batch = global_batch;
  project.layout = Layout{};
  project.layout.dp = 2;
  return project;
}

TraceComparison hta_comparison(const Project& project, const Cluster& cluster) {
  auto trace = load_kineto_trace(test::shared_path("data/kineto_traces/hta_nccl_data_rank0_ws2_A100.json.gz"));
  REQUIRE(trace);
  const KinetoRunAnalysis run = analyze_kineto_run({*trace});
  auto options = project_estimate_options(project);
  REQUIRE(options);
  const Router router(cluster);
  auto estimate = estimate_step(project.model, project.training, project.layout, cluster, router, *options);
  REQUIRE(estimate);
  auto comparison = compare_trace(run, *estimate, project.layout, cluster, {options->order, options->comm.constants});
  REQUIRE(comparison);
  return *comparison;
}

}  // namespace

TEST_CASE("session calibrate: the GEMM efficiency is fitted to a trace's compute and replaces the project's gemm key") {
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");
  Project project = gpt2_dp2_project(8);
  project.efficiency_keys = {{"gemm", "0.9"}, {"memory", "0.8"}};
  const Project before = project;
  const TraceComparison comparison = hta_comparison(project, cluster);
  const TraceCompareRow* compute = comparison.row("compute");
  REQUIRE(compute != nullptr);

  auto calibration = calibrate_gemm_efficiency(project, cluster, comparison);
  REQUIRE(calibration);
  CHECK(project == before);
  CHECK(calibration->measured_compute_s == compute->measured);

  // The hint as gemm_efficiency_hint gives it on the project's inputs and calibration.
  auto options = project_estimate_options(project);
  REQUIRE(options);
  const Router router(cluster);
  auto hint = gemm_efficiency_hint(compute->measured, project.model, project.training, project.layout, cluster, router,
                                   *options);
  REQUIRE(hint);
  CHECK(calibration->hint.before == 0.9);
  CHECK(calibration->hint.after == hint->after);
  CHECK(calibration->hint.compute_error_before == hint->compute_error_before);
  CHECK(calibration->hint.compute_error_after == hint->compute_error_after);
  CHECK(calibration->hint.at_limit == hint->at_limit);
  CHECK(calibration->hint.efficiency_key == hint->efficiency_key);

  // "memory" kept, "gemm" replaced by the fitted value and moved last.
  REQUIRE(calibration->efficiency_keys.size() == 2);
  CHECK(calibration->efficiency_keys[0] == std::pair<std::string, std::string>{"memory", "0.8"});
  CHECK(calibration->efficiency_keys[1].first == "gemm");
  CHECK("gemm=" + calibration->efficiency_keys[1].second == hint->efficiency_key);

  // The measured time as a number gives the same fit.
  auto by_time = calibrate_gemm_efficiency(project, cluster, compute->measured);
  REQUIRE(by_time);
  CHECK(by_time->efficiency_keys == calibration->efficiency_keys);

  // Applied, the fitted key brings the predicted compute to the measured one (to the 0.001 rounding).
  Project calibrated = project;
  calibrated.efficiency_keys = calibration->efficiency_keys;
  auto calibrated_options = project_estimate_options(calibrated);
  REQUIRE(calibrated_options);
  auto after =
      estimate_step(calibrated.model, calibrated.training, calibrated.layout, cluster, router, *calibrated_options);
  REQUIRE(after);
  CHECK_THAT(predicted_compute_s(*after) / compute->measured - 1,
             WithinRel(calibration->hint.compute_error_after, 1e-9));
  if (!calibration->hint.at_limit) CHECK(std::abs(calibration->hint.compute_error_after) < 0.005);
}

TEST_CASE("session calibrate: the GEMM fit refuses a serving project, no measured compute and bad keys") {
  const Cluster cluster = cluster_of("dgx-a100:gpu=a100-40gb-sxm");
  Project project = gpt2_dp2_project(8);
  const Project before = project;

  auto zero = calibrate_gemm_efficiency(project, cluster, 0.0);
  REQUIRE_FALSE(zero);
  CHECK_THAT(zero.error().message, Contains("positive"));

  auto empty = calibrate_gemm_efficiency(project, cluster, TraceComparison{});
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message, Contains("compute"));

  Project serving = project;
  serving.mode = Mode::serving;
  auto served = calibrate_gemm_efficiency(serving, cluster, 0.1);
  REQUIRE_FALSE(served);
  CHECK_THAT(served.error().message, Contains("training"));

  Project bad = project;
  bad.efficiency_keys = {{"gemm", "two"}};
  CHECK_FALSE(calibrate_gemm_efficiency(bad, cluster, 0.1));
  CHECK(project == before);
}
