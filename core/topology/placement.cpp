#include "core/topology/placement.hpp"

#include <algorithm>
#include <array>

#include "core/topology/group_paths.hpp"

namespace meshscope {

std::string_view mesh_axis_name(MeshAxis axis) {
  return enum_name(axis);
}

std::string_view axis_order_name(AxisOrder order) {
  return enum_name(order);
}

bool parse_axis_order(std::string_view name, AxisOrder& order) {
  const auto parsed = parse_enum<AxisOrder>(name);
  if (parsed) order = *parsed;
  return parsed.has_value();
}

const AxisGroups* Placement::axis(MeshAxis a) const {
  for (const auto& g : axes)
    if (g.axis == a) return &g;
  return nullptr;
}

std::vector<DeviceId> Placement::gpus_of(const std::vector<int32_t>& ranks) const {
  std::vector<DeviceId> gpus;
  gpus.reserve(ranks.size());
  for (const int32_t r : ranks) gpus.push_back(rank_to_gpu[static_cast<size_t>(r)]);
  return gpus;
}

namespace {

// Groups of one axis of a mixed-radix mesh: `sizes` innermost first; the groups of dimension
// `dim` are the rank sets that differ only in that coordinate. `offset`/`stride` embed the mesh
// in a larger rank space (expert meshes inside each pipeline stage).
std::vector<std::vector<int32_t>> mesh_groups(const std::vector<int64_t>& sizes, size_t dim, int64_t base = 0) {
  int64_t total = 1;
  for (const int64_t s : sizes) total *= s;
  int64_t inner = 1;
  for (size_t i = 0; i < dim; ++i) inner *= sizes[i];
  const int64_t size = sizes[dim];
  std::vector<std::vector<int32_t>> groups;
  groups.reserve(static_cast<size_t>(total / size));
  for (int64_t outer = 0; outer < total / (inner * size); ++outer)
    for (int64_t in = 0; in < inner; ++in) {
      std::vector<int32_t> g;
      g.reserve(static_cast<size_t>(size));
      for (int64_t k = 0; k < size; ++k) g.push_back(static_cast<int32_t>(base + in + inner * (k + size * outer)));
      groups.push_back(std::move(g));
    }
  return groups;
}

std::string describe(MeshAxis axis, PathTier tier, int64_t nodes) {
  const std::string name(mesh_axis_name(axis));
  switch (tier) {
    case PathTier::numa:
      return "a " + name + " ring goes through a CPU (no NVLink or PCIe switch path between its GPUs)";
    case PathTier::cross_socket:
      return "a " + name + " ring crosses CPU sockets";
    case PathTier::same_leaf:
    case PathTier::spine:
      return "a " + name + " group spans " + std::to_string(nodes) + " nodes: its collectives run over the network";
    default:
      return {};
  }
}

}  // namespace

Result<Placement> place_layout(const Layout& l, const Cluster& cluster, const Router& router, AxisOrder order) {
  const int64_t world = l.world_size();
  if (world > cluster.num_gpus())
    return make_error(
        ErrorCode::invalid_layout,
        "the layout needs " + std::to_string(world) + " GPUs but the cluster has " + std::to_string(cluster.num_gpus()),
        "--layout");
  Placement p;
  p.order = order;
  p.rank_to_gpu.assign(cluster.gpus.begin(), cluster.gpus.begin() + world);

  // Dense mesh, innermost first.
  std::vector<std::pair<MeshAxis, int64_t>> dims;
  const int64_t shard = l.shard_group();
  const int64_t replicate = l.dp / std::max<int64_t>(shard, 1);
  if (order == AxisOrder::megatron) {
    dims = {{MeshAxis::tp, l.tp}, {MeshAxis::cp, l.cp}, {MeshAxis::dp, l.dp}, {MeshAxis::pp, l.pp}};
  } else if (order == AxisOrder::tp_pp_dp) {
    dims = {{MeshAxis::tp, l.tp}, {MeshAxis::cp, l.cp}, {MeshAxis::pp, l.pp}, {MeshAxis::dp, l.dp}};
  } else {
    dims = {{MeshAxis::tp, l.tp},
            {MeshAxis::cp, l.cp},
            {MeshAxis::fsdp_shard, shard},
            {MeshAxis::fsdp_replicate, replicate},
            {MeshAxis::pp, l.pp}};
  }
  std::vector<int64_t> sizes;
  sizes.reserve(dims.size());
  for (const auto& [axis, size] : dims) sizes.push_back(size);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].second <= 1) continue;
    p.axes.push_back({dims[d].first, dims[d].second, mesh_groups(sizes, d)});
  }
  // torchtitan's DP is the union of shard and replicate; Megatron's FSDP shard group is the
  // inner part of DP (HSDP).
  if (order == AxisOrder::torchtitan && l.dp > 1) {
    p.axes.push_back({MeshAxis::dp, l.dp, mesh_groups({l.tp, l.cp, l.dp, l.pp}, 2)});
  } else if (order == AxisOrder::megatron && l.fsdp > 0 && l.fsdp < l.dp) {
    p.axes.push_back({MeshAxis::fsdp_shard, shard, mesh_groups({l.tp, l.cp, shard, replicate, l.pp}, 2)});
    p.axes.push_back({MeshAxis::fsdp_replicate, replicate, mesh_groups({l.tp, l.cp, shard, replicate, l.pp}, 3)});
  } else if (order == AxisOrder::tp_pp_dp && l.fsdp > 0 && l.fsdp < l.dp) {
    p.axes.push_back({MeshAxis::fsdp_shard, shard, mesh_groups({l.tp, l.cp, l.pp, shard, replicate}, 3)});
    p.axes.push_back({MeshAxis::fsdp_replicate, replicate, mesh_groups({l.tp, l.cp, l.pp, shard, replicate}, 4)});
  }
  // Expert mesh inside each stage's TP·CP·DP ranks: expert-TP innermost, then EP, expert-DP.
  if (l.ep > 1 || l.etp > 1) {
    const int64_t stage_ranks = l.tp * l.cp * l.dp;
    const int64_t edp = std::max<int64_t>(stage_ranks / std::max<int64_t>(l.ep * l.etp, 1), 1);
    const std::vector<int64_t> expert_sizes = {l.etp, l.ep, edp};
    const std::pair<MeshAxis, size_t> expert_axes[] = {{MeshAxis::etp, 0}, {MeshAxis::ep, 1}, {MeshAxis::edp, 2}};
    for (const auto& [axis, dim] : expert_axes) {
      if (expert_sizes[dim] <= 1) continue;
      AxisGroups groups{axis, expert_sizes[dim], {}};
      for (int64_t stage = 0; stage < l.pp; ++stage) {
        // Stage s owns the ranks whose PP coordinate is s, taken in (TP, CP, DP) order.
        for (auto& g : mesh_groups(expert_sizes, dim)) {
          for (int32_t& position : g) {
            const int64_t q = position;
            position = static_cast<int32_t>(mesh_rank(l, order, q % l.tp, (q / l.tp) % l.cp, q / (l.tp * l.cp), stage));
          }
          groups.groups.push_back(std::move(g));
        }
      }
      p.axes.push_back(std::move(groups));
    }
  }
  // Report groups that straddle a slow boundary: TP/EP/CP across nodes, any ring through a CPU.
  for (const AxisGroups& axis : p.axes) {
    const bool needs_fast = axis.axis == MeshAxis::tp || axis.axis == MeshAxis::etp || axis.axis == MeshAxis::cp ||
                            axis.axis == MeshAxis::ep;
    int reported = 0;
    for (const auto& ranks : axis.groups) {
      if (reported >= 4) break;
      const GroupPaths g = group_paths(router, p.gpus_of(ranks));
      const bool slow_inside = g.worst_tier == PathTier::numa || g.worst_tier == PathTier::cross_socket;
      // Across hosts over the network; hosts joined by NVLink (a GB200 NVL72 rack's trays) are one
      // NVLink domain and no slow boundary.
      const bool over_network = g.worst_tier == PathTier::same_leaf || g.worst_tier == PathTier::spine;
      const bool across_nodes = needs_fast && g.nodes > 1 && over_network;
      if (!slow_inside && !across_nodes) continue;
      p.warnings.push_back({axis.axis, ranks, g.worst_tier, describe(axis.axis, g.worst_tier, g.nodes)});
      ++reported;
    }
  }
  return p;
}

int64_t mesh_rank(const Layout& l, AxisOrder order, int64_t tp, int64_t cp, int64_t dp, int64_t pp) {
  if (order == AxisOrder::tp_pp_dp) return tp + l.tp * (cp + l.cp * (pp + l.pp * dp));
  return tp + l.tp * (cp + l.cp * (dp + l.dp * pp));
}

}  // namespace meshscope
