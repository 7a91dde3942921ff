#pragma once
// A profiler (Kineto) trace against the prediction for the layout it ran: step time, compute, exposed
// communication in total and per mesh axis, idle against the pipeline bubble, and the bus bandwidth of every
// collective against the α–β model's for the same message size on the same group (core/comm/collective.hpp,
// as compare_nccl_tests does for nccl-tests logs); plus a hint for the GEMM efficiency that would make the
// predicted compute match the measured one.
//
// Measured quantities (core/importers/kineto.hpp, KinetoStepBreakdown), per ProfilerStep of each rank, then averaged
// over the rank's steps; a row shows the mean over ranks and the smallest and largest rank mean:
//   step time            the CPU span of ProfilerStep#N (what the training loop waited for)
//   compute              |union of compute kernels|                  vs forward + backward + recompute + optimizer
//   exposed comm         |communication kernels \ compute kernels|   vs TP + CP + EP exposed + PP p2p + DP exposed
//   idle / bubble        GPU idle inside the step's GPU span         vs the schedule's bubble
//   comm <axis>          Σ kernel time of the axis' collectives / steps  vs AxisComm::time_per_step_s
// The importer sums collectives over the whole trace, so per-step collective time is that sum divided by the
// number of ProfilerSteps: exact when the profile holds only whole steps, which torch.profiler's schedule gives.
//
// Process groups → mesh axes (the mapping rule). The layout is placed on the cluster (place_layout, with the axis
// order of the options); each axis' groups have a size and a stride between consecutive ranks (Megatron order:
// TP stride 1, CP stride TP, DP stride TP·CP, PP stride TP·CP·DP). A trace's process group (distributedInfo.pg_config,
// read by classify_process_groups) maps to the axis with the same size and stride — so a group of contiguous ranks
// of size TP is tp, a group of stride TP·CP and size DP is dp. The whole world maps to the one axis as large as the
// world, if there is one ("world" otherwise). A group without a rank list maps by its size alone when exactly one
// axis has that size. When two axes have the same size and stride (EP = TP with expert-TP 1), the first of tp, cp,
// ep, etp, dp, edp, fsdp-shard, fsdp-replicate, pp wins and the reason says so. Anything else is reported as
// "unmapped pg <name>" with its measured time and no prediction.
// Collectives carry the name of their process group (or only a group size): they follow their group's mapping.
//
// Exposed communication per axis: the trace gives only the total per step; when more than one axis communicates it
// is apportioned by each axis' share of communication kernel time (the row's note says so).
//
// Relative error everywhere: predicted / measured − 1 (positive: the model predicts more time, or more bandwidth),
// the convention of CollectiveComparison (core/calibration/calibrate.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/comm/collective.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "core/workload/layout.hpp"

