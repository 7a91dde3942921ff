// The report layer (core/report/): the unit conversions, and the stable JSON documents of the CLI (docs/cli.md),
// built here from hand-made values so that every field's name and value can be checked against its input.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/importers/nccl_tests.hpp"
#include "core/model/catalogue.hpp"
#include "core/report/calibration.hpp"
#include "core/report/importers.hpp"
#include "core/report/model.hpp"
#include "core/report/search.hpp"
#include "core/report/serving.hpp"
#include "core/report/text.hpp"
#include "core/report/topology.hpp"
#include "core/report/units.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/summary.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using nlohmann::json;

TEST_CASE("report units: bytes, seconds and bandwidths in the units the documents show") {
  CHECK(gib_from_bytes(3 * kBytesPerGiB) == 3);
  CHECK(mib_from_bytes(64 * kBytesPerMiB) == 64);
  CHECK(kBytesPerKiB * 1024 == kBytesPerMiB);
  CHECK(gb_per_s(2.5e9) == 2.5);
  CHECK(billions(7e9) == 7);
  CHECK(ms_from_s(0.25) == 250);
  CHECK(us_from_s(0.5) == 500000);
  CHECK(ms_from_us(1500) == 1.5);
  CHECK(percent(0.125) == 12.5);
  // nccl-tests' two decimals survive the s → µs round trip: 12.34 µs read as seconds prints as 12.34.
  CHECK(us_from_s_rounded(12.34e-6) == 12.34);
  CHECK(gib_text(1.5 * kBytesPerGiB) == "1.50 GiB");
  CHECK(gbps_text(123.45e9) == "123.5 GB/s");
  CHECK(billions_text(1.2345e9) == "1.234 B");
}

TEST_CASE("report: keys_text joins keys as --comm takes them") {
  CHECK(keys_text({}).empty());
  CHECK(keys_text({{"nvlink_efficiency", "0.742"}, {"overhead_ll_us", "5.5"}}) ==
        "nvlink_efficiency=0.742,overhead_ll_us=5.5");
}

TEST_CASE("report: the nccl-tests comparison gives every size in seconds and GB/s and the mean |error|") {
  std::vector<CollectiveComparison> rows(2);
  rows[0].bytes = 1024;
  rows[0].measured_time_s = 10e-6;
  rows[0].predicted_time_s = 12e-6;
  rows[0].measured_busbw = 2e9;
  rows[0].predicted_busbw = 3e9;
  rows[1].bytes = 2048;
  rows[1].measured_time_s = 20e-6;
  rows[1].predicted_time_s = 18e-6;
  rows[1].measured_busbw = std::numeric_limits<double>::infinity();
  rows[1].predicted_busbw = 4e9;
  const json doc = nccl_comparison_report("all-reduce", 8, rows);
  CHECK(doc.at("collective") == "all-reduce");
  CHECK(doc.at("ranks") == 8);
  REQUIRE(doc.at("points").size() == 2);
  const json& p = doc.at("points")[0];
  CHECK(p.at("bytes") == 1024.0);
  CHECK(p.at("measured_time_s") == 10e-6);
  CHECK(p.at("predicted_time_s") == 12e-6);
  CHECK(p.at("measured_busbw_GBps") == 2.0);
  CHECK(p.at("predicted_busbw_GBps") == 3.0);
  CHECK(p.at("error") == rows[0].error());
  CHECK(doc.at("points")[1].at("measured_busbw_GBps").is_null());  // not finite
  CHECK(doc.at("mean_abs_error") == (std::abs(rows[0].error()) + std::abs(rows[1].error())) / 2);
  CHECK(mean_abs_time_error({}) == 0);
}

TEST_CASE("report: the calibration document gives the fitted keys as text and as numbers") {
  CalibrationResult fit;
  fit.changes = {"nvlink efficiency 0.780 -> 0.742"};
  fit.comm_keys = {{"nvlink_efficiency", "0.742"}, {"overhead_ll_us", "5.5"}};
  fit.error_before = 0.2;
  fit.error_after = 0.05;
  fit.rows = 12;
  fit.overhead_ll_us = 5.5;
  fit.overhead_pipelined_us = 7.25;
  fit.latency_error_before = 0.4;
  fit.latency_error_after = 0.1;
  fit.latency_rows = 9;
  const json doc = calibration_report(fit, 64 * kBytesPerMiB);
  CHECK(doc.at("changes") == json(fit.changes));
  CHECK(doc.at("comm") == "nvlink_efficiency=0.742,overhead_ll_us=5.5");
  CHECK(doc.at("comm_keys").at("nvlink_efficiency") == 0.742);
  CHECK(doc.at("comm_keys").at("overhead_ll_us") == 5.5);
  CHECK(doc.at("error_before") == 0.2);
  CHECK(doc.at("error_after") == 0.05);
  CHECK(doc.at("rows") == 12);
  CHECK(doc.at("min_bytes") == 64 * kBytesPerMiB);
  CHECK(doc.at("overhead_ll_us") == 5.5);
  CHECK(doc.at("overhead_pipelined_us") == 7.25);
  CHECK(doc.at("latency_error_before") == 0.4);
  CHECK(doc.at("latency_error_after") == 0.1);
  CHECK(doc.at("latency_rows") == 9);
}

