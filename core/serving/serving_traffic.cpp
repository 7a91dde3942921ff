#include "core/serving/serving_traffic.hpp"

#include <algorithm>

#include "core/hardware/dtype.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

namespace {

// The GPUs of an axis's groups, in ring order.
std::vector<std::vector<DeviceId>> axis_gpus(const Placement& placement, MeshAxis axis) {
  std::vector<std::vector<DeviceId>> out;
  if (const AxisGroups* groups = placement.axis(axis))
    for (const auto& ranks : groups->groups) out.push_back(placement.gpus_of(ranks));
  return out;
}

PlannedCollective collective(CollectiveOp op, const char* what, double count, double bytes) {
  PlannedCollective c;
  c.op = op;
  c.what = what;
  c.count_per_step = count;
  c.bytes = bytes;
  return c;
}

}  // namespace

Result<ServingTrafficMap> serving_traffic(const ModelSpec& model, const ServingWorkload& workload,
                                          const ServingLayout& layout, double running, const Cluster& cluster,
                                          const Router& router) {
  ServingTrafficMap out;
  out.mesh = layout.mesh(model);
  out.mesh.dp *= layout.replicas;
  MS_TRY(placement, place_layout(out.mesh, cluster, router, AxisOrder::megatron));
  out.placement = std::move(placement);

  const double a = dtype_bytes(workload.activation_dtype);
  const double tokens = std::max(1.0, running / static_cast<double>(std::max<int64_t>(1, layout.dp)));
  const double hidden = static_cast<double>(model.hidden_size);
  const std::vector<int64_t> stage_layers = layers_per_stage(model, out.mesh);
  const double layers = static_cast<double>(*std::max_element(stage_layers.begin(), stage_layers.end()));
  double moe_layers = 0;
  const std::vector<int64_t> first = first_layer_of_stage(model, out.mesh);
  for (int64_t layer = first.front(); layer < first.front() + stage_layers.front(); ++layer)
    if (model.is_moe_layer(layer)) ++moe_layers;

  const auto add = [&](MeshAxis axis, int64_t size, PlannedCollective c) {
    AxisComm comm;
    comm.axis = axis;
    comm.group_size = size;
    comm.collectives.push_back(std::move(c));
    out.loads.push_back(axis_link_traffic(comm, router, axis_gpus(out.placement, axis)));
  };
  if (out.mesh.tp > 1)
    add(MeshAxis::tp, out.mesh.tp,
        collective(CollectiveOp::all_reduce, "TP all-reduce (attention and MLP outputs)", 2 * layers,
                   tokens * hidden * a));
  if (out.mesh.pp > 1)
    add(MeshAxis::pp, out.mesh.pp,
        collective(CollectiveOp::send_recv, "pipeline send/recv of activations", 1, tokens * hidden * a));
  if (model.is_moe() && out.mesh.ep > 1)
    add(MeshAxis::ep, out.mesh.ep,
        collective(CollectiveOp::all_to_all, "EP dispatch and combine", 2 * moe_layers,
                   tokens * static_cast<double>(model.moe.top_k) * hidden * a));
  return out;
}

}  // namespace meshscope