namespace meshscope {

enum class TraceRowKind { time, bandwidth };

struct TraceCompareRow {
  std::string quantity;  // "step time", "compute", "exposed comm", "exposed comm dp", "comm dp", "idle / bubble",
                         // "all-reduce dp busbw", "comm unmapped pg 3"
  TraceRowKind kind = TraceRowKind::time;     // time: seconds per step; bandwidth: bytes/s
  double measured = 0;                        // mean over ranks
  double measured_min = 0, measured_max = 0;  // smallest and largest rank
  int64_t ranks = 0;                          // ranks that measured it
  std::optional<double> predicted;            // nullopt: the model has no counterpart
  std::string note;                           // how the numbers were obtained, where not obvious
  // predicted / measured − 1; nullopt without a prediction or with nothing measured.
  [[nodiscard]] std::optional<double> error() const {
    if (!predicted || !(measured > 0)) return std::nullopt;
    return *predicted / measured - 1;
  }
};

// One process group of the trace and the axis it maps to.
struct ProcessGroupMatch {
  std::string name;  // pg_name
  std::string description;
  int64_t size = 0;
  int64_t stride = 0;
  std::optional<MeshAxis> axis;
  std::string label;   // "tp", "dp", "world", "self", "unmapped pg 3"
  std::string reason;  // "size 2, stride 1 = the dp groups (size 2, stride 1)"
};

// One collective (op × group) measured on the trace and predicted on the group it maps to.
struct TraceCollectiveComparison {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string group;  // the row label's group: an axis name, "world" or "unmapped pg <name>"
  int64_t group_size = 0;
  double count_per_step = 0;               // mean over ranks
  double mean_message_bytes = 0;           // nccl-tests convention, over the kernels whose size is known
  double measured_busbw = 0;               // mean over ranks of the importer's busbw
  std::optional<double> predicted_busbw;   // the group alone, at mean_message_bytes
  std::optional<double> predicted_time_s;  // one call
};

struct TraceComparison {
  int64_t world_size = 0;  // the layout's, equal to the trace's when the trace says
  int64_t ranks = 0;       // ranks of the trace that have ProfilerSteps
  int64_t steps = 0;       // ProfilerSteps averaged over, all ranks together
  std::vector<TraceCompareRow> rows;
  std::vector<TraceCollectiveComparison> collectives;
  std::vector<ProcessGroupMatch> process_groups;
  std::vector<std::string> notes;  // assumptions and what could not be compared
  [[nodiscard]] const TraceCompareRow* row(const std::string& quantity) const;
};

struct TraceCompareOptions {
  AxisOrder order = AxisOrder::megatron;
  CommConstants constants = CommConstants::defaults();
};

// The predicted counterpart of the trace's "compute": forward + backward + recompute + optimizer of the busiest stage.
[[nodiscard]] double predicted_compute_s(const StepEstimate& estimate);

// The comparison. `estimate` must be estimate_step's for `layout` on `cluster`. Errors (invalid_argument, located by
// the trace file): no trace; a trace whose world size (distributedInfo.world_size) differs from the layout's
// dp·tp·pp·cp, or traces of different world sizes; a rank outside the layout; no ProfilerStep on any rank; no GPU
// activity (a CPU-only trace); a layout that does not fit the cluster.
[[nodiscard]] Result<TraceComparison> compare_trace(const KinetoRunAnalysis& run, const StepEstimate& estimate,
                                                    const Layout& layout, const Cluster& cluster,
                                                    const TraceCompareOptions& options = {});

// The GEMM efficiency (ComputeEfficiency::gemm) that makes the predicted compute equal `measured_compute_s`. Only the
// GEMMs scale with it (attention and memory-bound kernels keep their own efficiencies), so the fit iterates
// gemm ← gemm · predicted / measured, re-estimating the step each time, until the compute error is under 0.1 % or
// the efficiency stops moving; it stays within [0.05, 1] and is rounded to 0.001 so that the printed
// --efficiency key reproduces compute_error_after.
struct GemmEfficiencyHint {
  double before = 0, after = 0;                              // ComputeEfficiency::gemm
  double compute_error_before = 0, compute_error_after = 0;  // predicted / measured − 1
  bool at_limit = false;       // the efficiency hit 0.05 or 1: the compute cannot be matched by GEMMs alone
  std::string efficiency_key;  // "gemm=0.412", for --efficiency
};
// The fixed point both fits share (this one on compute, log_compare.hpp's on the whole step): `predicted(gemm)` is
// the quantity the model gives for a GEMM efficiency, `measured` what it must match, starting at the workload's GEMM
// share on the cluster's GPU (or options.efficiency.gemm), at most `max_iterations` re-estimates.
struct GemmFit {
  double before = 0, after = 0;
  double error_before = 0, error_after = 0;  // predicted / measured − 1
  bool at_limit = false;
  std::string efficiency_key;
};
[[nodiscard]] Result<GemmFit> fit_gemm_efficiency(double measured, const TrainingWorkload& workload,
                                                  const Cluster& cluster, const EstimateOptions& options,
                                                  int max_iterations,
                                                  const std::function<Result<double>(double gemm)>& predicted);
[[nodiscard]] Result<GemmEfficiencyHint> gemm_efficiency_hint(double measured_compute_s, const ModelSpec& model,
                                                              const TrainingWorkload& workload, const Layout& layout,
                                                              const Cluster& cluster, const Router& router,
                                                              const EstimateOptions& options);

}  // namespace meshscope