TEST_CASE("report: the trace comparison gives rows with their units, collectives, groups and the GEMM hint") {
  TraceComparison c;
  c.world_size = 2;
  c.ranks = 1;
  c.steps = 3;
  TraceCompareRow time;
  time.quantity = "compute";
  time.measured = 0.5;
  time.measured_min = 0.4;
  time.measured_max = 0.6;
  time.ranks = 1;
  time.predicted = 0.4;
  TraceCompareRow bandwidth;
  bandwidth.quantity = "all-reduce dp busbw";
  bandwidth.kind = TraceRowKind::bandwidth;
  bandwidth.measured = 80e9;
  c.rows = {time, bandwidth};
  TraceCollectiveComparison k;
  k.op = CollectiveOp::all_reduce;
  k.group = "dp";
  k.group_size = 2;
  k.count_per_step = 4;
  k.mean_message_bytes = 1e6;
  k.measured_busbw = 80e9;
  k.predicted_busbw = 100e9;
  c.collectives = {k};
  ProcessGroupMatch g;
  g.name = "0";
  g.size = 2;
  g.stride = 1;
  g.axis = MeshAxis::dp;
  g.label = "dp";
  c.process_groups = {g};
  const std::vector<std::string> notes = {"a note"};

  const json without = trace_comparison_report(c, notes, std::nullopt);
  CHECK(without.at("world_size") == 2);
  CHECK(without.at("ranks") == 1);
  CHECK(without.at("steps") == 3);
  CHECK(without.at("notes") == json(notes));
  CHECK_FALSE(without.contains("gemm_efficiency"));
  REQUIRE(without.at("rows").size() == 2);
  const json& r0 = without.at("rows")[0];
  CHECK(r0.at("quantity") == "compute");
  CHECK(r0.at("unit") == "s");
  CHECK(r0.at("measured") == 0.5);
  CHECK(r0.at("measured_min") == 0.4);
  CHECK(r0.at("measured_max") == 0.6);
  CHECK(r0.at("predicted") == 0.4);
  CHECK(r0.at("error") == *time.error());
  const json& r1 = without.at("rows")[1];
  CHECK(r1.at("unit") == "B/s");
  CHECK(r1.at("predicted").is_null());
  CHECK(r1.at("error").is_null());
  const json& k0 = without.at("collectives")[0];
  CHECK(k0.at("op") == std::string(collective_op_name(CollectiveOp::all_reduce)));
  CHECK(k0.at("group") == "dp");
  CHECK(k0.at("measured_busbw_GBps") == 80.0);
  CHECK(k0.at("predicted_busbw_GBps") == 100.0);
  CHECK(k0.at("predicted_time_s").is_null());
  const json& g0 = without.at("process_groups")[0];
  CHECK(g0.at("axis") == std::string(mesh_axis_name(MeshAxis::dp)));
  CHECK(g0.at("size") == 2);

  GemmEfficiencyHint hint;
  hint.before = 0.6;
  hint.after = 0.48;
  hint.compute_error_before = -0.2;
  hint.compute_error_after = 0.001;
  hint.efficiency_key = "gemm=0.480";
  const json with = trace_comparison_report(c, notes, hint);
  const json& h = with.at("gemm_efficiency");
  CHECK(h.at("before") == 0.6);
  CHECK(h.at("after") == 0.48);
  CHECK(h.at("compute_error_before") == -0.2);
  CHECK(h.at("compute_error_after") == 0.001);
  CHECK(h.at("at_limit") == false);
  CHECK(h.at("efficiency") == "gemm=0.480");
}

