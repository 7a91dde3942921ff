#include "core/report/topology.hpp"

#include <nlohmann/json.hpp>

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

}  // namespace meshscope
