// PyTorch profiler (Kineto) trace import, on the real traces in ../shared/data/kineto_traces (see
// ../shared/data/MANIFEST.md) and on broken variants derived from them here. The temporal breakdown and the
// communication/computation overlap are checked against Holistic Trace Analysis's own output on the same files
// (../shared/fidelity/hta_reference.csv).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/importers/kineto.hpp"
#include "kineto_test_support.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

using namespace meshscope::test::kineto;

TEST_CASE("kineto: the temporal breakdown and overlap match Holistic Trace Analysis on its own traces", "[kineto]") {
  // Source: HTA @ f4d0062c TraceAnalysis.get_temporal_breakdown() and get_comm_comp_overlap() on these files
  // (../shared/fidelity/hta_reference.csv). Required: within 1 %.
  const auto rows = test::read_fidelity_csv("hta_reference.csv");
  REQUIRE(rows.size() == 3);
  for (const auto& row : rows) {
    INFO(row.at("id"));
    const KinetoRankAnalysis a = analyze_kineto_trace(load_cached(test::shared_path(row.at("trace"))));
    CHECK(a.rank == std::stoll(row.at("rank")));
    CHECK(a.world_size == std::stoll(row.at("world_size")));
    REQUIRE(a.temporal);
    CHECK_THAT(a.temporal->idle_us, WithinRel(std::stod(row.at("idle_time_us")), 0.01));
    CHECK_THAT(a.temporal->compute_us, WithinRel(std::stod(row.at("compute_time_us")), 0.01));
    CHECK_THAT(a.temporal->non_compute_us, WithinRel(std::stod(row.at("non_compute_time_us")), 0.01));
    CHECK_THAT(a.temporal->kernel_time_us, WithinRel(std::stod(row.at("kernel_time_us")), 0.01));
    CHECK_THAT(a.temporal->idle_pct(), WithinAbs(std::stod(row.at("idle_pct")), 0.01 * 100));
    CHECK_THAT(a.temporal->compute_pct(), WithinRel(std::stod(row.at("compute_pct")), 0.01));
    CHECK_THAT(a.temporal->non_compute_pct(), WithinRel(std::stod(row.at("non_compute_pct")), 0.01));
    REQUIRE(a.comm_comp_overlap_pct);
    // HTA rounds the percentage to 0.01; 1 % of it, or that rounding for 0.0.
    const double overlap = std::stod(row.at("comp_comm_overlap_pct"));
    CHECK_THAT(*a.comm_comp_overlap_pct, WithinAbs(overlap, std::max(0.01 * overlap, 0.005)));
    // The same with HTA's own kernel types ("ncclKernel" in the name): the HTA-compatible figures.
    REQUIRE(a.hta_temporal);
    CHECK_THAT(a.hta_temporal->idle_us, WithinRel(std::stod(row.at("idle_time_us")), 0.01));
    CHECK_THAT(a.hta_temporal->compute_us, WithinRel(std::stod(row.at("compute_time_us")), 0.01));
    CHECK_THAT(a.hta_temporal->non_compute_us, WithinRel(std::stod(row.at("non_compute_time_us")), 0.01));
    CHECK_THAT(a.hta_temporal->kernel_time_us, WithinRel(std::stod(row.at("kernel_time_us")), 0.01));
    REQUIRE(a.hta_comm_comp_overlap_pct);
    CHECK_THAT(*a.hta_comm_comp_overlap_pct, WithinAbs(overlap, std::max(0.01 * overlap, 0.005)));
  }
}

TEST_CASE("kineto: the work each step launched adds up to HTA's window on the steps it keeps", "[kineto]") {
  // HTA keeps the GPU work launched before the last ProfilerStep starts; on this trace that is exactly the work of
  // the steps before the last one, so their launched compute and overlap must add up to HTA's figures.
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz"));
  REQUIRE(a.steps.size() == 3);
  CHECK(a.steps[0].name == "ProfilerStep#4");
  CHECK(a.steps[0].number == 4);
  CHECK_THAT(a.steps[0].duration_us, WithinRel(222442.191, 1e-12));  // the span's "dur" in the file
  double compute = 0;
  double communication = 0;
  double exposed = 0;
  for (size_t i = 0; i + 1 < a.steps.size(); ++i) {
    compute += a.steps[i].launched.compute_us;
    communication += a.steps[i].launched.communication_us;
    exposed += a.steps[i].launched.exposed_communication_us;
  }
  REQUIRE(a.temporal);
  REQUIRE(a.comm_comp_overlap_pct);
  CHECK(compute == a.temporal->compute_us);
  CHECK_THAT(100.0 * (communication - exposed) / communication, WithinAbs(*a.comm_comp_overlap_pct, 1e-9));
  for (const auto& s : a.steps) {
    INFO(s.name);
    CHECK(s.launched.gpu_events > 0);
    CHECK(s.launched.exposed_communication_us <= s.launched.communication_us);
    CHECK(s.launched.idle_us >= 0);
    CHECK(s.launched.compute_us + s.launched.idle_us <= s.launched.kernel_time_us);
  }
}

