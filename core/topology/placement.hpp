#pragma once
// Placing a layout's mesh on the cluster: rank → GPU, and every process group of every axis.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/enum_names.hpp"
#include "core/base/result.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/routing.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

enum class MeshAxis { tp, cp, dp, pp, ep, etp, edp, fsdp_shard, fsdp_replicate };

template <>
struct EnumNames<MeshAxis> {
  static constexpr std::array<std::pair<MeshAxis, std::string_view>, 9> table{
      {{MeshAxis::tp, "tp"},
       {MeshAxis::cp, "cp"},
       {MeshAxis::dp, "dp"},
       {MeshAxis::pp, "pp"},
       {MeshAxis::ep, "ep"},
       {MeshAxis::etp, "etp"},
       {MeshAxis::edp, "edp"},
       {MeshAxis::fsdp_shard, "fsdp_shard"},
       {MeshAxis::fsdp_replicate, "fsdp_replicate"}}};
};
[[nodiscard]] std::string_view mesh_axis_name(MeshAxis axis);  // "tp", "cp", "dp", ...

// Axis order, innermost (fastest-varying rank) first.
//   megatron:   TP, CP, DP, PP (Megatron-Core parallel_state default order "tp-cp-ep-dp-pp");
//               experts: expert-TP, EP, expert-DP within each stage's TP·CP·DP ranks.
//   torchtitan: TP, CP, DP-shard, DP-replicate, PP (torchtitan ParallelDims mesh
//               ["pp", "dp_replicate", "dp_shard", "cp", "tp"], outermost first).
//   tp-pp-dp:   TP, CP, PP, DP (Megatron-LM --use-tp-pp-dp-mapping: order "tp-cp-ep-pp-dp"):
//               pipeline neighbours sit close (inside a node when TP·CP·PP fits), data-parallel
//               replicas far apart; experts as megatron, within each stage's ranks.
enum class AxisOrder { megatron, torchtitan, tp_pp_dp };

template <>
struct EnumNames<AxisOrder> {
  static constexpr std::array<std::pair<AxisOrder, std::string_view>, 3> table{
      {{AxisOrder::megatron, "megatron"}, {AxisOrder::torchtitan, "torchtitan"}, {AxisOrder::tp_pp_dp, "tp-pp-dp"}}};
};
[[nodiscard]] std::string_view axis_order_name(AxisOrder order);
[[nodiscard]] bool parse_axis_order(std::string_view name, AxisOrder& order);

struct AxisGroups {
  MeshAxis axis = MeshAxis::tp;
  int64_t size = 1;
  std::vector<std::vector<int32_t>> groups;  // ranks; each group in ring order
};

// A group that crosses a boundary slower than its axis deserves.
struct PlacementWarning {
  MeshAxis axis = MeshAxis::tp;
  std::vector<int32_t> ranks;
  PathTier tier = PathTier::nvlink;
  std::string message;
};

struct Placement {
  AxisOrder order = AxisOrder::megatron;
  std::vector<DeviceId> rank_to_gpu;  // rank r runs on cluster.gpus[...] = rank_to_gpu[r]
  std::vector<AxisGroups> axes;       // every axis with size > 1 (tp, cp, dp, pp, ep, ...)
  std::vector<PlacementWarning> warnings;

  [[nodiscard]] const AxisGroups* axis(MeshAxis axis) const;
  [[nodiscard]] std::vector<DeviceId> gpus_of(const std::vector<int32_t>& ranks) const;
};

// Ranks are laid onto the cluster's GPUs in order (node by node, local index within a node).
// Fails when the cluster has fewer GPUs than the layout needs.
[[nodiscard]] Result<Placement> place_layout(const Layout& layout, const Cluster& cluster, const Router& router,
                                             AxisOrder order = AxisOrder::megatron);

// The rank with mesh coordinates (tp, cp, dp, pp) under `order` (torchtitan's DP-shard and
// DP-replicate together form dp, shard innermost).
[[nodiscard]] int64_t mesh_rank(const Layout& layout, AxisOrder order, int64_t tp, int64_t cp, int64_t dp, int64_t pp);

}  // namespace meshscope
