// meshscope-cli subcommands about clusters: topo, route, collective, comm.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/comm/comm_plan.hpp"
#include "core/comm/link_load.hpp"
#include "core/report/topology.hpp"
#include "core/report/units.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/summary.hpp"

namespace meshscope::cli {
namespace {

Result<int64_t> parse_index(const std::string& text, const std::string& option) {
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= 0) return static_cast<int64_t>(value);
  } catch (...) {
  }
  return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a GPU index", option);
}

// "0-15", "0,8,16", "0-3,8-11" → GPU indices in rank order.
Result<std::vector<DeviceId>> gpu_list(const Cluster& c, const std::string& text) {
  std::vector<DeviceId> gpus;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t dash = item.find('-');
    MS_TRY(first, parse_index(item.substr(0, dash), "--gpus"));
    int64_t last = first;
    if (dash != std::string::npos) {
      MS_TRY(end, parse_index(item.substr(dash + 1), "--gpus"));
      last = end;
    }
    if (last < first) return make_error(ErrorCode::invalid_argument, "range \"" + item + "\" is reversed", "--gpus");
    if (last >= c.num_gpus())
      return make_error(ErrorCode::invalid_argument,
                        "GPU " + std::to_string(last) + " does not exist; the cluster has " +
                            std::to_string(c.num_gpus()) + " GPUs (0-" + std::to_string(c.num_gpus() - 1) + ")",
                        "--gpus");
    for (int64_t g = first; g <= last; ++g) gpus.push_back(c.gpus[static_cast<size_t>(g)]);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (gpus.size() < 2) return make_error(ErrorCode::invalid_argument, "a collective needs at least 2 GPUs", "--gpus");
  return gpus;
}

Result<double> parse_size(const std::string& text) {
  // "8", "1K", "64M", "8G" (binary multiples, as nccl-tests -b/-e).
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  std::string suffix(end);
  double scale = 1;
  if (suffix == "K" || suffix == "k")
    scale = kBytesPerKiB;
  else if (suffix == "M" || suffix == "m")
    scale = kBytesPerMiB;
  else if (suffix == "G" || suffix == "g")
    scale = kBytesPerGiB;
  else if (!suffix.empty() || end == text.c_str())
    scale = -1;
  if (scale < 0 || !(value > 0))
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a size (e.g. 8, 1K, 64M, 8G)", "--sizes");
  return value * scale;
}

Result<std::vector<double>> size_sweep(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return make_error(ErrorCode::invalid_argument, "expected MIN:MAX[:FACTOR]", "--sizes");
  MS_TRY(min_bytes, parse_size(parts[0]));
  double max_bytes = min_bytes;
  if (parts.size() >= 2) {
    MS_TRY(value, parse_size(parts[1]));
    max_bytes = value;
  }
  double factor = 2;
  if (parts.size() == 3) {
    factor = std::strtod(parts[2].c_str(), nullptr);
    if (!(factor > 1)) return make_error(ErrorCode::invalid_argument, "the factor must be above 1", "--sizes");
  }
  if (max_bytes < min_bytes) return make_error(ErrorCode::invalid_argument, "MAX is below MIN", "--sizes");
  std::vector<double> sizes;
  for (double s = min_bytes; s <= max_bytes * (1 + 1e-9) && sizes.size() < 200; s *= factor) sizes.push_back(s);
  return sizes;
}

}  // namespace

int cmd_topo(const Args& args) {
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  const ClusterSummary s = summarize_cluster(*cluster);
  if (args.json) {
    std::cout << topo_report(*cluster, s).dump(2) << "\n";
    return 0;
  }
  std::printf("Cluster %s\n  %lld GPUs in %lld nodes (%lld racks)\n", cluster->name.c_str(),
              static_cast<long long>(s.gpus), static_cast<long long>(s.nodes), static_cast<long long>(s.racks));
  std::printf("  NVLink domains %lld (largest %lld GPUs), PCIe switches %lld, NUMA domains %lld, NICs %lld\n",
              static_cast<long long>(s.nvlink_domains), static_cast<long long>(s.largest_nvlink_domain),
              static_cast<long long>(s.pcie_switches), static_cast<long long>(s.numa_domains),
              static_cast<long long>(s.nics));
  std::printf("  leaf switches %lld, spine switches %lld\n  bisection bandwidth %s per direction\n",
              static_cast<long long>(s.leaf_switches), static_cast<long long>(s.spine_switches),
              gbps_text(s.bisection_bytes_per_s).c_str());
  return 0;
}

int cmd_route(const Args& args) {
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  if (!args.has("--from") || !args.has("--to")) return fail("--from and --to (GPU indices) are required");
  auto from = parse_index(args.get("--from"), "--from");
  auto to = parse_index(args.get("--to"), "--to");
  if (!from) return fail(from.error());
  if (!to) return fail(to.error());
  if (*from >= cluster->num_gpus() || *to >= cluster->num_gpus())
    return fail("the cluster has " + std::to_string(cluster->num_gpus()) + " GPUs");
  const Router router(*cluster);
  const DeviceId a = cluster->gpus[static_cast<size_t>(*from)], b = cluster->gpus[static_cast<size_t>(*to)];
  const Route r = router.route(a, b);
  // No path (a GPU without a NIC, a fabric not connected): an error, not a zero-bandwidth route.
  if (!r.reachable)
    return fail("no route from " + cluster->device(a).id + " to " + cluster->device(b).id +
                ": no NVLink or host path, and no network path through a NIC of each");
  const auto doc = route_report(*cluster, a, b, r);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%s → %s: %s, bottleneck %s, latency %.2f µs\n", cluster->device(a).id.c_str(),
              cluster->device(b).id.c_str(), std::string(path_tier_name(r.tier)).c_str(),
              gbps_text(r.links.empty() ? 0 : r.bottleneck_bytes_per_s).c_str(), us_from_s(r.latency_s));
  for (const auto& hop : doc["hops"])
    std::printf("  %-24s → %-24s %-10s %s\n", hop["from"].get<std::string>().c_str(),
                hop["to"].get<std::string>().c_str(), hop["kind"].get<std::string>().c_str(),
                gbps_text(hop["bandwidth_bytes_per_s"].get<double>()).c_str());
  return 0;
}

