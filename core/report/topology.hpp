#pragma once
// Stable JSON documents of the topology CLI subcommands: topo, route, collective, comm (docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/comm/collective.hpp"
#include "core/comm/comm_plan.hpp"
#include "core/topology/summary.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json topo_report(const Cluster& cluster, const ClusterSummary& summary);
[[nodiscard]] nlohmann::json route_report(const Cluster& cluster, DeviceId from, DeviceId to, const Route& route);
[[nodiscard]] nlohmann::json collective_report(const Cluster& cluster, const std::vector<CollectiveEstimate>& points);
[[nodiscard]] nlohmann::json comm_report(const Cluster& cluster, const Placement& placement, const CommPlan& plan);

// The texts of topo, route, collective and comm without --json. `report` is route_report's document of the same
// route; collective_text lists the ring channels the group runs over `router`.
[[nodiscard]] std::string topo_text(const Cluster& cluster, const ClusterSummary& summary);
[[nodiscard]] std::string route_text(const Cluster& cluster, DeviceId from, DeviceId to, const Route& route,
                                     const nlohmann::json& report);
[[nodiscard]] std::string collective_text(const Cluster& cluster, const Router& router,
                                          const std::vector<DeviceId>& gpus, CollectiveOp op, const GroupPaths& group,
                                          const std::vector<CollectiveEstimate>& points,
                                          const CommConstants& constants);
[[nodiscard]] std::string comm_text(const std::string& model_name, const std::string& cluster_name, AxisOrder order,
                                    const CommPlan& plan);
}  // namespace meshscope
