// A profiler trace against the prediction for its layout (core/calibration/trace_compare.hpp), on the real traces in
// ../shared/data/kineto_traces. MANIFEST.md gives each trace's GPU, rank and world size but not the model it
// trained (DLRM, ResNet-50, toy and unnamed jobs: none is one of the LLM presets), so the prediction is for GPT-2
// small on the layout the manifest implies — pure data parallelism over the recorded world size — on a cluster
// with the trace's GPU. The tests check what the comparison must do whatever the model: every row present, each
// measured number the importer's own (recomputed here from the analysis), each predicted number the estimate's,
// and each error predicted / measured − 1 of those two; bad inputs give clear messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

const std::string kDir = "data/kineto_traces/";

KinetoRunAnalysis analyse(const std::vector<std::string>& names) {
  std::vector<KinetoTrace> traces;
  for (const auto& name : names) {
    auto trace = load_kineto_trace(test::shared_path(kDir + name));
    if (!trace) FAIL(trace.error().to_string());
    traces.push_back(std::move(*trace));
  }
  return analyze_kineto_run(traces);
}

std::vector<std::string> dlrm_ranks() {
  return {"param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz",
          "param_dlrm_8rank/worker1_step_12.1694128201556.pt.trace.json.gz",
          "param_dlrm_8rank/worker2_step_12.1694128201554.pt.trace.json.gz",
          "param_dlrm_8rank/worker3_step_12.1694128201557.pt.trace.json.gz",
          "param_dlrm_8rank/worker4_step_12.1694128201547.pt.trace.json.gz",
          "param_dlrm_8rank/worker5_step_12.1694128201549.pt.trace.json.gz",
          "param_dlrm_8rank/worker6_step_12.1694128201553.pt.trace.json.gz",
          "param_dlrm_8rank/worker7_step_12.1694128201553.pt.trace.json.gz"};
}

struct Setup {
  ModelSpec model;
  TrainingWorkload workload;
  Layout layout;
  Cluster cluster;
};

Setup gpt2_setup(const std::string& cluster_spec, int64_t dp) {
  auto model = resolve_model("gpt2");
  REQUIRE(model);
  auto cluster = resolve_cluster(cluster_spec);
  REQUIRE(cluster);
  TrainingWorkload workload;
  workload.seq_len = 1024;
  workload.global_batch = 16;
  Layout layout;
  layout.dp = dp;
  return {*model, workload, layout, *cluster};
}

StepEstimate estimate(const Setup& s) {
  const Router router(s.cluster);
  auto e = estimate_step(s.model, s.workload, s.layout, s.cluster, router);
  if (!e) FAIL(e.error().to_string());
  return *e;
}

// The mean over ranks of each rank's mean over its ProfilerSteps.
template <typename Field>
double mean_over_ranks(const KinetoRunAnalysis& run, Field field) {
  double sum = 0;
  int ranks = 0;
  for (const auto& r : run.ranks) {
    if (r.steps.empty()) continue;
    double rank_sum = 0;
    for (const auto& s : r.steps) rank_sum += field(s);
    sum += rank_sum / static_cast<double>(r.steps.size());
    ++ranks;
  }
  return sum / ranks;
}

void check_error(const TraceCompareRow& row, double measured, double predicted) {
  CHECK_THAT(row.measured, WithinRel(measured, 1e-12));
  REQUIRE(row.predicted);
  CHECK_THAT(*row.predicted, WithinRel(predicted, 1e-12) || WithinAbs(predicted, 1e-15));
  REQUIRE(row.error());
  CHECK_THAT(*row.error(), WithinAbs(predicted / measured - 1, 1e-12));
}

}  // namespace