TEST_CASE("report: an nccl-tests log gives one point per size and placement, in µs and GB/s") {
  auto log = load_nccl_tests(test::shared_path("data/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_allreduce.log"));
  REQUIRE(log);
  const json doc = nccl_tests_log_report(*log);
  CHECK(doc.at("collective") == std::string(collective_op_name(*log->op)));
  CHECK(doc.at("ranks") == log->ranks);
  size_t expected = 0;
  for (const auto& row : log->rows) expected += std::isfinite(row.in_place_time_s) ? 2 : 1;
  REQUIRE(doc.at("points").size() == expected);
  const json& first = doc.at("points")[0];
  CHECK(first.at("bytes") == log->rows[0].bytes);
  CHECK(first.at("in_place") == false);
  CHECK(first.at("time_us") == us_from_s_rounded(log->rows[0].out_of_place_time_s));
  CHECK(first.at("busbw_GBps") == gb_per_s(log->rows[0].out_of_place_busbw_bytes_per_s));
  CHECK(doc.at("warnings").size() == log->warnings.size());
}

TEST_CASE("report: the presets document lists the given models and GPUs") {
  GpuSpec gpu;
  gpu.id = "x1";
  gpu.name = "Example X1";
  gpu.memory_bytes = 80 * kBytesPerGiB;
  const json doc = presets_report({"m1", "m2"}, {gpu});
  CHECK(doc.at("models") == json({"m1", "m2"}));
  REQUIRE(doc.at("gpus").size() == 1);
  CHECK(doc.at("gpus")[0].at("id") == "x1");
  CHECK(doc.at("gpus")[0].at("name") == "Example X1");
  CHECK(doc.at("gpus")[0].at("memory_bytes") == 80 * kBytesPerGiB);
}

TEST_CASE("report: the ranked layouts give each layout's keys, choices and figures") {
  SearchResult result;
  result.evaluated = 10;
  result.valid = 4;
  result.collapsed = 2;
  result.rejected = {{"does not fit in GPU memory", 6}};
  result.largest_overflow_bytes = 3 * kBytesPerGiB;
  result.elapsed_s = 0.5;
  RankedLayout r;
  r.layout.tp = 2;
  r.layout.dp = 4;
  r.zero_stage = 2;
  r.schedule = PipelineSchedule::one_f_one_b;
  r.tp_comm_overlap = true;
  r.step_time_s = 1.25;
  r.tokens_per_s_per_gpu = 900;
  r.mfu = 0.4;
  r.peak_memory_bytes = 60 * kBytesPerGiB;
  r.refined = true;
  result.layouts = {r};
  const json doc = ranked_layouts_report(result, RankObjective::throughput);
  CHECK(doc.at("evaluated") == 10);
  CHECK(doc.at("valid") == 4);
  CHECK(doc.at("collapsed") == 2);
  CHECK(doc.at("rejected").at("does not fit in GPU memory") == 6);
  CHECK(doc.at("largest_overflow_bytes") == 3 * kBytesPerGiB);
  CHECK(doc.at("elapsed_s") == 0.5);
  CHECK(doc.at("objective") == std::string(rank_objective_name(RankObjective::throughput)));
  REQUIRE(doc.at("layouts").size() == 1);
  const json& l = doc.at("layouts")[0];
  CHECK(l.at("layout").at("zero") == 2);
  CHECK(l.at("layout").at("schedule") == std::string(enum_name(PipelineSchedule::one_f_one_b)));
  CHECK(l.at("layout").at("tp_comm_overlap") == true);
  for (const auto& [key, value] : layout_to_keys(r.layout)) CHECK(l.at("layout").at(key) == value);
  CHECK(l.at("step_time_s") == 1.25);
  CHECK(l.at("tokens_per_s_per_gpu") == 900.0);
  CHECK(l.at("mfu") == 0.4);
  CHECK(l.at("peak_memory_bytes") == 60 * kBytesPerGiB);
  CHECK(l.at("refined") == true);
}

TEST_CASE("report: a pipeline schedule gives its events as F/B/W with their times") {
  ScheduleInput input;
  input.schedule = PipelineSchedule::one_f_one_b;
  input.stages = 2;
  input.micro_batches = 3;
  input.costs.assign(2, StageCosts{1, 2, 0});
  auto result = simulate_schedule(input);
  REQUIRE(result);
  const json doc = schedule_report(input.schedule, *result);
  CHECK(doc.at("schedule") == std::string(enum_name(input.schedule)));
  CHECK(doc.at("makespan") == result->makespan_s);
  CHECK(doc.at("bubble_fraction") == result->bubble_fraction);
  REQUIRE(doc.at("events").size() == result->events.size());
  for (size_t i = 0; i < result->events.size(); ++i) {
    const json& e = doc.at("events")[i];
    CHECK(e.at("stage") == result->events[i].stage);
    CHECK(e.at("micro_batch") == result->events[i].micro_batch);
    CHECK(e.at("start") == result->events[i].start_s);
    CHECK(e.at("end") == result->events[i].end_s);
    const std::string kind = e.at("kind");
    CHECK((kind == "F" || kind == "B" || kind == "W" || kind == "BW"));
    CHECK((kind == "F") == (result->events[i].kind == WorkKind::forward));
  }
}

