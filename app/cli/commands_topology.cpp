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
  std::cout << topo_text(*cluster, s);
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
  std::cout << route_text(*cluster, a, b, r, doc);
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
  std::cout << collective_text(*cluster, router, *gpus, *op, group, points, constants);
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
  std::cout << comm_text(model.name, cluster.name, order, plan);
  return 0;
}

}  // namespace meshscope::cli
