// A training log against the prediction for the layout it ran (core/calibration/log_compare.hpp), on the real logs in
// ../shared/data/training_logs. Measured figures are the log's (test_training_log.cpp cites their lines); predicted
// ones are estimate_step's own fields, so these tests check the pairing, the units and the error convention.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "core/calibration/log_compare.hpp"
#include "core/importers/training_log.hpp"
#include "core/model/catalogue.hpp"
#include "core/report/log_compare.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

struct Case {
  MeasuredRun run;
  StepEstimate estimate;
  Layout layout;
};

Case torchtitan_case() {
  auto run =
      load_training_log(test::shared_path("data/training_logs/torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log"));
  REQUIRE(run);
  auto cluster = generate_cluster("hgx-h200");
  REQUIRE(cluster);
  TrainingWorkload w;
  w.seq_len = 8192;  // line 29: local batch size 1, global batch size 8, sequence length 8192
  w.global_batch = 8;
  w.zero_stage = 3;
  w.recompute = RecomputeMode::op;
  Layout l;
  l.dp = 8;  // line 19: 1-D mesh ['dp_shard'], [8]
  EstimateOptions options;
  options.order = AxisOrder::torchtitan;
  const Router router(*cluster);
  auto estimate = estimate_step(*model_preset("llama3-8b"), w, l, *cluster, router, options);
  REQUIRE(estimate);
  return {*run, *estimate, l};
}

}  // namespace

TEST_CASE("log compare: torchtitan's median step, tps, MFU and max reserved meet their predicted counterparts") {
  const Case c = torchtitan_case();
  auto comparison = compare_training_log(c.run, c.estimate, c.layout);
  REQUIRE(comparison);
  CHECK(comparison->framework == "torchtitan");
  CHECK(comparison->excluded_iterations == std::vector<int64_t>{1});
  const LogCompareRow* step = comparison->row("step time");
  REQUIRE(step);
  CHECK(step->unit == "s");
  CHECK(step->samples == 10);
  CHECK_THAT(step->measured, WithinRel((8192.0 / 7042 + 8192.0 / 7051) / 2, 1e-12));  // tps 7,042 and 7,051
  CHECK_THAT(*step->predicted, WithinRel(c.estimate.step_time_s, 1e-15));
  CHECK_THAT(*step->error(), WithinRel(c.estimate.step_time_s / step->measured - 1, 1e-12));
  const LogCompareRow* tokens = comparison->row("tokens/s per GPU");
  REQUIRE(tokens);
  CHECK_THAT(tokens->measured, WithinRel(7046.5, 1e-12));
  CHECK_THAT(*tokens->measured_min, WithinRel(6856.0, 1e-12));  // line 41
  CHECK_THAT(*tokens->predicted, WithinRel(c.estimate.tokens_per_s_per_gpu, 1e-15));
  const LogCompareRow* mfu = comparison->row("MFU");
  REQUIRE(mfu);
  CHECK_THAT(*mfu->predicted, WithinRel(c.estimate.mfu, 1e-15));
  // torchtitan's "memory:" is max_reserved_gib: the row says so and meets the predicted max reserved.
  const LogCompareRow* memory = comparison->row("peak memory (max reserved)");
  REQUIRE(memory);
  CHECK_THAT(memory->measured, WithinRel(49.59 * 1024 * 1024 * 1024, 1e-12));  // lines 32..41
  CHECK_THAT(*memory->predicted, WithinRel(c.estimate.peak_reserved_bytes, 1e-15));
  CHECK(comparison->row("peak memory (max allocated)") == nullptr);
  CHECK(comparison->row("TFLOP/s per GPU") == nullptr);  // this torchtitan prints no tflops
}

