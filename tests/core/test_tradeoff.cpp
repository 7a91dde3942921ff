// The trade-off explorer (core/session/tradeoff.hpp): every point is evaluate_project's own result for
// the varied project, invalid values are gaps with the core's reason, and the curves follow what the
// physics demands. Expected values come from evaluate_project or the layout validator, never from the
// explorer itself.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/session/evaluate.hpp"
#include "core/session/tradeoff.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

Project default_or_fail() {
  auto project = default_project();
  if (!project) FAIL(project.error().to_string());
  return *project;
}

std::vector<TradeoffValue> values(TradeoffAxis axis, const char* text) {
  auto parsed = parse_tradeoff_values(axis, text);
  if (!parsed) FAIL(parsed.error().to_string());
  return *parsed;
}

TradeoffCurve curve_or_fail(const Project& project, TradeoffAxis axis, const char* text) {
  ClusterCache cache;
  auto curve = tradeoff_curve(project, axis, values(axis, text), cache);
  if (!curve) FAIL(curve.error().to_string());
  return *curve;
}

double model_state_bytes(const TradeoffPoint& p) {
  return p.memory_bytes[static_cast<size_t>(MemoryCategory::parameters)] +
         p.memory_bytes[static_cast<size_t>(MemoryCategory::gradients)] +
         p.memory_bytes[static_cast<size_t>(MemoryCategory::optimizer_state)];
}

}  // namespace

TEST_CASE("tradeoff: every point is evaluate_project's result for the project with that value") {
  const Project project = default_or_fail();
  const auto axis = GENERATE(TradeoffAxis::tp, TradeoffAxis::pp, TradeoffAxis::mbs, TradeoffAxis::zero,
                             TradeoffAxis::gpu, TradeoffAxis::nic_gbps, TradeoffAxis::gpus);
  const auto axis_values = default_tradeoff_values(project, axis);
  REQUIRE(!axis_values.empty());
  ClusterCache cache;
  auto curve = tradeoff_curve(project, axis, axis_values, cache);
  REQUIRE(curve);
  REQUIRE(curve->points.size() == axis_values.size());
  CHECK(curve->rule == tradeoff_rule(axis));
  int valid = 0;
  for (const TradeoffPoint& point : curve->points) {
    auto varied = apply_tradeoff_value(project, axis, point.value);
    if (!varied) {
      CHECK_FALSE(point.valid);
      CHECK(point.reason == varied.error().message);
      continue;
    }
    ClusterCache own;
    const Evaluation e = evaluate_project(*varied, own);
    CHECK(point.layout == varied->layout);
    CHECK(point.valid == (e.problems.empty() && e.estimate && e.budget->fits()));
    if (!e.estimate) continue;
    ++valid;
    CHECK_THAT(point.step_time_s, WithinRel(e.estimate->step_time_s, 1e-12));
    CHECK_THAT(point.mfu, WithinRel(e.estimate->mfu, 1e-12));
    CHECK_THAT(point.tokens_per_s_per_gpu, WithinRel(e.estimate->tokens_per_s_per_gpu, 1e-12));
    CHECK_THAT(point.peak_memory_bytes, WithinRel(e.budget->peak_total_bytes(), 1e-12));
    const StepBreakdown& b = e.estimate->breakdown;
    CHECK_THAT(point.breakdown.compute_s, WithinRel(b.forward_s + b.backward_s + b.recompute_s, 1e-12));
    CHECK(point.breakdown.bubble_s == b.bubble_s);
    REQUIRE(point.bytes_per_step.size() == e.estimate->comm.axes.size());
    for (size_t i = 0; i < point.bytes_per_step.size(); ++i)
      CHECK(point.bytes_per_step[i].second == e.estimate->comm.axes[i].bytes_per_step);
  }
  CHECK(valid > 0);
}

TEST_CASE("tradeoff: the memory categories of a point add up to its peak, against the GPU's capacity") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::tp, "8");
  const TradeoffPoint& p = curve.points.front();
  REQUIRE(p.has_memory);
  double sum = 0;
  for (double bytes : p.memory_bytes) sum += bytes;
  CHECK_THAT(sum, WithinRel(p.peak_memory_bytes, 1e-12));
  CHECK(p.capacity_bytes == project.gpu.memory_bytes);
}

TEST_CASE("tradeoff: along TP the world size stays the cluster's and DP absorbs the change") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::tp, "1,2,4,8");
  for (const TradeoffPoint& p : curve.points) {
    CHECK(p.layout.world_size() == project.layout.world_size());
    CHECK(p.layout.tp == p.value.number);
    CHECK(p.gpus == project.layout.world_size());
  }
}

TEST_CASE("tradeoff: along PP the model chunks stay, except at PP 1, which has none to interleave") {
  Project project = default_or_fail();
  project.layout.vpp = 2;  // 80 layers: 10 per chunk at PP 4
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::pp, "1,4");
  CHECK(curve.points[0].layout.pp == 1);
  CHECK(curve.points[0].layout.vpp == 1);
  CHECK(curve.points[0].reason.find("Virtual pipeline") == std::string::npos);
  CHECK(curve.points[1].layout.vpp == 2);
}

