#include "core/report/topology.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/comm/link_load.hpp"
#include "core/report/text.hpp"
#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

namespace {
std::string link_name(const Cluster& c, LinkId l) {
  if (!l.valid()) return "";
  const Link& link = c.link(l);
  return link.id.empty() ? c.device(link.a).id + "--" + c.device(link.b).id : link.id;
}
}  // namespace

json topo_report(const Cluster& c, const ClusterSummary& s) {
  return {{"name", c.name},
          {"generator", c.generator},
          {"gpus", s.gpus},
          {"nodes", s.nodes},
          {"racks", s.racks},
          {"domains",
           {{"nvlink", s.nvlink_domains},
            {"largest_nvlink_domain_gpus", s.largest_nvlink_domain},
            {"pcie_switches", s.pcie_switches},
            {"numa", s.numa_domains},
            {"nics", s.nics},
            {"leaf_switches", s.leaf_switches},
            {"spine_switches", s.spine_switches}}},
          {"devices", c.devices.size()},
          {"links", c.links.size()},
          {"bisection_bytes_per_s", s.bisection_bytes_per_s}};
}

json route_report(const Cluster& c, DeviceId from, DeviceId to, const Route& r) {
  json hops = json::array();
  DeviceId at = from;
  for (const LinkId l : r.links) {
    const Link& link = c.link(l);
    const DeviceId next = c.other_end(l, at);
    hops.push_back({{"link", link_name(c, l)},
                    {"from", c.device(at).id},
                    {"to", c.device(next).id},
                    {"kind", link_kind_name(link.kind)},
                    {"bandwidth_bytes_per_s", link.bandwidth_bytes_per_s},
                    {"latency_s", link.latency_s}});
    at = next;
  }
  return {{"from", c.device(from).id},
          {"to", c.device(to).id},
          {"reachable", r.reachable},
          {"tier", path_tier_name(r.tier)},
          {"bottleneck_bytes_per_s", r.links.empty() ? 0.0 : r.bottleneck_bytes_per_s},
          {"bottleneck_link", link_name(c, r.bottleneck)},
          {"latency_s", r.latency_s},
          {"hops", hops}};
}

json collective_report(const Cluster& c, const std::vector<CollectiveEstimate>& points) {
  json list = json::array();
  for (const auto& e : points)
    list.push_back({{"bytes", e.bytes},
                    {"time_s", e.time_s},
                    {"algbw_GBps", gb_per_s(e.algbw_bytes_per_s)},
                    {"busbw_GBps", gb_per_s(e.busbw_bytes_per_s)},
                    {"algorithm", algorithm_name(e.algorithm)},
                    {"protocol", protocol_name(e.protocol)},
                    {"bottleneck_link", link_name(c, e.bottleneck)}});
  json doc = {{"points", list}};
  if (!points.empty()) {
    doc["op"] = collective_op_name(points.front().op);
    doc["ranks"] = points.front().ranks;
    doc["nodes"] = points.front().nodes;
    doc["tier"] = tier_name(c, points.front().tier, points.front().bottleneck);
  }
  return doc;
}

json comm_report(const Cluster& c, const Placement& placement, const CommPlan& plan) {
  json axes = json::array();
  for (const AxisComm& a : plan.axes) {
    json collectives = json::array();
    for (const PlannedCollective& p : a.collectives)
      collectives.push_back({{"op", collective_op_name(p.op)},
                             {"what", p.what},
                             {"source", p.source},
                             {"count_per_step", p.count_per_step},
                             {"bytes", p.bytes},
                             {"time_s", p.time_s},
                             {"algorithm", algorithm_name(p.estimate.algorithm)},
                             {"busbw_GBps", gb_per_s(p.estimate.busbw_bytes_per_s)},
                             {"bytes_per_step", p.bytes_per_step()},
                             {"time_per_step_s", p.time_per_step_s()}});
    axes.push_back({{"axis", mesh_axis_name(a.axis)},
                    {"group_size", a.group_size},
                    {"groups", a.groups},
                    {"tier", path_tier_name(a.tier)},
                    {"collectives", collectives},
                    {"bytes_per_step", a.bytes_per_step},
                    {"time_per_step_s", a.time_per_step_s},
                    {"bottleneck_link", link_name(c, a.bottleneck)}});
  }
  json links = json::array();
  for (const LinkTraffic& t : plan.links) {
    const Link& l = c.link(t.link);
    links.push_back({{"id", link_name(c, t.link)},
                     {"a", c.device(l.a).id},
                     {"b", c.device(l.b).id},
                     {"kind", link_kind_name(l.kind)},
                     {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s},
                     {"bytes_per_step_a_to_b", t.bytes_per_step[0]},
                     {"bytes_per_step_b_to_a", t.bytes_per_step[1]},
                     {"flows_a_to_b", t.flows[0]},
                     {"flows_b_to_a", t.flows[1]}});
  }
  json warnings = json::array();
  for (const auto& w : plan.warnings)
    warnings.push_back({{"axis", mesh_axis_name(w.axis)},
                        {"ranks", w.ranks},
                        {"tier", path_tier_name(w.tier)},
                        {"message", w.message}});
  return {{"order", axis_order_name(placement.order)},
          {"ranks", placement.rank_to_gpu.size()},
          {"axes", axes},
          {"links", links},
          {"warnings", warnings}};
}

