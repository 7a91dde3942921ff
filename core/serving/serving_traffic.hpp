#pragma once
// The link traffic of one decode iteration of a serving deployment, for the communication map:
// every instance's tensor-parallel all-reduces, pipeline send/recv and expert-parallel
// dispatch/combine, routed over the cluster as NCCL rings (core/comm/link_load.hpp).
#include <vector>

#include "core/base/result.hpp"
#include "core/comm/link_load.hpp"
#include "core/model/model.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct ServingTrafficMap {
  Layout mesh;                         // the whole deployment as a mesh: an instance's mesh with dp × replicas
  Placement placement;                 // of that mesh on the cluster (Megatron order)
  std::vector<AxisLinkTraffic> loads;  // tp, pp, ep: bytes per decode iteration on every link
};

// `running`: sequences decoding at once per instance (ServingPoint::running). Per decode
// iteration and instance, with T = running ÷ attention-dp tokens per attention rank and
// a = the activation dtype's bytes:
//   TP: 2 all-reduces per layer of its stage, T × hidden × a each (Megatron row-parallel attention
//       output and MLP output, Shoeybi et al. 2019 §3);
//   PP: one send/recv of T × hidden × a per stage boundary;
//   EP: a dispatch and a combine all-to-all per MoE layer of T × top_k × hidden × a (each token to
//       its top-k experts and back; DeepSeek-V3 report §3.4 / DeepEP).
[[nodiscard]] Result<ServingTrafficMap> serving_traffic(const ModelSpec& model, const ServingWorkload& workload,
                                                        const ServingLayout& layout, double running,
                                                        const Cluster& cluster, const Router& router);

}  // namespace meshscope