TEST_CASE("trace compare: every shared training trace compares with its data-parallel layout") {
  struct Case {
    std::vector<std::string> traces;
    std::string cluster;  // the trace's GPU (MANIFEST.md); V100 on the A100 node design (no DGX-1 generator)
    int64_t dp;           // distributedInfo.world_size; 1 where the trace records none
  };
  const Case c =
      GENERATE(Case{{"hta_nccl_data_rank0_ws2_A100.json.gz"}, "dgx-a100:gpu=a100-40gb-sxm", 2},
               Case{{"hta_rank0_ws16_A100-SXM4-80GB.json.gz"}, "dgx-a100:nodes=2", 16},
               Case{{"hta_rank1_ws2_V100_with_memory_events.json.gz"}, "dgx-a100:gpu=v100-sxm2-32gb", 2},
               Case{{"hta_rank-0_V100_ns_resolution.pt.trace.json.gz"}, "dgx-a100:gpu=v100-sxm2-32gb", 1},
               Case{{"kineto_tbplugin_resnet50_worker0_V100-DGXS.pt.trace.json.gz"}, "dgx-a100:gpu=v100-sxm2-32gb", 1},
               Case{{"hta_mi250_minitoy_train_ROCm6.2.json.gz"}, "mi300x", 1},
               Case{dlrm_ranks(), "dgx-a100:gpu=v100-sxm2-32gb", 8});
  CAPTURE(c.traces.front());
  const KinetoRunAnalysis run = analyse(c.traces);
  const Setup s = gpt2_setup(c.cluster, c.dp);
  const StepEstimate e = estimate(s);
  auto comparison = compare_trace(run, e, s.layout, s.cluster);
  REQUIRE(comparison);
  CHECK(comparison->ranks == static_cast<int64_t>(c.traces.size()));
  CHECK(comparison->world_size == c.dp);

  const TraceCompareRow* step = comparison->row("step time");
  const TraceCompareRow* compute = comparison->row("compute");
  const TraceCompareRow* exposed = comparison->row("exposed comm");
  const TraceCompareRow* idle = comparison->row("idle / bubble");
  REQUIRE(step);
  REQUIRE(compute);
  REQUIRE(exposed);
  REQUIRE(idle);
  check_error(*step, mean_over_ranks(run, [](const auto& st) { return st.duration_us * 1e-6; }), e.step_time_s);
  const StepBreakdown& b = e.breakdown;
  check_error(*compute, mean_over_ranks(run, [](const auto& st) { return st.compute_us * 1e-6; }),
              b.forward_s + b.backward_s + b.recompute_s + b.optimizer_s);
  if (exposed->measured > 0)
    check_error(*exposed, mean_over_ranks(run, [](const auto& st) { return st.exposed_communication_us * 1e-6; }),
                b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s + b.dp_exposed_s);
  if (idle->measured > 0)
    check_error(*idle, mean_over_ranks(run, [](const auto& st) { return st.idle_us * 1e-6; }), b.bubble_s);
  if (c.dp > 1) {
    // Data parallelism communicates: the per-axis rows are there, predicted from the plan.
    const TraceCompareRow* dp = comparison->row("exposed comm dp");
    REQUIRE(dp);
    REQUIRE(dp->predicted);
    CHECK(*dp->predicted == b.dp_exposed_s);
  }
  if (run.ranks.front().world_size == 0)
    CHECK_THAT(comparison->notes.front(), Contains("does not record its world size"));
}

TEST_CASE(
    "trace compare: the 2-rank A100 trace's default group is the DP axis, its all-reduce bandwidth predicted on "
    "the same two GPUs") {
  const KinetoRunAnalysis run = analyse({"hta_nccl_data_rank0_ws2_A100.json.gz"});
  const Setup s = gpt2_setup("dgx-a100:gpu=a100-40gb-sxm", 2);
  const TraceCompareOptions options;
  auto comparison = compare_trace(run, estimate(s), s.layout, s.cluster, options);
  REQUIRE(comparison);
  REQUIRE(comparison->process_groups.size() == 1);
  const ProcessGroupMatch& pg = comparison->process_groups.front();
  CHECK(pg.name == "0");
  REQUIRE(pg.axis);
  CHECK(*pg.axis == MeshAxis::dp);

  // The importer's all-reduce on pg 0 and the α–β model on GPUs 0 and 1 at the mean message size.
  const KinetoCollectiveSummary* measured = nullptr;
  for (const auto& c : run.ranks.front().collectives)
    if (c.op == CollectiveOp::all_reduce) measured = &c;
  REQUIRE(measured);
  REQUIRE(measured->count_with_bytes > 0);
  const double mean_bytes = measured->bytes / static_cast<double>(measured->count_with_bytes);
  const Router router(s.cluster);
  const CollectiveEstimate model =
      estimate_collective(router, group_paths(router, {s.cluster.gpus[0], s.cluster.gpus[1]}), CollectiveOp::all_reduce,
                          mean_bytes, options.constants);
  const TraceCompareRow* row = comparison->row("all-reduce dp busbw");
  REQUIRE(row);
  CHECK(row->kind == TraceRowKind::bandwidth);
  check_error(*row, measured->busbw_bytes_per_s, model.busbw_bytes_per_s);
  // All of this trace's communication is on DP: the axis row is the whole measured time.
  const TraceCompareRow* dp = comparison->row("comm dp");
  REQUIRE(dp);
  double kernel_us = 0;
  for (const auto& c : run.ranks.front().collectives) kernel_us += c.time_us;
  CHECK_THAT(dp->measured, WithinRel(kernel_us * 1e-6 / static_cast<double>(run.ranks.front().steps.size()), 1e-12));
}