TEST_CASE("tradeoff: TP past the KV heads of a GQA model is a gap with the validator's reason") {
  const Project project = default_or_fail();  // Llama 3.1 70B: 8 KV heads
  REQUIRE(project.model.num_kv_heads == 8);
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::tp, "16");
  const TradeoffPoint& p = curve.points.front();
  CHECK_FALSE(p.valid);
  CHECK_FALSE(p.has_step);
  auto varied = apply_tradeoff_value(project, TradeoffAxis::tp, p.value);
  REQUIRE(varied);
  const auto problems = validate_training_layout(varied->model, varied->training, varied->layout, 64);
  REQUIRE_FALSE(problems.empty());
  CHECK(p.reason.find(problems.front().message) != std::string::npos);
  CHECK(p.reason.find("KV heads") != std::string::npos);
}

TEST_CASE("tradeoff: a layout that does not fit is a gap with its overflow over the capacity") {
  const Project project = default_or_fail();
  // TP 1 over 4 stages: about 17.5 B parameters per rank, far past 80 GB.
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::tp, "1");
  const TradeoffPoint& p = curve.points.front();
  CHECK_FALSE(p.valid);
  REQUIRE(p.has_memory);
  REQUIRE(p.peak_memory_bytes > p.capacity_bytes);
  const double overflow_gib = (p.peak_memory_bytes - p.capacity_bytes) / (1024.0 * 1024.0 * 1024.0);
  char expected[64];
  std::snprintf(expected, sizeof expected, "does not fit: +%.1f GiB", overflow_gib);
  CHECK(p.reason == expected);
}

TEST_CASE("tradeoff: a world size TP·PP·CP does not divide is a gap that says so") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::tp, "3");
  CHECK_FALSE(curve.points.front().valid);
  CHECK(curve.points.front().reason.find("not divisible") != std::string::npos);
}

TEST_CASE("tradeoff: the 1F1B bubble fraction grows with the pipeline depth") {
  Project project = default_or_fail();
  project.layout.vpp = 1;
  project.training.schedule = PipelineSchedule::one_f_one_b;
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::pp, "2,4,8");
  double last = -1;
  for (const TradeoffPoint& p : curve.points) {
    REQUIRE(p.has_step);
    CHECK(p.bubble_fraction > last);
    last = p.bubble_fraction;
  }
}

TEST_CASE("tradeoff: at a fixed number of micro-batches the 1F1B bubble fraction grows with PP") {
  Project project = default_or_fail();
  project.layout.vpp = 1;
  project.training.schedule = PipelineSchedule::one_f_one_b;
  // DP absorbs PP on 64 GPUs (TP 8): PP 2, 4, 8 → DP 4, 2, 1; global batches 256, 128, 64 keep 64 micro-batches.
  const auto pps = values(TradeoffAxis::pp, "2,4,8");
  const auto batches = values(TradeoffAxis::gbs, "256,128,64");
  ClusterCache cache;
  auto grid = tradeoff_grid(project, TradeoffAxis::pp, pps, TradeoffAxis::gbs, batches, cache);
  REQUIRE(grid);
  double last = -1;
  for (size_t i = 0; i < pps.size(); ++i) {
    auto varied = apply_tradeoff_pair(project, TradeoffAxis::pp, pps[i], TradeoffAxis::gbs, batches[i]);
    REQUIRE(varied);
    CHECK(num_micro_batches(varied->training, varied->layout) == 64);
    const TradeoffPoint& p = grid->at(i, i);
    REQUIRE(p.has_step);
    // Narayanan et al. (SC21, §2.2.1): the 1F1B bubble is (p − 1) / m of the ideal time, so it grows with p.
    CHECK(p.bubble_fraction > last);
    last = p.bubble_fraction;
  }
}

TEST_CASE("tradeoff: the model states of a rank fall with each ZeRO stage") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::zero, "0,1,2,3");
  REQUIRE(curve.points.size() == 4);
  for (size_t i = 1; i < curve.points.size(); ++i) {
    REQUIRE(curve.points[i].has_memory);
    CHECK(model_state_bytes(curve.points[i]) < model_state_bytes(curve.points[i - 1]));
  }
}

TEST_CASE("tradeoff: activation memory rises with the sequence length") {
  const Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::seq, "1024,2048,4096,8192");
  const auto activations = static_cast<size_t>(MemoryCategory::activations);
  for (size_t i = 1; i < curve.points.size(); ++i)
    CHECK(curve.points[i].memory_bytes[activations] > curve.points[i - 1].memory_bytes[activations]);
}

TEST_CASE("tradeoff: along gpus the cluster grows by nodes and DP with it") {
  const Project project = default_or_fail();  // dgx-h100:nodes=8, tp 8 × pp 4
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::gpus, "32,64,128");
  for (const TradeoffPoint& p : curve.points) {
    CHECK(p.gpus == p.value.number);
    CHECK(p.layout.world_size() == p.value.number);
  }
  const TradeoffCurve odd = curve_or_fail(project, TradeoffAxis::gpus, "36");
  CHECK_FALSE(odd.points.front().valid);
}