TEST_CASE("report: a serving layout is its keys with integer values") {
  ServingLayout layout;
  layout.tp = 4;
  layout.pp = 2;
  layout.replicas = 3;
  const json doc = serving_layout_report(layout);
  CHECK(doc.at("tp") == 4);
  CHECK(doc.at("pp") == 2);
  CHECK(doc.at("replicas") == 3);
  CHECK(doc.at("tp").is_number_integer());
}

TEST_CASE("report: the topology summary names the cluster and counts its devices and links") {
  auto cluster = generate_cluster("dgx-h100:nodes=2");
  REQUIRE(cluster);
  const ClusterSummary summary = summarize_cluster(*cluster);
  const json doc = topo_report(*cluster, summary);
  CHECK(doc.at("name") == cluster->name);
  CHECK(doc.at("generator") == cluster->generator);
  CHECK(doc.at("gpus") == summary.gpus);
  CHECK(doc.at("gpus") == 16);
  CHECK(doc.at("nodes") == 2);
  CHECK(doc.at("devices") == cluster->devices.size());
  CHECK(doc.at("links") == cluster->links.size());
  CHECK(doc.at("domains").at("nvlink") == summary.nvlink_domains);
  CHECK(doc.at("bisection_bytes_per_s") == summary.bisection_bytes_per_s);
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("report text: printf_to formats into a stream, past its small buffer too") {
  std::ostringstream out;
  printf_to(out, "%s=%d;", "a", 1);
  const std::string long_text(2000, 'x');
  printf_to(out, "%s", long_text.c_str());
  CHECK(out.str() == "a=1;" + long_text);
  CHECK(fixed_or_dash(1.23456, 2) == "1.23");
  CHECK(fixed_or_dash(std::nan(""), 2) == "-");
}

TEST_CASE("report text: the calibration summary ends with the fitted keys as a --comm option") {
  CalibrationResult fit;
  fit.changes = {"nvlink efficiency 0.780 -> 0.742", "overhead_ll_us 0.0 -> 5.5"};
  fit.comm_keys = {{"nvlink_efficiency", "0.742"}, {"overhead_ll_us", "5.5"}};
  fit.rows = 12;
  fit.error_before = 0.25;
  fit.error_after = 0.05;
  const auto lines = lines_of(calibration_text(fit, 2, 64 * kBytesPerMiB));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "# calibrated on 2 log(s), 12 rows of at least 67108864 B");
  CHECK(lines[1] == "#   " + fit.changes[0]);
  CHECK(lines[2] == "#   " + fit.changes[1]);
  CHECK(lines[3] == "# mean |time error| 25.0 % -> 5.0 %");
  CHECK(lines[4] == "--comm nvlink_efficiency=0.742,overhead_ll_us=5.5");
}

TEST_CASE("report text: the nccl-tests comparison has a header, one line per size and the mean error") {
  std::vector<CollectiveComparison> rows(3);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].bytes = 1024.0 * static_cast<double>(i + 1);
    rows[i].measured_time_s = 10e-6;
    rows[i].predicted_time_s = 11e-6;
  }
  const auto lines = lines_of(nccl_comparison_text("all-reduce", 8, "log.txt", "dgx", rows));
  REQUIRE(lines.size() == 2 + rows.size() + 1);
  CHECK(lines[0] == "# all-reduce over 8 GPUs: measured (log.txt) vs predicted (dgx)");
  CHECK(lines[2].find("1024") != std::string::npos);
  CHECK(lines[2].find("+10.0%") != std::string::npos);
  CHECK(lines.back() == "# mean |time error| 10.0 % over 3 sizes (error: predicted / measured time - 1)");
}

TEST_CASE("report text: a schedule's text gives one peak line per stage") {
  ScheduleInput input;
  input.stages = 3;
  input.micro_batches = 4;
  input.costs.assign(3, StageCosts{1, 2, 0});
  auto result = simulate_schedule(input);
  REQUIRE(result);
  const auto lines = lines_of(schedule_text(input, *result));
  REQUIRE(lines.size() == 1 + result->peak_in_flight.size());
  CHECK(lines[0].rfind(std::string(enum_name(input.schedule)) + ": p=3 m=4 v=1", 0) == 0);
  CHECK(lines[1].rfind("  stage 0: peak ", 0) == 0);
}