TEST_CASE("kineto: the breakdown follows HTA's definitions on a hand-made trace", "[kineto]") {
  // Three steps; a GEMM and an all-reduce that overlap by 10 µs, a copy, and one GEMM in each later step. HTA leaves
  // out what the last step launched (include_last_profiler_step=False).
  const std::string text = R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 1, "args": {"correlation": 4}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 250, "dur": 1, "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 20, "ts": 20, "dur": 30, "args": {"stream": 20, "correlation": 2}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 60, "dur": 5, "args": {"stream": 7, "correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": 160, "dur": 10, "args": {"stream": 7, "correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7, "ts": 260, "dur": 20, "args": {"stream": 7, "correlation": 5}}
  ]
})json";
  auto trace = parse_text(text);
  REQUIRE(trace);
  const KinetoRankAnalysis a = analyze_kineto_trace(*trace);
  REQUIRE(a.temporal);
  // Busy: [10,50] ∪ [60,65] ∪ [160,170] = 55 of a 160 µs window.
  CHECK(a.temporal->kernel_time_us == 160);
  CHECK(a.temporal->idle_us == 105);
  CHECK(a.temporal->compute_us == 30);
  CHECK(a.temporal->non_compute_us == 25);  // all-reduce alone [30,50] and the copy
  REQUIRE(a.comm_comp_overlap_pct);
  CHECK_THAT(*a.comm_comp_overlap_pct, WithinRel(100.0 / 3.0, 1e-12));  // 10 of 30 µs
  REQUIRE(a.steps.size() == 3);
  // In step 1's window [0, 100]: busy [10,50] ∪ [60,65] = 45 µs of 100, the first start 10 to the last end 65.
  CHECK(a.steps[0].duration_us == 100);
  CHECK(a.steps[0].busy_us == 45);
  CHECK(a.steps[0].kernel_time_us == 55);
  CHECK(a.steps[0].idle_us == 55);
  CHECK(a.steps[0].compute_us == 20);
  CHECK(a.steps[0].communication_us == 30);
  CHECK(a.steps[0].exposed_communication_us == 20);
  CHECK(a.steps[0].compute_or_communication_us == 40);
  CHECK(a.steps[0].gpu_events == 3);
  CHECK(a.steps[1].compute_us == 10);
  CHECK(a.steps[1].idle_us == 90);
  CHECK(a.steps[2].compute_us == 20);
  // What step 1 launched, unclipped (HTA's attribution): its GPU span [10, 65] with 10 µs idle in it.
  CHECK(a.steps[0].launched.kernel_time_us == 55);
  CHECK(a.steps[0].launched.idle_us == 10);
  CHECK(a.steps[0].launched.compute_us == 20);
  CHECK(a.steps[0].launched.communication_us == 30);
  CHECK(a.steps[0].launched.exposed_communication_us == 20);
  CHECK(a.steps[0].launched.gpu_events == 3);

  KinetoAnalysisOptions with_last;
  with_last.include_last_profiler_step = true;
  const KinetoRankAnalysis b = analyze_kineto_trace(*trace, with_last);
  REQUIRE(b.temporal);
  CHECK(b.temporal->kernel_time_us == 270);
  CHECK(b.temporal->idle_us == 195);
  CHECK(b.temporal->compute_us == 50);
}