TEST_CASE("log compare: a layout with another world size than the log's is an error naming the log") {
  Case c = torchtitan_case();
  Layout other = c.layout;
  other.dp = 4;
  auto comparison = compare_training_log(c.run, c.estimate, other);
  REQUIRE_FALSE(comparison);
  CHECK(comparison.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(comparison.error().message, Contains("ran on 8 ranks") && Contains("layout has 4"));
  CHECK_THAT(comparison.error().location, Contains("torchtitan_h200"));
}

TEST_CASE("log compare: Megatron-DeepSpeed's TFLOPs meet the hardware FLOP rate, max allocated and reserved both") {
  auto run = load_training_log(
      test::shared_path("data/training_logs/superbench_megatron-deepspeed_gpt6.7B_2node_16gpu_zero1.log.gz"));
  REQUIRE(run);
  auto cluster = generate_cluster("dgx-a100:nodes=2,gpu=a100-80gb-sxm");
  REQUIRE(cluster);
  TrainingWorkload w;
  w.seq_len = 2048;  // lines 230..541 of the log: seq 2048, global batch 2048, fp16, ZeRO-1, TP 1, PP 1, micro 2
  w.global_batch = 2048;
  w.compute_dtype = w.activation_dtype = w.param_dtype = DType::fp16;
  w.zero_stage = 1;
  w.recompute = RecomputeMode::none;
  Layout l;
  l.dp = 16;
  l.micro_batch = 2;
  const Router router(*cluster);
  auto estimate = estimate_step(*model_preset("megatron-gpt-7.5b"), w, l, *cluster, router);
  REQUIRE(estimate);
  auto comparison = compare_training_log(*run, *estimate, l);
  REQUIRE(comparison);
  const LogCompareRow* tflops = comparison->row("TFLOP/s per GPU");
  REQUIRE(tflops);
  CHECK_THAT(tflops->measured, WithinRel((149.11 + 149.24) / 2, 1e-12));
  CHECK_THAT(*tflops->predicted, WithinRel(estimate->hardware_tflops_per_gpu, 1e-15));
  const LogCompareRow* allocated = comparison->row("peak memory (max allocated)");
  REQUIRE(allocated);
  CHECK_THAT(allocated->measured, WithinRel(68581.8095703125 * 1024 * 1024, 1e-12));  // line 1430
  CHECK_THAT(*allocated->predicted, WithinRel(estimate->peak_allocated_bytes, 1e-15));
  REQUIRE(comparison->row("peak memory (max reserved)"));
  const auto doc = log_comparison_json(*comparison, "superbench.log.gz");
  CHECK(doc.at("framework") == "megatron-deepspeed");
  CHECK(doc.at("rows").size() == comparison->rows.size());
  CHECK(doc.at("rows")[0].at("quantity") == "step time");
  CHECK_THAT(log_comparison_text(*comparison, "superbench.log.gz", "m", "c"), Contains("peak memory (max allocated)"));
}

TEST_CASE("log compare: the GEMM efficiency hint makes the predicted step time meet the log's median") {
  const Case c = torchtitan_case();
  auto cluster = generate_cluster("hgx-h200");
  REQUIRE(cluster);
  const Router router(*cluster);
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 8;
  w.zero_stage = 3;
  w.recompute = RecomputeMode::op;
  EstimateOptions options;
  options.order = AxisOrder::torchtitan;
  const ModelSpec model = *model_preset("llama3-8b");
  const double measured = c.run.step_time_s->median;
  auto hint = step_time_gemm_hint(measured, model, w, c.layout, *cluster, router, options);
  REQUIRE(hint);
  CHECK_THAT(hint->step_error_before, WithinRel(c.estimate.step_time_s / measured - 1, 1e-12));
  CHECK_FALSE(hint->at_limit);
  CHECK(std::abs(hint->step_error_after) < 0.01);
  // The printed key reproduces the error after.
  options.efficiency.gemm = hint->after;
  auto again = estimate_step(model, w, c.layout, *cluster, router, options);
  REQUIRE(again);
  CHECK_THAT(again->step_time_s / measured - 1, WithinRel(hint->step_error_after, 1e-9));
  CHECK(hint->efficiency_key.rfind("gemm=0.", 0) == 0);
  CHECK_FALSE(step_time_gemm_hint(0, model, w, c.layout, *cluster, router, options));
}