TEST_CASE("trace compare: process groups map to axes by size and stride; others are reported unmapped") {
  // An 8-rank TP 2 × DP 4 job (Megatron order: TP groups {0,1},{2,3}..., DP groups {0,2,4,6},{1,3,5,7}) with one
  // group of each kind and one that is neither.
  KinetoRankAnalysis rank;
  rank.origin = "synthetic";
  rank.rank = 0;
  rank.world_size = 8;
  rank.temporal = KinetoTemporalBreakdown{};
  KinetoStepBreakdown step;
  step.duration_us = 1000;
  step.compute_us = 600;
  step.exposed_communication_us = 90;
  step.idle_us = 100;
  rank.steps = {step, step};
  rank.process_groups = {{"1", "tp", 2, 1, ProcessGroupShape::contiguous, "tp-like"},
                         {"2", "dp", 4, 2, ProcessGroupShape::strided, "dp-like"},
                         {"3", "odd", 3, 3, ProcessGroupShape::strided, "dp-like"}};
  KinetoCollectiveSummary tp_ar;
  tp_ar.op = CollectiveOp::all_reduce;
  tp_ar.process_group = "1";
  tp_ar.group_size = 2;
  tp_ar.count = 4;
  tp_ar.time_us = 200;  // 100 µs per step
  KinetoCollectiveSummary dp_rs = tp_ar;
  dp_rs.op = CollectiveOp::reduce_scatter;
  dp_rs.process_group = "2";
  dp_rs.group_size = 4;
  dp_rs.time_us = 400;  // 200 µs per step
  KinetoCollectiveSummary odd = tp_ar;
  odd.process_group = "3";
  odd.group_size = 3;
  odd.time_us = 0;
  rank.collectives = {tp_ar, dp_rs, odd};
  KinetoRunAnalysis run;
  run.ranks = {rank};

  auto model = resolve_model("gpt2");
  REQUIRE(model);
  auto cluster = resolve_cluster("dgx-a100");
  REQUIRE(cluster);
  Layout layout;
  layout.tp = 2;
  layout.dp = 4;
  StepEstimate e;  // only its breakdown is compared here
  e.breakdown.tp_exposed_s = 30e-6;
  e.breakdown.dp_exposed_s = 40e-6;
  auto comparison = compare_trace(run, e, layout, *cluster);
  REQUIRE(comparison);
  std::map<std::string, std::string> labels;
  for (const auto& g : comparison->process_groups) labels[g.name] = g.label;
  CHECK(labels["1"] == "tp");
  CHECK(labels["2"] == "dp");
  CHECK(labels["3"] == "unmapped pg 3");

  // 90 µs exposed per step shared out by kernel time: TP 100 of 300 µs, DP 200 of 300 µs.
  const TraceCompareRow* tp = comparison->row("exposed comm tp");
  const TraceCompareRow* dp = comparison->row("exposed comm dp");
  REQUIRE(tp);
  REQUIRE(dp);
  check_error(*tp, 90e-6 * 100 / 300, 30e-6);
  check_error(*dp, 90e-6 * 200 / 300, 40e-6);
  CHECK_THAT(tp->note, Contains("shared out"));
  const TraceCompareRow* unmapped = comparison->row("comm unmapped pg 3");
  REQUIRE(unmapped);
  CHECK_FALSE(unmapped->predicted);
  CHECK_FALSE(unmapped->error());
}