TEST_CASE("kineto: fractional timestamps are rounded as HTA does, start up and end down", "[kineto]") {
  // PyTorch >= 2.3 writes ns resolution (µs with three decimals); HTA's loader rounds ts up and ts + dur down.
  const std::string text = R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10.2, "dur": 5.6, "args": {"stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 20.9, "dur": 4.05, "args": {"stream": 7}}
  ]})";
  auto trace = parse_text(text);
  REQUIRE(trace);
  CHECK(trace->display_time_unit == "ns");
  CHECK(trace->device_events[0].ts_us == 10.2);  // stored as written, in µs
  const KinetoRankAnalysis a = analyze_kineto_trace(*trace);
  REQUIRE(a.temporal);
  // [11, 15] and [21, 24]: window 13, busy 7.
  CHECK(a.temporal->kernel_time_us == 13);
  CHECK(a.temporal->idle_us == 6);
  CHECK(a.temporal->compute_us == 7);
}

TEST_CASE("kineto: displayTimeUnit ns leaves ts and dur in microseconds", "[kineto]") {
  // The Trace Event Format's displayTimeUnit only sets how viewers show time; HTA ignores it. In this ns trace the
  // ProfilerStep spans are tens of milliseconds when read as µs, as the job's 5 steps of ~0.1 s.
  const KinetoTrace& trace = shared_trace("hta_rank-0_V100_ns_resolution.pt.trace.json.gz");
  CHECK(trace.display_time_unit == "ns");
  const KinetoRankAnalysis a = analyze_kineto_trace(trace);
  REQUIRE(a.steps.size() == 5);
  CHECK(a.steps[0].name == "ProfilerStep#101");
  CHECK_THAT(a.steps[0].duration_us, WithinRel(35115.869, 1e-12));
  CHECK_THAT(a.steps[4].duration_us, WithinRel(95699.037, 1e-12));
  CHECK(a.world_size == 1);
  CHECK(a.device == "Tesla V100-SXM2-32GB");
  CHECK_FALSE(a.comm_comp_overlap_pct);  // no NCCL kernels in this trace
}

TEST_CASE("kineto: distributedInfo gives rank, world size, backend and process groups", "[kineto]") {
  SECTION("NCCL, one process group") {
    const KinetoTrace& trace = shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz");
    REQUIRE(trace.has_distributed_info);
    CHECK(trace.distributed.rank == 0);
    CHECK(trace.distributed.world_size == 2);
    CHECK(trace.distributed.backend == "nccl");
    CHECK(trace.distributed.nccl_version == "2.17.1");
    REQUIRE(trace.distributed.process_groups.size() == 1);
    CHECK(trace.distributed.process_groups[0].description == "default_pg");
    CHECK(trace.distributed.process_groups[0].ranks == std::vector<int64_t>{0, 1});
    CHECK(trace.devices.size() == 8);
    CHECK(trace.devices[0].name == "NVIDIA A100-PG509-200");
    CHECK(trace.devices[0].multiprocessors == 108);
    CHECK(trace.schema_version == 1);
    CHECK(trace.base_time_ns == 1711964646000000000);
  }
  SECTION("gloo, 300 ranks, CPU only") {
    const KinetoTrace& trace = shared_trace("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz");
    CHECK(trace.distributed.rank == 34);
    CHECK(trace.distributed.world_size == 300);
    CHECK(trace.distributed.backend == "gloo");
    CHECK(trace.devices.empty());
    const auto axes = classify_process_groups(trace.distributed);
    REQUIRE(axes.size() == trace.distributed.process_groups.size());
    for (const auto& axis : axes) CHECK(axis.axis_hint == "world");
  }
  SECTION("no distributedInfo") {
    const KinetoTrace& trace = shared_trace("hta_no_distributedInfo_A100.json.gz");
    CHECK_FALSE(trace.has_distributed_info);
    CHECK(trace.devices.size() == 8);
    const KinetoRankAnalysis a = analyze_kineto_trace(trace);
    CHECK(a.rank == 0);
    CHECK(a.world_size == 0);
    CHECK_FALSE(a.temporal);  // CPU events only
  }
}

