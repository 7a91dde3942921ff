#pragma once
// Communication per mesh axis for one training step: which collectives each axis issues, how
// many, how many bytes, over which links, and how long they take when every group of the axis
// runs at once (links shared between groups are accounted).
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/collective.hpp"
#include "core/model/model.hpp"
#include "core/topology/placement.hpp"
#include "core/workload/layout.hpp"
#include "core/workload/workload.hpp"

namespace meshscope {

struct PlannedCollective {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string what;             // "gradient all-reduce (bucketed)"
  std::string source;           // the formula's source
  double count_per_step = 0;    // calls per rank per optimizer step
  double bytes = 0;             // per call, nccl-tests convention (per-rank buffer; all-gather: output)
  bool one_kernel = false;      // an all-to-all of DeepEP/HybridEP: every peer from one kernel (CommConstants)
  double time_s = 0;            // per call, slowest group, all groups concurrent
  CollectiveEstimate estimate;  // of the slowest group
  [[nodiscard]] double bytes_per_step() const { return count_per_step * bytes; }
  [[nodiscard]] double time_per_step_s() const { return count_per_step * time_s; }
};

struct AxisComm {
  MeshAxis axis = MeshAxis::tp;
  int64_t group_size = 1;
  int64_t groups = 0;
  PathTier tier = PathTier::same_gpu;  // slowest tier any group of the axis crosses
  std::vector<PlannedCollective> collectives;
  double bytes_per_step = 0;
  double time_per_step_s = 0;
  LinkId bottleneck;  // of the slowest collective
};

struct LinkTraffic {
  LinkId link;
  double bytes_per_step[2] = {0, 0};  // a→b, b→a, summed over axes
  int32_t flows[2] = {0, 0};          // concurrent ring flows (one per NCCL channel) of the busiest axis
};

struct CommPlan {
  std::vector<AxisComm> axes;
  std::vector<LinkTraffic> links;  // links that carry traffic
  std::vector<PlacementWarning> warnings;
};

struct CommOptions {
  // Megatron DDP bucket: max(40,000,000, 1,000,000 × DP) parameters (megatron/core/distributed
  // DistributedDataParallelConfig.bucket_size default); PyTorch DDP uses 25 MiB.
  double bucket_params = 40e6;
  CommConstants constants = CommConstants::defaults();
};

// All-to-all rows an MoE layer's dispatcher sends per token over an EP group of `ep` ranks (and
// its combine receives back): `alltoall` one per selected expert (top_k); `flex` (DeepEP /
// HybridEP) one per rank holding any of them. With the top-k drawn among E experts spread evenly
// over the ranks (Megatron's load-balanced routing), a rank holds none of a token's experts with
// probability C(E − E/ep, k) / C(E, k), so the expected ranks are ep · (1 − C(E − E/ep, k) / C(E, k)).
[[nodiscard]] double dispatched_rows_per_token(const ModelSpec& model, int64_t ep, MoeDispatcher dispatcher);

[[nodiscard]] CommPlan plan_communication(const ModelSpec& model, const TrainingWorkload& workload,
                                          const Layout& layout, const Cluster& cluster, const Router& router,
                                          const Placement& placement, const CommOptions& options = {});

}  // namespace meshscope