TEST_CASE("tradeoff: along gpu the cluster's GPU model changes, and with it the capacity") {
  const Project project = default_or_fail();  // dgx-h100:nodes=8
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::gpu, "h100-sxm,h200-sxm");
  REQUIRE(curve.points.size() == 2);
  auto h200 = find_gpu("h200-sxm");
  REQUIRE(h200);
  REQUIRE(curve.points[1].has_memory);
  CHECK(curve.points[1].capacity_bytes == h200->memory_bytes);
  CHECK(curve.points[0].capacity_bytes == project.gpu.memory_bytes);
  auto varied = apply_tradeoff_value(project, TradeoffAxis::gpu, curve.points[1].value);
  REQUIRE(varied);
  CHECK(varied->cluster == "dgx-h100:nodes=8,gpu=h200-sxm");
  CHECK_FALSE(parse_tradeoff_values(TradeoffAxis::gpu, "h900"));
}

TEST_CASE("tradeoff: a faster NIC never makes the exposed data-parallel time longer") {
  Project project = default_or_fail();
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::nic_gbps, "100,200,400,800");
  for (size_t i = 1; i < curve.points.size(); ++i) {
    REQUIRE(curve.points[i].has_step);
    CHECK(curve.points[i].breakdown.dp_exposed_s <= curve.points[i - 1].breakdown.dp_exposed_s);
    CHECK(curve.points[i].step_time_s <= curve.points[i - 1].step_time_s);
  }
}

TEST_CASE("tradeoff: a drawn (inline) cluster cannot be resized: a gap that says so") {
  Project project = default_or_fail();
  auto cluster = project_cluster(project);
  REQUIRE(cluster);
  project.cluster_inline = *cluster;
  const TradeoffCurve curve = curve_or_fail(project, TradeoffAxis::gpus, "128");
  CHECK_FALSE(curve.points.front().valid);
  CHECK(curve.points.front().reason.find("inline") != std::string::npos);
}

TEST_CASE("tradeoff: a grid's row equals the curve along its x axis") {
  const Project project = default_or_fail();
  const auto xs = values(TradeoffAxis::tp, "2,4,8,16");
  const auto ys = values(TradeoffAxis::pp, "2,4,8");
  ClusterCache cache;
  auto grid = tradeoff_grid(project, TradeoffAxis::tp, xs, TradeoffAxis::pp, ys, cache);
  REQUIRE(grid);
  REQUIRE(grid->cells.size() == xs.size() * ys.size());
  for (size_t iy = 0; iy < ys.size(); ++iy) {
    Project row = project;
    row.layout.pp = ys[iy].number;
    row.layout.dp = project.layout.world_size() / (row.layout.tp * row.layout.pp * row.layout.cp);
    auto curve = tradeoff_curve(row, TradeoffAxis::tp, xs, cache);
    REQUIRE(curve);
    for (size_t ix = 0; ix < xs.size(); ++ix) {
      const TradeoffPoint& cell = grid->at(ix, iy);
      const TradeoffPoint& point = curve->points[ix];
      CHECK(cell.value_y == ys[iy]);
      CHECK(cell.valid == point.valid);
      CHECK(cell.reason == point.reason);
      if (cell.valid) CHECK(cell.layout == point.layout);  // an unreachable value keeps its project's layout
      CHECK(cell.step_time_s == point.step_time_s);
    }
  }
}

TEST_CASE("tradeoff: bad values are errors that name the axis and the value") {
  auto letters = parse_tradeoff_values(TradeoffAxis::tp, "2,x");
  REQUIRE_FALSE(letters);
  CHECK(letters.error().message.find("\"x\"") != std::string::npos);
  CHECK_FALSE(parse_tradeoff_values(TradeoffAxis::zero, "4"));
  CHECK_FALSE(parse_tradeoff_values(TradeoffAxis::tp, "0"));
  CHECK_FALSE(parse_tradeoff_values(TradeoffAxis::tp, "2,,4"));
  auto mode = parse_tradeoff_values(TradeoffAxis::recompute, "none,bogus");
  REQUIRE_FALSE(mode);
  CHECK(mode.error().message.find("bogus") != std::string::npos);
}

TEST_CASE("tradeoff: the default values cover every recompute mode and ZeRO stage") {
  const Project project = default_or_fail();
  CHECK(default_tradeoff_values(project, TradeoffAxis::recompute).size() == EnumNames<RecomputeMode>::table.size());
  CHECK(default_tradeoff_values(project, TradeoffAxis::zero).size() == 4);
  const auto tp = default_tradeoff_values(project, TradeoffAxis::tp);
  CHECK(std::any_of(tp.begin(), tp.end(), [](const TradeoffValue& v) { return v.number == 16; }));
}

TEST_CASE("tradeoff: a serving project is an error, not a silent curve") {
  Project project = default_or_fail();
  project.mode = Mode::serving;
  ClusterCache cache;
  auto curve = tradeoff_curve(project, TradeoffAxis::tp, values(TradeoffAxis::tp, "8"), cache);
  REQUIRE_FALSE(curve);
  CHECK(curve.error().message.find("serving") != std::string::npos);
}