TEST_CASE("kineto: NCCL kernel args give the collective, message size and dtype", "[kineto]") {
  // PyTorch records "Collective name", "In/Out msg nelems", "dtype" and "Group size" on the NCCL kernels of this
  // trace: 15 all-reduces of Float (76,671,096 elements in all) and 6 broadcasts (159,360 Float + 159 Long elements).
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_nccl_data_rank0_ws2_A100.json.gz"));
  REQUIRE(a.collectives.size() == 2);
  const auto& all_reduce = a.collectives[0];
  REQUIRE(all_reduce.op == CollectiveOp::all_reduce);
  CHECK(all_reduce.count == 15);
  CHECK(all_reduce.count_with_bytes == 15);
  CHECK(all_reduce.group_size == 2);
  CHECK_FALSE(all_reduce.group_size_assumed);
  CHECK(all_reduce.process_group == "0");
  CHECK(all_reduce.bytes == 76671096.0 * 4);
  CHECK_THAT(all_reduce.time_us, WithinRel(46762.159, 1e-9));
  CHECK_THAT(all_reduce.algbw_bytes_per_s, WithinRel(all_reduce.bytes / (all_reduce.time_us * 1e-6), 1e-12));
  // nccl-tests: busbw = algbw × 2(n-1)/n, 1 for two ranks.
  CHECK_THAT(all_reduce.busbw_bytes_per_s, WithinRel(all_reduce.algbw_bytes_per_s, 1e-12));
  const auto& broadcast = a.collectives[1];
  REQUIRE(broadcast.op == CollectiveOp::broadcast);
  CHECK(broadcast.count == 6);
  CHECK(broadcast.bytes == 159360.0 * 4 + 159.0 * 8);
}

TEST_CASE("kineto: without kernel args, the c10d op around the launch names the collective", "[kineto]") {
  // Every NCCL kernel of this trace is ncclKernel_SendRecv; the CPU ops that launched them are c10d::alltoall_base_,
  // c10d::allreduce_, c10d::_allgather_base_ and c10d::_reduce_scatter_base_ (10 each but 45 all-to-alls launched in
  // the profile; 5 kernels have no launch event and keep the name's send/recv).
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_rank0_ws16_A100-SXM4-80GB.json.gz"));
  std::map<CollectiveOp, int64_t> counts;
  for (const auto& c : a.collectives) {
    REQUIRE(c.op);
    counts[*c.op] += c.count;
    CHECK(c.group_size == 16);  // no group in the trace: the world size, flagged as assumed
    CHECK(c.group_size_assumed);
    CHECK(c.count_with_bytes == 0);
  }
  CHECK(counts[CollectiveOp::all_to_all] == 45);
  CHECK(counts[CollectiveOp::all_reduce] == 10);
  CHECK(counts[CollectiveOp::all_gather] == 10);
  CHECK(counts[CollectiveOp::reduce_scatter] == 10);
  CHECK(counts[CollectiveOp::send_recv] == 5);
}

TEST_CASE("kineto: ROCm traces use the same categories", "[kineto]") {
  const KinetoTrace& trace = shared_trace("hta_mi250_minitoy_train_ROCm6.2.json.gz");
  CHECK(trace.devices.size() == 4);
  CHECK(trace.device_events.size() == 16);  // 14 kernels, 2 copies, all on stream 0
  const KinetoRankAnalysis a = analyze_kineto_trace(trace);
  CHECK(a.device == "AMD Radeon Graphics");
  REQUIRE(a.steps.size() == 2);  // the gpu_user_annotation copy of ProfilerStep#1 is not a step
  CHECK(a.steps[0].name == "ProfilerStep#1");
  std::map<KernelClass, int64_t> counts;
  for (const auto& c : a.classes) counts[c.cls] = c.count;
  CHECK(counts[KernelClass::gemm] == 2);  // hipBLASLt Tensile Cijk_* kernels
  CHECK(counts[KernelClass::memcpy] == 2);
  CHECK(counts[KernelClass::other] == 12);
  REQUIRE(a.temporal);
}

TEST_CASE("kineto: the 2021 schema's capitalised categories are read", "[kineto]") {
  const KinetoTrace& trace = shared_trace("kineto_tbplugin_resnet50_worker0_V100-DGXS.pt.trace.json.gz");
  std::map<KinetoActivity, int64_t> counts;
  for (const auto& e : trace.device_events) ++counts[e.activity];
  CHECK(counts[KinetoActivity::kernel] == 8772);
  CHECK(counts[KinetoActivity::memset] == 312);
  CHECK(counts[KinetoActivity::memcpy] == 12);
  CHECK(trace.memory_events == 12838);
  CHECK(trace.unknown_category_events == 0);
  const KinetoRankAnalysis a = analyze_kineto_trace(trace);
  CHECK(a.steps.size() == 6);
  CHECK(a.steps.front().name == "ProfilerStep#5");
  REQUIRE(a.temporal);
  CHECK(a.temporal->compute_pct() > 50);
}

