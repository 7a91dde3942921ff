// Predicted collective bandwidth against real nccl-tests logs (../shared/data/nccl_tests) and a
// cloud vendor's published curve (../shared/fidelity/collective_comm_bandwidth.csv).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "core/comm/collective.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/node_topology.hpp"
#include "core/topology/generators.hpp"
#include "support/csv.hpp"

using namespace meshscope;

namespace {

constexpr double kLarge = 64.0 * 1024 * 1024;  // the threshold: messages ≥ 64 MB

struct Comparison {
  double bytes, measured_busbw, predicted_busbw;
  [[nodiscard]] double error() const { return predicted_busbw / measured_busbw - 1; }
};

std::vector<Comparison> compare(const Cluster& cluster, const NcclTestsLog& log, int64_t ranks) {
  const Router router(cluster);
  std::vector<DeviceId> gpus(cluster.gpus.begin(), cluster.gpus.begin() + ranks);
  const GroupPaths group = group_paths(router, gpus);
  std::vector<Comparison> out;
  for (const auto& row : log.rows) {
    if (row.bytes <= 0 || !(row.out_of_place_busbw_bytes_per_s > 0)) continue;
    const auto e = estimate_collective(router, group, *log.op, row.bytes, CommConstants::defaults());
    out.push_back({row.bytes, row.out_of_place_busbw_bytes_per_s, e.busbw_bytes_per_s});
  }
  return out;
}

// Every row, the small sizes too (marked "<64M": reported, not bounded).
void report(const char* name, const std::vector<Comparison>& rows) {
  for (const auto& r : rows)
    std::printf("[fidelity] %-28s %12.0f B  measured %7.2f GB/s  predicted %7.2f GB/s  error %+6.1f %%%s\n", name,
                r.bytes, r.measured_busbw / 1e9, r.predicted_busbw / 1e9, 100 * r.error(),
                r.bytes >= kLarge ? "" : "  <64M");
}

// Every row from 64 MiB within 15 % of the measured bus bandwidth; returns how many were checked.
int check_large(const std::vector<Comparison>& rows) {
  int checked = 0;
  for (const auto& r : rows) {
    if (r.bytes < kLarge) continue;
    INFO(r.bytes << " B: measured " << r.measured_busbw / 1e9 << " GB/s, predicted " << r.predicted_busbw / 1e9);
    CHECK(std::abs(r.error()) <= 0.15);
    ++checked;
  }
  return checked;
}

// Latency-bound to bandwidth-bound: flat time for tiny messages, busbw rising with size, and
// time proportional to size for the largest ones.
void check_shape(const Cluster& cluster, CollectiveOp op, int64_t ranks) {
  const Router router(cluster);
  std::vector<DeviceId> gpus(cluster.gpus.begin(), cluster.gpus.begin() + ranks);
  const GroupPaths group = group_paths(router, gpus);
  const auto k = CommConstants::defaults();
  double previous_busbw = 0;
  for (double bytes = 8; bytes <= 8.0 * 1024 * 1024 * 1024; bytes *= 2) {
    const auto e = estimate_collective(router, group, op, bytes, k);
    CHECK(e.busbw_bytes_per_s >= previous_busbw * 0.999);
    previous_busbw = e.busbw_bytes_per_s;
  }
  const double tiny = estimate_collective(router, group, op, 8, k).time_s;
  CHECK(estimate_collective(router, group, op, 1024, k).time_s < 1.2 * tiny);
  const double big = estimate_collective(router, group, op, 4.0 * 1024 * 1024 * 1024, k).time_s;
  const double bigger = estimate_collective(router, group, op, 8.0 * 1024 * 1024 * 1024, k).time_s;
  CHECK(std::abs(bigger / big - 2) < 0.05);
}

}  // namespace