int cmd_collective(const Args& args) {
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  if (!args.has("--op")) return fail("--op is required (all-reduce, all-gather, reduce-scatter, all-to-all, ...)");
  const auto op = parse_collective_op(args.get("--op"));
  if (!op) return fail("unknown collective \"" + args.get("--op") + "\"");
  if (!args.has("--gpus")) return fail("--gpus is required (e.g. 0-7)");
  auto gpus = gpu_list(*cluster, args.get("--gpus"));
  if (!gpus) return fail(gpus.error());
  auto sizes = size_sweep(args.has("--sizes") ? args.get("--sizes") : "8:8G");
  if (!sizes) return fail(sizes.error());
  const Router router(*cluster);
  const GroupPaths group = group_paths(router, *gpus);
  auto constants_result = comm_arg(args);
  if (!constants_result) return fail(constants_result.error());
  const CommConstants constants = *constants_result;
  std::vector<CollectiveEstimate> points;
  for (const double bytes : *sizes) points.push_back(estimate_collective(router, group, *op, bytes, constants));
  if (args.json) {
    std::cout << collective_report(*cluster, points).dump(2) << "\n";
    return 0;
  }
  const std::string tier = points.empty()
                               ? std::string(path_tier_name(group.worst_tier))
                               : std::string(tier_name(*cluster, points.front().tier, points.front().bottleneck));
  std::printf("# %s over %zu GPUs on %lld nodes (%s)\n", std::string(collective_op_name(*op)).c_str(), gpus->size(),
              static_cast<long long>(group.nodes), tier.c_str());
  // The rings (channels) the group runs and the links they cross (core/topology/channels.hpp).
  const std::vector<RingChannel> channels = ring_channels(router, *gpus);
  std::vector<int32_t> used;
  for (const RingChannel& channel : channels)
    for (const Route& r : channel.routes)
      for (const LinkId l : r.links) used.push_back(l.value);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const GroupBandwidth bandwidth = group_bandwidth(router, group, constants);
  std::printf("# %zu ring channel%s over %zu links, ring bus bandwidth %.2f GB/s\n", channels.size(),
              channels.size() == 1 ? "" : "s", used.size(), gb_per_s(bandwidth.ring));
  std::printf("#%14s %12s %10s %10s  algorithm\n", "size (B)", "time (us)", "algbw", "busbw");
  for (const auto& p : points)
    std::printf("%15.0f %12.2f %10.2f %10.2f  %s/%s\n", p.bytes, us_from_s(p.time_s), gb_per_s(p.algbw_bytes_per_s),
                gb_per_s(p.busbw_bytes_per_s), std::string(algorithm_name(p.algorithm)).c_str(),
                std::string(protocol_name(p.protocol)).c_str());
  return 0;
}

int cmd_comm(const Args& args) {
  auto setup = training_setup(args);
  if (!setup) return fail(setup.error());
  const auto& [model, cluster, workload, layout] = *setup;
  AxisOrder order = AxisOrder::megatron;
  if (args.has("--order") && !parse_axis_order(args.get("--order"), order))
    return fail("--order must be megatron, tp-pp-dp or torchtitan");
  const Router router(cluster);
  auto placement = place_layout(layout, cluster, router, order);
  if (!placement) return fail(placement.error());
  auto constants = comm_arg(args);
  if (!constants) return fail(constants.error());
  CommOptions options;
  options.constants = *constants;
  const CommPlan plan = plan_communication(model, workload, layout, cluster, router, *placement, options);
  if (args.json) {
    std::cout << comm_report(cluster, *placement, plan).dump(2) << "\n";
    return 0;
  }
  std::printf("Communication per training step: %s on %s (%s order)\n", model.name.c_str(), cluster.name.c_str(),
              std::string(axis_order_name(order)).c_str());
  for (const AxisComm& a : plan.axes) {
    std::printf("\n%s: %lld groups of %lld, %s — %s per step, %.3f s per step\n",
                std::string(mesh_axis_name(a.axis)).c_str(), static_cast<long long>(a.groups),
                static_cast<long long>(a.group_size), std::string(path_tier_name(a.tier)).c_str(),
                gib_text(a.bytes_per_step).c_str(), a.time_per_step_s);
    for (const PlannedCollective& c : a.collectives)
      std::printf("  %-15s x%-8.0f %12.3f MiB  %9.1f us  %s\n", std::string(collective_op_name(c.op)).c_str(),
                  c.count_per_step, mib_from_bytes(c.bytes), us_from_s(c.time_s), c.what.c_str());
  }
  for (const auto& w : plan.warnings) std::printf("\nwarning: %s\n", w.message.c_str());
  return 0;
}

}  // namespace meshscope::cli