TEST_CASE("kineto: a CPU-only gloo trace has steps and CPU collectives but no GPU breakdown", "[kineto]") {
  const KinetoRankAnalysis a = analyze_kineto_trace(shared_trace("hta_cpu_only_rank-34_ws300_gloo.pt.trace.json.gz"));
  CHECK(a.rank == 34);
  CHECK(a.device == "cpu");
  CHECK_FALSE(a.temporal);
  CHECK_FALSE(a.comm_comp_overlap_pct);
  REQUIRE(a.steps.size() == 1);
  CHECK_THAT(a.steps[0].duration_us, WithinRel(210109.162, 1e-12));
  CHECK(a.steps[0].gpu_events == 0);
  REQUIRE(a.collectives.size() == 1);
  CHECK(a.collectives[0].on_cpu);
  CHECK(a.collectives[0].op == CollectiveOp::all_reduce);
  CHECK(a.collectives[0].count == 10);  // gloo:all_reduce annotations
}

TEST_CASE("kineto: memory events are counted and give the peak allocation per device", "[kineto]") {
  const KinetoTrace& trace = shared_trace("hta_rank1_ws2_V100_with_memory_events.json.gz");
  CHECK(trace.memory_events == 28010);
  REQUIRE(trace.peak_allocated_bytes.count(1));
  CHECK(trace.peak_allocated_bytes.at(1) == 6629508096.0);  // max "Total Allocated" of CUDA device 1
  CHECK(trace.events_by_category.at("cpu_instant_event") == 28010);
}

TEST_CASE("kineto: an 8-rank run gives the step-time skew and the slowest rank", "[kineto]") {
  // ProfilerStep#10 lasts 14455, 19901, 13017, 19313, 17979, 17797, 13091 and 12509 µs on ranks 0-7.
  std::vector<KinetoTrace> traces;
  for (const auto& entry : std::filesystem::directory_iterator(trace_path("param_dlrm_8rank"))) {
    auto trace = load_kineto_trace(entry.path().string());
    REQUIRE(trace);
    traces.push_back(std::move(*trace));
  }
  REQUIRE(traces.size() == 8);
  const KinetoRunAnalysis run = analyze_kineto_run(traces);
  REQUIRE(run.ranks.size() == 8);
  for (size_t i = 0; i < 8; ++i) CHECK(run.ranks[i].rank == static_cast<int64_t>(i));
  REQUIRE(run.step_skew_us);
  CHECK(*run.step_skew_us == 19901 - 12509);
  CHECK(run.slowest_rank == 1);
  CHECK(run.warnings.empty());
  // DLRM's embedding exchange: NCCL SendRecv kernels under c10d::alltoall_base_.
  bool has_all_to_all = false;
  for (const auto& c : run.ranks[0].collectives) has_all_to_all |= c.op == CollectiveOp::all_to_all;
  CHECK(has_all_to_all);
}

TEST_CASE("kineto: without distributedInfo the rank comes from the file name", "[kineto]") {
  const std::string text = R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",
    "pid": 1, "tid": 1, "ts": 0, "dur": DUR}]})";
  std::vector<KinetoTrace> traces;
  for (const auto& [name, dur] : {std::pair{"run/rank-3.json", "10"}, std::pair{"run/worker1.json", "30"}}) {
    std::string t = text;
    t.replace(t.find("DUR"), 3, dur);
    auto trace = parse_text(t, name);
    REQUIRE(trace);
    traces.push_back(std::move(*trace));
  }
  const KinetoRunAnalysis run = analyze_kineto_run(traces);
  REQUIRE(run.ranks.size() == 2);
  CHECK(run.ranks[0].rank == 1);
  CHECK(run.ranks[1].rank == 3);
  CHECK(run.slowest_rank == 1);
  CHECK(run.step_skew_us == 20);
  CHECK(run.warnings.size() == 2);
}