TEST_CASE("collectives: 8×A100 SXM nccl-tests logs, busbw within 15 % from 64 MB") {
  // superbench_8xA100-SXM4-40GB_nccl_*.log: one DGX-A100-class node (NVSwitch, 12 NVLink3 per GPU).
  // Every row of every collective from 64 MiB, with the default constants (NCCL's tables plus the
  // measured start-up of the pipelined protocols, CommConstants::defaults).
  auto cluster = generate_cluster("dgx-a100:nodes=1,gpu=a100-40gb-sxm");
  REQUIRE(cluster);
  const char* const files[] = {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce"};
  for (const char* name : files) {
    INFO(name);
    auto log = load_nccl_tests(
        test::shared_path(std::string("data/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_") + name + ".log"));
    REQUIRE(log);
    REQUIRE(log->op);
    const auto rows = compare(*cluster, *log, 8);
    report(name, rows);
    int checked = 0;
    for (const auto& r : rows) {
      if (r.bytes < kLarge) continue;
      INFO(r.bytes << " B: measured " << r.measured_busbw / 1e9 << " GB/s, predicted " << r.predicted_busbw / 1e9);
      CHECK(std::abs(r.error()) <= 0.15);
      ++checked;
    }
    CHECK(checked == 8);
    check_shape(*cluster, *log->op, 8);
  }
}

TEST_CASE("collectives: Azure ND A100 v4 all-reduce curve (collective_comm_bandwidth.csv)") {
  auto cluster = generate_cluster("dgx-a100:nodes=1");
  REQUIRE(cluster);
  const Router router(*cluster);
  const GroupPaths group = group_paths(router, cluster->gpus);
  std::vector<Comparison> rows;
  for (const auto& row : test::read_fidelity_csv("collective_comm_bandwidth.csv")) {
    if (row.at("id").rfind("azure_A100", 0) != 0) continue;
    const std::string size = row.at("message_size");
    const double scale = size.back() == 'K' ? 1024.0 : size.back() == 'M' ? 1048576.0 : 1073741824.0;
    // The vendor's labels round sizes: "65K" is 65536 B, "134M" is 128 MiB (powers of two).
    const double bytes = std::exp2(std::round(std::log2(std::stod(size) * scale / 1.024)));
    const auto e = estimate_collective(router, group, CollectiveOp::all_reduce, bytes, CommConstants::defaults());
    rows.push_back({bytes, std::stod(row.at("value")) * 1e9, e.busbw_bytes_per_s});
  }
  REQUIRE(rows.size() == 24);
  report("azure A100 all-reduce", rows);
  for (const auto& r : rows) {
    if (r.bytes < kLarge) continue;
    INFO(r.bytes << " B");
    CHECK(std::abs(r.error()) <= 0.15);
  }
  // NCCL maintainer's expected peak: ~230 GB/s (nccl-tests issue #149).
  CHECK(std::abs(rows.back().predicted_busbw / 230e9 - 1) <= 0.05);
}

namespace {

NcclTestsLog shared_log(const std::string& file) {
  auto log = load_nccl_tests(test::shared_path("data/nccl_tests/" + file), CollectiveOp::all_reduce);
  REQUIRE(log);
  return std::move(*log);
}

}  // namespace

TEST_CASE("collectives: 8×MI300X rccl-tests all-reduce over the xGMI mesh, busbw within 15 % from 64 MB") {
  // rccl_all_reduce_perf_mi300x_8gpu_amd_acceptance_guide.log (bare-metal Supermicro, 8 B–8 GiB)
  // and rccl_all_reduce_perf_mi300x_vf_8gpu_azure_rocm_rccl_issue1562.log (Azure ND MI300X v5
  // VMs, 8 B–128 MiB): one node of 8 MI300X, every pair joined by one xGMI link (mi300x
  // generator). No constant of the model is fitted to either log.
  auto cluster = generate_cluster("mi300x:nodes=1");
  REQUIRE(cluster);
  const auto bare = compare(*cluster, shared_log("rccl_all_reduce_perf_mi300x_8gpu_amd_acceptance_guide.log"), 8);
  report("mi300x all-reduce", bare);
  CHECK(check_large(bare) == 8);
  check_shape(*cluster, CollectiveOp::all_reduce, 8);
  // A GitHub issue's text, with no licence: in ../shared, not in the tests/data/shared mirror.
  const std::string vf_file = "rccl_all_reduce_perf_mi300x_vf_8gpu_azure_rocm_rccl_issue1562.log";
  if (!std::filesystem::exists(test::shared_path("data/nccl_tests/" + vf_file))) {
    WARN(vf_file << " is not in the mirror (no licence): not compared");
    return;
  }
  const auto vf = compare(*cluster, shared_log(vf_file), 8);
  report("mi300x vf all-reduce", vf);
  CHECK(check_large(vf) == 2);
}

TEST_CASE("collectives: 8×MI350X rccl-tests all-reduce (published excerpt), busbw within 15 % at 8 GiB") {
  // rccl_all_reduce_perf_mi350x_8gpu_amd_acceptance_guide_EXCERPT.log: the 8 B and 8 GiB rows.
  // The MI300X platform with MI350X's Infinity Fabric: AMD Instinct MI350X datasheet, 7 links
  // per GPU, 1075.2 GB/s aggregate peer-to-peer = 153.6 GB/s per link both ways, 76.8 per
  // direction.
  auto cluster = generate_cluster("mi300x:nodes=1");
  REQUIRE(cluster);
  for (auto& link : cluster->links)
    if (link.kind == LinkKind::xgmi && cluster->device(link.a).kind == DeviceKind::gpu)
      link.bandwidth_bytes_per_s = 76.8e9;
  const auto rows =
      compare(*cluster, shared_log("rccl_all_reduce_perf_mi350x_8gpu_amd_acceptance_guide_EXCERPT.log"), 8);
  report("mi350x all-reduce", rows);
  CHECK(check_large(rows) == 1);
}

TEST_CASE("collectives: 8×V100 hybrid cube-mesh nccl-tests all-reduce, busbw within 15 % from 64 MB") {
  // nccl_all_reduce_perf_v100_sxm2_8gpu_hybrid_cube_mesh.log: the node is read from the
  // nvidia-smi topo -m printed at the top of the same log (NV1/NV2 direct NVLink2 links, SYS
  // elsewhere), as a user would import it.
  NodeImportOptions options;
  options.gpu_model = "v100-sxm2-32gb";
  options.nvlink_generation = 2;
  options.nvlink = NvlinkModel::direct;
  const std::string file = "nccl_all_reduce_perf_v100_sxm2_8gpu_hybrid_cube_mesh.log";
  if (!std::filesystem::exists(test::shared_path("data/nccl_tests/" + file))) {
    WARN(file << " is not in the tests/data/shared mirror (no licence stated): not compared");
    return;
  }
  auto cluster = import_node_topology(test::shared_path("data/nccl_tests/" + file), options);
  REQUIRE(cluster);
  REQUIRE(cluster->num_gpus() == 8);
  const auto rows = compare(*cluster, shared_log(file), 8);
  report("v100 cube-mesh all-reduce", rows);
  CHECK(check_large(rows) == 2);
  check_shape(*cluster, CollectiveOp::all_reduce, 8);
}

TEST_CASE(
    "collectives: XLA's measured all-reduce table — MI355X meshes within 15 % from 64 MB, NVSwitch rows reported") {
  // collective_measured_xla.csv (ROCm/xla default_collective_perf_table.txtpb, measured on real
  // hardware): network_throughput_bytes_per_sec is bytes / time (nccl-tests' algbw), for
  // num_replica_groups groups of num_devices_per_group GPUs running at once. gfx950 (MI350/MI355,
  // 8 GPUs fully connected by xGMI at 76.8 GB/s per direction per link, AMD MI350X datasheet) runs
  // groups of 2, 4 and 8: one, three and seven links per GPU, which is what the channel search
  // gives. The NVSwitch systems (sm_90 8 × H100, sm_100 8 × B200, GB200 NVL72) are printed for
  // the NVLS comparison in docs/conventions.md and not bounded here.
  struct System {
    const char* arch;
    const char* spec;
  };
  const System systems[] = {{"gfx950", "mi300x:nodes=1"},
                            {"sm_90", "dgx-h100:nodes=1"},
                            {"sm_100_B200", "dgx-b200:nodes=1"},
                            {"sm_100_GB200", "gb200-nvl72"}};
  const auto rows = test::read_fidelity_csv("collective_measured_xla.csv");
  for (const System& system : systems) {
    auto cluster = generate_cluster(system.spec);
    REQUIRE(cluster);
    if (std::string(system.arch) == "gfx950")
      for (auto& link : cluster->links)
        if (link.kind == LinkKind::xgmi && cluster->device(link.a).kind == DeviceKind::gpu)
          link.bandwidth_bytes_per_s = 76.8e9;
    const Router router(*cluster);
    std::map<int64_t, GroupPaths> groups;
    int checked = 0;
    for (const auto& row : rows) {
      if (row.at("arch") != system.arch || row.at("opcode") != "all-reduce") continue;
      if (row.at("num_devices_per_group").empty() || row.at("network_throughput_bytes_per_sec").empty()) continue;
      const int64_t n = std::stoll(row.at("num_devices_per_group"));
      const double bytes = std::stod(row.at("shape_bytes"));
      auto group = groups.find(n);
      if (group == groups.end())
        group = groups
                    .emplace(
                        n, group_paths(router, std::vector<DeviceId>(cluster->gpus.begin(), cluster->gpus.begin() + n)))
                    .first;
      const auto e =
          estimate_collective(router, group->second, CollectiveOp::all_reduce, bytes, CommConstants::defaults());
      const double factor = bus_bandwidth_factor(CollectiveOp::all_reduce, n);
      const Comparison c{bytes, std::stod(row.at("network_throughput_bytes_per_sec")) * factor, e.busbw_bytes_per_s};
      const std::string name = std::string(system.arch) + " " + row.at("element_type") + " " +
                               row.at("num_replica_groups") + "x" + std::to_string(n);
      report(name.c_str(), {c});
      if (std::string(system.arch) != "gfx950" || bytes < kLarge) continue;
      INFO(name << " " << bytes << " B");
      CHECK(std::abs(c.error()) <= 0.15);
      ++checked;
    }
    if (std::string(system.arch) == "gfx950") CHECK(checked == 30);
  }
}

// An all-to-all inside one GB200 NVL72 rack: XLA's measured table (collective_measured_xla.csv,
// sm_100_GB200, one group of 8–64 GPUs) against the pairwise model, with NCCL's n − 1 rounds of
// grouped sends and receives and as one kernel reaching every peer (DeepEP/HybridEP, the flex MoE
// dispatcher: CommConstants::all_to_all_one_kernel). The measured time of a small call grows from
// 11 µs (8 GPUs) to 51 µs (64): no round per peer is paid at full latency, which the one-kernel
// form follows (its floor is the Simple protocol's, ~125 µs, not asserted); from 64 MB it is
// bandwidth-bound.
TEST_CASE("collectives: AWS p5 over EFA, 2–32 instances (public nccl-tests), the large-message regime") {
  // tests/data/collectives/aws_p5_efa_nccl_tests.csv (crazyguitar/aws-gpu-communication-benchmark,
  // CC BY 4.0; PROVENANCE.md there): all_reduce_perf to 8 GiB and alltoall_perf to 2 GiB on
  // p5.48xlarge, against the aws-p5 generator (32 × 100 Gb/s EFA per instance). Compared, never
  // fitted. Every row is printed. Bounded: the all-to-all from 256 MiB within 10 %, the all-reduce at
  // 8 GiB within 15 %. Below that the measured all-reduce rises far more slowly from 4 instances on
  // (at 32 instances 220 GB/s at 1 GiB, where the model has 330): AWS's NCCL tuner (aws-ofi-nccl
  // src/tuner/nccl_ofi_model.cpp) takes the ring there, with 20 µs a network step, and the model
  // does not follow its choice — a known gap (docs/conventions.md).
  const auto rows =
      test::read_csv_file(std::string(MESHSCOPE_SOURCE_DIR) + "/tests/data/collectives/aws_p5_efa_nccl_tests.csv");
  REQUIRE(rows.size() == 80);
  // One cluster, router and group per job size (the rows come sorted by it).
  struct Job {
    Cluster cluster;
    std::unique_ptr<Router> router;
    GroupPaths group;
  };
  std::map<int64_t, Job> jobs;
  int all_to_all_checked = 0, all_reduce_checked = 0;
  for (const auto& row : rows) {
    const int64_t nodes = std::stoll(row.at("nodes"));
    if (!jobs.count(nodes)) {
      auto c = generate_cluster("aws-p5:nodes=" + std::to_string(nodes));
      REQUIRE(c);
      Job& job = jobs[nodes];
      job.cluster = std::move(*c);
      job.router = std::make_unique<Router>(job.cluster);
      job.group = group_paths(*job.router, job.cluster.gpus);
    }
    const Job& job = jobs.at(nodes);
    REQUIRE(std::stoll(row.at("gpus")) == job.cluster.num_gpus());
    const std::string& op = row.at("op");
    const bool all_reduce = op == "all_reduce";
    const double bytes = std::stod(row.at("size_mib")) * 1024 * 1024;
    const double measured = std::stod(row.at("out_busbw_GBps")) * 1e9;
    const auto e =
        estimate_collective(*job.router, job.group, all_reduce ? CollectiveOp::all_reduce : CollectiveOp::all_to_all,
                            bytes, CommConstants::defaults());
    const double error = e.busbw_bytes_per_s / measured - 1;
    std::printf(
        "[fidelity] aws-p5 %-10s %2lld nodes %12.0f B  measured %7.2f GB/s  predicted %7.2f GB/s  error %+6.1f %%\n",
        op.c_str(), static_cast<long long>(nodes), bytes, measured / 1e9, e.busbw_bytes_per_s / 1e9, 100 * error);
    INFO(op << " at " << nodes << " nodes, " << bytes << " B");
    if (!all_reduce && bytes >= 256.0 * 1024 * 1024) {
      CHECK(std::abs(error) <= 0.10);
      ++all_to_all_checked;
    }
    if (all_reduce && bytes >= 8.0 * 1024 * 1024 * 1024) {
      CHECK(std::abs(error) <= 0.15);
      ++all_reduce_checked;
    }
  }
  CHECK(all_to_all_checked == 20);
  CHECK(all_reduce_checked == 5);
}

TEST_CASE("collectives: an all-to-all over an NVL72 rack, XLA's measured table, one kernel against n − 1 rounds") {
  auto cluster = generate_cluster("gb200-nvl72");
  REQUIRE(cluster);
  const Router router(*cluster);
  CommConstants rounds = CommConstants::defaults(), one_kernel = rounds;
  one_kernel.all_to_all_one_kernel = true;
  std::vector<double> large;  // |error| of the one-kernel form from 64 MB
  double largest = 0;         // its largest from 256 MB
  for (const auto& row : test::read_fidelity_csv("collective_measured_xla.csv")) {
    if (row.at("arch") != "sm_100_GB200" || row.at("opcode") != "all-to-all") continue;
    // Groups run at once, each on its own GPUs' NVLink ports into the non-blocking NVSwitch fabric:
    // the first group's time is each group's.
    const int64_t n = std::stoll(row.at("num_devices_per_group"));
    const double bytes = std::stod(row.at("shape_bytes"));
    const double measured_s = bytes / std::stod(row.at("network_throughput_bytes_per_sec"));
    const GroupPaths group =
        group_paths(router, std::vector<DeviceId>(cluster->gpus.begin(), cluster->gpus.begin() + n));
    const double nccl_s = estimate_collective(router, group, CollectiveOp::all_to_all, bytes, rounds).time_s;
    const double kernel_s = estimate_collective(router, group, CollectiveOp::all_to_all, bytes, one_kernel).time_s;
    std::printf(
        "[fidelity] all-to-all GB200 %sx%-2lld %11.0f B: measured %8.1f us, one kernel %8.1f us (%+6.1f %%), "
        "n-1 rounds %8.1f us (%+6.1f %%)\n",
        row.at("num_replica_groups").c_str(), static_cast<long long>(n), bytes, measured_s * 1e6, kernel_s * 1e6,
        100 * (kernel_s / measured_s - 1), nccl_s * 1e6, 100 * (nccl_s / measured_s - 1));
    CHECK(kernel_s <= nccl_s);
    if (bytes < kLarge) continue;
    large.push_back(std::abs(kernel_s / measured_s - 1));
    if (bytes >= 4 * kLarge) largest = std::max(largest, large.back());
  }
  // From 64 MB on 2026-12-04: 95 rows, one kernel median |error| 9.5 %, max 56 % (at 64 MB; from
  // 256 MB max 35 %: the groups of 18 trays, which measure ~15 % below the others' rate).
  REQUIRE(large.size() >= 90);
  std::sort(large.begin(), large.end());
  std::printf(
      "[fidelity] all-to-all GB200 one kernel from 64 MB: %zu rows, median |error| %.1f %%, max from 256 MB "
      "%.1f %%\n",
      large.size(), 100 * large[large.size() / 2], 100 * largest);
  CHECK(large[large.size() / 2] <= 0.15);
  CHECK(largest <= 0.40);
}