std::string topo_text(const Cluster& cluster, const ClusterSummary& s) {
  std::ostringstream out;
  printf_to(out, "Cluster %s\n  %lld GPUs in %lld nodes (%lld racks)\n", cluster.name.c_str(),
            static_cast<long long>(s.gpus), static_cast<long long>(s.nodes), static_cast<long long>(s.racks));
  printf_to(out, "  NVLink domains %lld (largest %lld GPUs), PCIe switches %lld, NUMA domains %lld, NICs %lld\n",
            static_cast<long long>(s.nvlink_domains), static_cast<long long>(s.largest_nvlink_domain),
            static_cast<long long>(s.pcie_switches), static_cast<long long>(s.numa_domains),
            static_cast<long long>(s.nics));
  printf_to(out, "  leaf switches %lld, spine switches %lld\n  bisection bandwidth %s per direction\n",
            static_cast<long long>(s.leaf_switches), static_cast<long long>(s.spine_switches),
            gbps_text(s.bisection_bytes_per_s).c_str());
  return out.str();
}

std::string route_text(const Cluster& cluster, DeviceId a, DeviceId b, const Route& r, const nlohmann::json& report) {
  std::ostringstream out;
  printf_to(out, "%s → %s: %s, bottleneck %s, latency %.2f µs\n", cluster.device(a).id.c_str(),
            cluster.device(b).id.c_str(), std::string(path_tier_name(r.tier)).c_str(),
            gbps_text(r.links.empty() ? 0 : r.bottleneck_bytes_per_s).c_str(), us_from_s(r.latency_s));
  for (const auto& hop : report["hops"])
    printf_to(out, "  %-24s → %-24s %-10s %s\n", hop["from"].get<std::string>().c_str(),
              hop["to"].get<std::string>().c_str(), hop["kind"].get<std::string>().c_str(),
              gbps_text(hop["bandwidth_bytes_per_s"].get<double>()).c_str());
  return out.str();
}

std::string collective_text(const Cluster& cluster, const Router& router, const std::vector<DeviceId>& gpus,
                            CollectiveOp op, const GroupPaths& group, const std::vector<CollectiveEstimate>& points,
                            const CommConstants& constants) {
  std::ostringstream out;
  const std::string tier = points.empty()
                               ? std::string(path_tier_name(group.worst_tier))
                               : std::string(tier_name(cluster, points.front().tier, points.front().bottleneck));
  printf_to(out, "# %s over %zu GPUs on %lld nodes (%s)\n", std::string(collective_op_name(op)).c_str(), gpus.size(),
            static_cast<long long>(group.nodes), tier.c_str());
  // The rings (channels) the group runs and the links they cross (core/comm/channels.hpp).
  const std::vector<RingChannel> channels = ring_channels(router, gpus);
  std::vector<int32_t> used;
  for (const RingChannel& channel : channels)
    for (const Route& r : channel.routes)
      for (const LinkId l : r.links) used.push_back(l.value);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const GroupBandwidth bandwidth = group_bandwidth(router, group, constants);
  printf_to(out, "# %zu ring channel%s over %zu links, ring bus bandwidth %.2f GB/s\n", channels.size(),
            channels.size() == 1 ? "" : "s", used.size(), gb_per_s(bandwidth.ring));
  printf_to(out, "#%14s %12s %10s %10s  algorithm\n", "size (B)", "time (us)", "algbw", "busbw");
  for (const auto& p : points)
    printf_to(out, "%15.0f %12.2f %10.2f %10.2f  %s/%s\n", p.bytes, us_from_s(p.time_s), gb_per_s(p.algbw_bytes_per_s),
              gb_per_s(p.busbw_bytes_per_s), std::string(algorithm_name(p.algorithm)).c_str(),
              std::string(protocol_name(p.protocol)).c_str());
  return out.str();
}

std::string comm_text(const std::string& model_name, const std::string& cluster_name, AxisOrder order,
                      const CommPlan& plan) {
  std::ostringstream out;
  printf_to(out, "Communication per training step: %s on %s (%s order)\n", model_name.c_str(), cluster_name.c_str(),
            std::string(axis_order_name(order)).c_str());
  for (const AxisComm& a : plan.axes) {
    printf_to(out, "\n%s: %lld groups of %lld, %s — %s per step, %.3f s per step\n",
              std::string(mesh_axis_name(a.axis)).c_str(), static_cast<long long>(a.groups),
              static_cast<long long>(a.group_size), std::string(path_tier_name(a.tier)).c_str(),
              gib_text(a.bytes_per_step).c_str(), a.time_per_step_s);
    for (const PlannedCollective& c : a.collectives)
      printf_to(out, "  %-15s x%-8.0f %12.3f MiB  %9.1f us  %s\n", std::string(collective_op_name(c.op)).c_str(),
                c.count_per_step, mib_from_bytes(c.bytes), us_from_s(c.time_s), c.what.c_str());
  }
  for (const auto& w : plan.warnings) printf_to(out, "\nwarning: %s\n", w.message.c_str());
  return out.str();
}

}  // namespace meshscope