TEST_CASE("kineto: process groups map to mesh axes by their rank lists", "[kineto]") {
  KinetoDistributedInfo info;
  info.world_size = 8;
  const auto group = [](std::string name, std::vector<int64_t> ranks) {
    KinetoProcessGroup g;
    g.name = std::move(name);
    g.size = static_cast<int64_t>(ranks.size());
    g.ranks = std::move(ranks);
    return g;
  };
  info.process_groups = {group("world", {0, 1, 2, 3, 4, 5, 6, 7}), group("tp", {4, 5, 6, 7}), group("dp", {1, 5}),
                         group("self", {3}), group("odd", {0, 2, 3})};
  const auto axes = classify_process_groups(info);
  REQUIRE(axes.size() == 5);
  CHECK(axes[0].shape == ProcessGroupShape::world);
  CHECK(axes[1].shape == ProcessGroupShape::contiguous);
  CHECK(axes[1].axis_hint == "tp-like");
  CHECK(axes[2].shape == ProcessGroupShape::strided);
  CHECK(axes[2].axis_hint == "dp-like");
  CHECK(axes[2].stride == 4);
  CHECK(axes[3].shape == ProcessGroupShape::single);
  CHECK(axes[4].shape == ProcessGroupShape::irregular);
}

TEST_CASE("kineto: PyTorch collective and dtype names are understood", "[kineto]") {
  struct Case {
    const char* name;
    std::optional<CollectiveOp> op;
  };
  const Case c = GENERATE(
      Case{"allreduce", CollectiveOp::all_reduce}, Case{"_allgather_base", CollectiveOp::all_gather},
      Case{"reduce_scatter_tensor_coalesced", CollectiveOp::reduce_scatter},
      Case{"c10d::alltoall_base_", CollectiveOp::all_to_all}, Case{"nccl:all_to_all", CollectiveOp::all_to_all},
      Case{"gloo:broadcast", CollectiveOp::broadcast}, Case{"send", CollectiveOp::send_recv},
      Case{"recv", CollectiveOp::send_recv}, Case{"reduce", CollectiveOp::reduce}, Case{"barrier", std::nullopt},
      Case{"record_param_comms", std::nullopt}, Case{"", std::nullopt});
  INFO(c.name);
  CHECK(collective_op_from_pytorch_name(c.name) == c.op);
  CHECK(pytorch_dtype_bytes("Float") == 4.0);
  CHECK(pytorch_dtype_bytes("BFloat16") == 2.0);
  CHECK(pytorch_dtype_bytes("Float8_e4m3fn") == 1.0);
  CHECK(pytorch_dtype_bytes("Long") == 8.0);
  CHECK_FALSE(pytorch_dtype_bytes("Quaternion"));
}

TEST_CASE("kineto: the rule table classifies GEMM, attention and communication kernels by name", "[kineto]") {
  // Kernel names as the profiler shows them (demangled): NCCL <= 2.18 ncclKernel_*, >= 2.19 ncclDevKernel_*, RCCL's
  // generic kernel, DeepEP (csrc/kernels), vLLM's custom all-reduce (csrc/custom_all_reduce.cuh), TensorRT-LLM's
  // all-reduce, cuBLAS/cuBLASLt, hipBLASLt (Tensile Cijk_*), FlashAttention and PyTorch elementwise kernels.
  struct Case {
    const char* name;
    KernelClass cls;
    std::optional<CollectiveOp> op;
  };
  using C = KernelClass;
  const Case c = GENERATE(
      Case{"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", C::communication,
           CollectiveOp::all_reduce},
      Case{"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", C::communication,
           CollectiveOp::all_gather},
      Case{"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", C::communication,
           CollectiveOp::reduce_scatter},
      Case{"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", C::communication,
           CollectiveOp::send_recv},
      Case{"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", C::communication,
           CollectiveOp::broadcast},
      Case{"ncclKernel_Reduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", C::communication,
           CollectiveOp::reduce},
      Case{"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", C::communication, std::nullopt},
      Case{"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)", C::communication,
           CollectiveOp::all_to_all},
      Case{"void deep_ep::internode_ll::combine<false, 7168>(void*, void*, int)", C::communication,
           CollectiveOp::all_to_all},
      Case{"void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int)", C::communication, std::nullopt},
      Case{"nvshmemi_transfer_rma_nbi_kernel", C::communication, std::nullopt},
      Case{"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, int)",
           C::communication, CollectiveOp::all_reduce},
      Case{"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)", C::communication,
           CollectiveOp::all_reduce},
      Case{"Memcpy DtoD (Device -> Device)", C::memcpy, std::nullopt}, Case{"Memset (Device)", C::memset, std::nullopt},
      Case{"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >(Flash_fwd_params)",
           C::attention, std::nullopt},
      Case{"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t>::Params)",
           C::attention, std::nullopt},
      Case{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off",
           C::gemm, std::nullopt},
      Case{"ampere_sgemm_128x64_tn", C::gemm, std::nullopt},
      Case{"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", C::gemm, std::nullopt},
      Case{"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0", C::gemm, std::nullopt},
      Case{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, "
           "1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
           C::other, std::nullopt});
  INFO(c.name);
  const KernelClassification k = KernelRuleTable::defaults().classify(c.name);
  CHECK(k.cls == c.cls);
  CHECK(k.op == c.op);
  CHECK(is_compute_kernel(k.cls) == (c.cls != C::communication && c.cls != C::memcpy && c.cls != C::memset));
}

