#pragma once
// Stable JSON documents of the topology CLI subcommands: topo, route, collective, comm (docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/comm/comm_plan.hpp"
#include "core/topology/collective.hpp"
#include "core/topology/summary.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json topo_report(const Cluster& cluster, const ClusterSummary& summary);
[[nodiscard]] nlohmann::json route_report(const Cluster& cluster, DeviceId from, DeviceId to, const Route& route);
[[nodiscard]] nlohmann::json collective_report(const Cluster& cluster, const std::vector<CollectiveEstimate>& points);
[[nodiscard]] nlohmann::json comm_report(const Cluster& cluster, const Placement& placement, const CommPlan& plan);

}  // namespace meshscope