TEST_CASE("trace compare: a layout of another world size, a trace without steps or without GPU work are errors") {
  const StepEstimate none;
  SECTION("world size") {
    const KinetoRunAnalysis run = analyse({"hta_nccl_data_rank0_ws2_A100.json.gz"});
    const Setup s = gpt2_setup("dgx-a100", 8);
    auto comparison = compare_trace(run, none, s.layout, s.cluster);
    REQUIRE_FALSE(comparison);
    CHECK_THAT(comparison.error().message, Contains("ran on 2 ranks") && Contains("= 8 ranks"));
    CHECK_THAT(comparison.error().location, Contains("hta_nccl_data_rank0_ws2_A100.json.gz"));
  }
  SECTION("traces of two jobs") {
    const KinetoRunAnalysis run =
        analyse({"hta_nccl_data_rank0_ws2_A100.json.gz", "hta_rank0_ws16_A100-SXM4-80GB.json.gz"});
    const Setup s = gpt2_setup("dgx-a100", 2);
    auto comparison = compare_trace(run, none, s.layout, s.cluster);
    REQUIRE_FALSE(comparison);
    CHECK_THAT(comparison.error().message, Contains("not of one job"));
  }
  SECTION("no ProfilerStep") {
    const KinetoRunAnalysis run = analyse({"hta_alexnet_benchmark_A100.json.gz"});
    const Setup s = gpt2_setup("dgx-a100", 1);
    auto comparison = compare_trace(run, none, s.layout, s.cluster);
    REQUIRE_FALSE(comparison);
    CHECK_THAT(comparison.error().message, Contains("no ProfilerStep"));
  }
  SECTION("CPU only") {
    const KinetoRunAnalysis run = analyse({"hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz"});
    const Setup s = gpt2_setup("dgx-a100:nodes=38", 300);
    auto comparison = compare_trace(run, none, s.layout, s.cluster);
    REQUIRE_FALSE(comparison);
    CHECK_THAT(comparison.error().message, Contains("no GPU activity"));
  }
  SECTION("no trace") {
    const Setup s = gpt2_setup("dgx-a100", 1);
    CHECK_FALSE(compare_trace(KinetoRunAnalysis{}, none, s.layout, s.cluster));
  }
}

TEST_CASE("trace compare: the GEMM efficiency hint makes the predicted compute match the measured one") {
  const KinetoRunAnalysis run = analyse({"hta_nccl_data_rank0_ws2_A100.json.gz"});
  const double measured = mean_over_ranks(run, [](const auto& st) { return st.compute_us * 1e-6; });
  const EstimateOptions options;
  // global_batch 8: GPT-2's predicted compute is below the measured one, so a lower GEMM efficiency matches it;
  // global_batch 64: it is above the measured one even at 100 % GEMM efficiency.
  const auto [global_batch, reachable] =
      GENERATE(std::pair<int64_t, bool>{8, true}, std::pair<int64_t, bool>{64, false});
  CAPTURE(global_batch);
  Setup s = gpt2_setup("dgx-a100:gpu=a100-40gb-sxm", 2);
  s.workload.global_batch = global_batch;
  const Router router(s.cluster);
  auto hint = gemm_efficiency_hint(measured, s.model, s.workload, s.layout, s.cluster, router, options);
  REQUIRE(hint);
  // No --efficiency gemm: the calibration starts from the A100's measured share (resources/gpus.json).
  CHECK_THAT(hint->before,
             WithinRel(gemm_share_of_peak(*find_gpu("a100-40gb-sxm"), s.workload.compute_dtype, options.efficiency)));
  CHECK_THAT(hint->compute_error_before, WithinAbs(predicted_compute_s(estimate(s)) / measured - 1, 1e-12));
  // Re-estimated here with the hinted efficiency: the error the hint reports is the estimate's.
  EstimateOptions calibrated = options;
  calibrated.efficiency.gemm = hint->after;
  auto after = estimate_step(s.model, s.workload, s.layout, s.cluster, router, calibrated);
  REQUIRE(after);
  CHECK_THAT(predicted_compute_s(*after) / measured - 1, WithinAbs(hint->compute_error_after, 1e-12));
  CHECK(std::abs(hint->compute_error_after) < std::abs(hint->compute_error_before));
  CHECK(hint->at_limit == !reachable);
  if (reachable) {
    CHECK(hint->compute_error_before < 0);
    CHECK(hint->after < hint->before);
    CHECK(std::abs(hint->compute_error_after) < 0.005);  // to the rounding of the efficiency to 0.001
    CHECK(hint->efficiency_key == "gemm=" + std::to_string(hint->after).substr(0, 5));
  } else {
    CHECK(hint->after == 1.0);
    CHECK(hint->compute_error_after > 0);
    CHECK(hint->efficiency_key == "gemm=1.000");
  }
  CHECK_FALSE(gemm_efficiency_hint(0, s.model, s.workload, s.layout, s.cluster, router, options));
}