TEST_CASE("kineto: user rules from a JSON file come before the built-in ones", "[kineto]") {
  const std::string text = R"({"rules": [
    {"match": "my_a2a_kernel", "category": "communication", "op": "all-to-all"},
    {"regex": "^flash_.*_matmul$", "category": "gemm", "ignore_case": true}
  ]})";
  auto user = parse_kernel_rules_json(text, "rules.json");
  REQUIRE(user);
  REQUIRE(user->size() == 2);
  auto table = KernelRuleTable::defaults().with_rules_first(*user);
  REQUIRE(table);
  CHECK(table->classify("void my_a2a_kernel<1>(int)").cls == KernelClass::communication);
  CHECK(table->classify("void my_a2a_kernel<1>(int)").op == CollectiveOp::all_to_all);
  CHECK(table->classify("FLASH_fused_matmul").cls == KernelClass::gemm);  // was attention in the built-in table
  CHECK(table->classify("flash_fwd_kernel").cls == KernelClass::attention);
  CHECK(table->classify("ncclKernel_AllReduce_RING_LL_Sum_float").rule == 2);  // built-in rules follow

  // The analysis uses the table it is given.
  const std::string trace_text = R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "my_a2a_kernel", "pid": 0, "tid": 7, "ts": 0, "dur": 10}]})";
  auto trace = parse_text(trace_text);
  REQUIRE(trace);
  KinetoAnalysisOptions options;
  options.rules = &*table;
  const KinetoRankAnalysis a = analyze_kineto_trace(*trace, options);
  REQUIRE(a.collectives.size() == 1);
  CHECK(a.collectives[0].op == CollectiveOp::all_to_all);
  CHECK(analyze_kineto_trace(*trace).collectives.empty());  // the built-in table calls it compute
}

TEST_CASE("kineto: a bad rule file is an error naming the rule", "[kineto]") {
  struct Case {
    const char* text;
    const char* location;
  };
  const Case c = GENERATE(
      Case{R"({"rules": [{"match": "x", "category": "network"}]})", "rules.json: rules[0].category"},
      Case{R"({"rules": [{"match": "x", "category": "gemm", "op": "all-reduce"}]})", "rules.json: rules[0].op"},
      Case{R"({"rules": [{"category": "gemm"}]})", "rules.json: rules[0]"},
      Case{R"({"rules": [{"match": "x", "regex": "y", "category": "gemm"}]})", "rules.json: rules[0]"},
      Case{R"({"rules": [{"match": "x", "category": "communication", "op": "gather"}]})", "rules.json: rules[0].op"},
      Case{R"({"rules": [{"regex": "(", "category": "gemm"}]})", "rules.json: rules[0]"},
      Case{R"({"rules": [{"match": 3, "category": "gemm"}]})", "rules.json: rules[0].match"},
      Case{R"({"rules": {}})", "rules.json: rules"}, Case{R"([1, 2])", "rules.json"});
  INFO(c.text);
  auto rules = parse_kernel_rules_json(c.text, "rules.json");
  REQUIRE_FALSE(rules);
  CHECK(rules.error().location == c.location);
}

// ---- Broken input -------------------------------------------------------------------------------------------------
// Derived here from real traces (the small ROCm one, and the gloo one for distributedInfo), written to temporary
// files. Each must give an Error that names the file and, where it is known, the line, column and byte offset.
