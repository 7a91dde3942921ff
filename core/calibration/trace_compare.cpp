#include "core/calibration/trace_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "core/estimate/gemm_rate.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/routing.hpp"

namespace meshscope {
namespace {

constexpr double kMicro = 1e-6;  // Kineto times are microseconds (kineto.hpp)
constexpr double kMinGemmEfficiency = 0.05;
constexpr double kMaxGemmEfficiency = 1.0;

// Axes in the order that wins when two of them have the same groups (the header's rule).
constexpr MeshAxis kAxisPriority[] = {MeshAxis::tp, MeshAxis::cp,  MeshAxis::ep,         MeshAxis::etp,
                                      MeshAxis::dp, MeshAxis::edp, MeshAxis::fsdp_shard, MeshAxis::fsdp_replicate,
                                      MeshAxis::pp};

// The row label of an axis: the breakdown of StepEstimate has one exposed time per tp, cp, ep, pp and dp, so the
// expert and sharded-data axes are reported under those.
std::string axis_label(MeshAxis axis) {
  switch (axis) {
    case MeshAxis::tp:
    case MeshAxis::etp:
      return "tp";
    case MeshAxis::cp:
      return "cp";
    case MeshAxis::ep:
      return "ep";
    case MeshAxis::pp:
      return "pp";
    case MeshAxis::dp:
    case MeshAxis::edp:
    case MeshAxis::fsdp_shard:
    case MeshAxis::fsdp_replicate:
      return "dp";
  }
  return "dp";
}

std::optional<double> predicted_exposed_s(const StepBreakdown& b, const std::string& label) {
  if (label == "tp") return b.tp_exposed_s;
  if (label == "cp") return b.cp_exposed_s;
  if (label == "ep") return b.ep_exposed_s;
  if (label == "pp") return b.pp_p2p_s;
  if (label == "dp") return b.dp_exposed_s;
  return std::nullopt;
}

// Size and stride of an axis' groups in the placement (stride 0: irregular).
struct AxisShape {
  MeshAxis axis = MeshAxis::tp;
  int64_t size = 0;
  int64_t stride = 0;
};

int64_t group_stride(std::vector<int32_t> ranks) {
  if (ranks.size() < 2) return 0;
  std::sort(ranks.begin(), ranks.end());
  const int64_t stride = ranks[1] - ranks[0];
  for (size_t i = 2; i < ranks.size(); ++i)
    if (ranks[i] - ranks[i - 1] != stride) return 0;
  return stride;
}

std::vector<AxisShape> axis_shapes(const Placement& placement) {
  std::vector<AxisShape> shapes;
  for (const MeshAxis axis : kAxisPriority) {
    const AxisGroups* groups = placement.axis(axis);
    if (!groups || groups->size < 2 || groups->groups.empty()) continue;
    int64_t stride = group_stride(groups->groups.front());
    for (const auto& g : groups->groups)
      if (group_stride(g) != stride) stride = 0;
    shapes.push_back({axis, groups->size, stride});
  }
  return shapes;
}

std::string shape_text(int64_t size, int64_t stride) {
  return "size " + std::to_string(size) + (stride > 0 ? ", stride " + std::to_string(stride) : "");
}

// The header's mapping rule for one group: size and stride (stride 0 when the trace lists no ranks).
ProcessGroupMatch map_group(const std::string& name, const std::string& description, int64_t size, int64_t stride,
                            bool is_world, int64_t world_size, const std::vector<AxisShape>& shapes) {
  ProcessGroupMatch m;
  m.name = name;
  m.description = description;
  m.size = size;
  m.stride = stride;
  const std::string unmapped = "unmapped pg " + (name.empty() ? std::string("(unnamed)") : name);
  if (size == 1) {
    m.label = "self";
    m.reason = "a group of one rank: no communication";
    return m;
  }
  std::vector<const AxisShape*> same;
  for (const AxisShape& s : shapes)
    if (s.size == size && (stride == 0 || s.stride == stride)) same.push_back(&s);
  if (stride > 0 && !same.empty()) {
    m.axis = same.front()->axis;
    m.label = axis_label(*m.axis);
    m.reason = shape_text(size, stride) + " = the " + std::string(mesh_axis_name(*m.axis)) + " groups";
    if (same.size() > 1)
      m.reason += " (also the " + std::string(mesh_axis_name(same[1]->axis)) + " groups; " +
                  std::string(mesh_axis_name(*m.axis)) + " comes first)";
    return m;
  }
  if (stride == 0 && same.size() == 1) {
    m.axis = same.front()->axis;
    m.label = axis_label(*m.axis);
    m.reason = "no rank list; size " + std::to_string(size) + " is only the " + std::string(mesh_axis_name(*m.axis)) +
               " axis'";
    return m;
  }
  if (is_world || size == world_size) {
    m.label = "world";
    m.reason = "all " + std::to_string(world_size) + " ranks; no axis of the layout spans the world";
    return m;
  }
  m.label = unmapped;
  m.reason = shape_text(size, stride) + ": no axis of the layout has " +
             (stride == 0 && same.size() > 1 ? "only this size" : "these groups");
  return m;
}

struct Accumulator {
  std::vector<double> values;  // one per rank
  void add(double v) { values.push_back(v); }
  [[nodiscard]] double mean() const {
    double sum = 0;
    for (const double v : values) sum += v;
    return values.empty() ? 0 : sum / static_cast<double>(values.size());
  }
};

TraceCompareRow make_row(std::string quantity, TraceRowKind kind, const Accumulator& measured,
                         std::optional<double> predicted, std::string note = {}) {
  TraceCompareRow row;
  row.quantity = std::move(quantity);
  row.kind = kind;
  row.measured = measured.mean();
  if (!measured.values.empty()) {
    row.measured_min = *std::min_element(measured.values.begin(), measured.values.end());
    row.measured_max = *std::max_element(measured.values.begin(), measured.values.end());
  }
  row.ranks = static_cast<int64_t>(measured.values.size());
  row.predicted = predicted;
  row.note = std::move(note);
  return row;
}

struct CollectiveAccumulator {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::string label;
  std::optional<MeshAxis> axis;
  int64_t group_size = 0;
  int64_t first_rank = 0;
  Accumulator count_per_step, busbw;
  double bytes = 0;
  int64_t count_with_bytes = 0;
};

std::string bytes_text(double bytes) {
  char buffer[48];
  if (bytes >= 1024.0 * 1024)
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", bytes / (1024.0 * 1024));
  else if (bytes >= 1024.0)
    std::snprintf(buffer, sizeof buffer, "%.1f KiB", bytes / 1024.0);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
  return buffer;
}

std::string layout_text(const Layout& l) {
  return "dp " + std::to_string(l.dp) + " × tp " + std::to_string(l.tp) + " × pp " + std::to_string(l.pp) + " × cp " +
         std::to_string(l.cp) + " = " + std::to_string(l.world_size());
}

}  // namespace

const TraceCompareRow* TraceComparison::row(const std::string& quantity) const {
  for (const auto& r : rows)
    if (r.quantity == quantity) return &r;
  return nullptr;
}

double predicted_compute_s(const StepEstimate& estimate) {
  const StepBreakdown& b = estimate.breakdown;
  return b.forward_s + b.backward_s + b.recompute_s + b.optimizer_s;
}

namespace {

// The trace must be of this layout's job: one world size, the layout's, and every rank inside it.
// A trace that does not record its world size is taken as the layout's (a note says so).
Result<void> check_trace_world(const KinetoRunAnalysis& run, const Layout& layout, std::vector<std::string>& notes) {
  const int64_t world = layout.world_size();
  std::optional<int64_t> trace_world;
  for (const KinetoRankAnalysis& r : run.ranks) {
    if (r.world_size <= 0) continue;
    if (trace_world && *trace_world != r.world_size)
      return make_error(ErrorCode::invalid_argument,
                        "this trace ran on " + std::to_string(r.world_size) + " ranks but another one of the list on " +
                            std::to_string(*trace_world) + ": the traces are not of one job",
                        r.origin);
    trace_world = r.world_size;
    if (r.world_size != world)
      return make_error(ErrorCode::invalid_argument,
                        "the trace ran on " + std::to_string(r.world_size) +
                            " ranks (distributedInfo.world_size) but the layout has " + layout_text(layout) +
                            " ranks; give the layout the job ran with",
                        r.origin);
  }
  for (const KinetoRankAnalysis& r : run.ranks)
    if (r.rank < 0 || r.rank >= world)
      return make_error(
          ErrorCode::invalid_argument,
          "rank " + std::to_string(r.rank) + " is outside the layout's " + std::to_string(world) + " ranks", r.origin);
  if (!trace_world)
    notes.push_back("the trace does not record its world size (no distributedInfo); assumed the layout's " +
                    std::to_string(world) + " ranks");
  return {};
}

// The ranks to compare: those with ProfilerSteps (the others left out, with a note), at least one
// of them with GPU activity.
Result<std::vector<const KinetoRankAnalysis*>> ranks_with_steps(const KinetoRunAnalysis& run,
                                                                std::vector<std::string>& notes) {
  std::vector<const KinetoRankAnalysis*> ranks;
  for (const KinetoRankAnalysis& r : run.ranks)
    if (!r.steps.empty()) ranks.push_back(&r);
  if (ranks.empty())
    return make_error(ErrorCode::invalid_argument,
                      "the trace has no ProfilerStep: nothing to compare with a training step (profile with "
                      "torch.profiler.schedule and call prof.step() every iteration)",
                      run.ranks.front().origin);
  if (std::none_of(ranks.begin(), ranks.end(), [](const KinetoRankAnalysis* r) { return r->temporal.has_value(); }))
    return make_error(ErrorCode::invalid_argument,
                      "the trace has no GPU activity (a CPU-only trace): nothing to compare with the GPU prediction",
                      ranks.front()->origin);
  for (const KinetoRankAnalysis& r : run.ranks)
    if (r.steps.empty()) notes.push_back(r.origin + ": no ProfilerStep; left out");
  return ranks;
}

// The process groups of every rank, by name (the same pg_config on every rank of a job), mapped to the axes.
std::map<std::string, ProcessGroupMatch> map_process_groups(const std::vector<const KinetoRankAnalysis*>& ranks,
                                                            int64_t world, const std::vector<AxisShape>& shapes) {
  std::map<std::string, ProcessGroupMatch> groups;
  for (const KinetoRankAnalysis* r : ranks)
    for (const ProcessGroupAxis& g : r->process_groups)
      if (!groups.count(g.name))
        groups[g.name] =
            map_group(g.name, g.description, g.size, g.stride, g.shape == ProcessGroupShape::world, world, shapes);
  return groups;
}

// The mapped process groups and the layout's axes, which a collective's group is looked up in.
struct GroupMapping {
  const std::map<std::string, ProcessGroupMatch>& groups;
  int64_t world = 0;
  const std::vector<AxisShape>& shapes;

  // A collective's group: its pg by name, else its size alone.
  [[nodiscard]] ProcessGroupMatch of(const KinetoCollectiveSummary& c) const {
    if (!c.process_group.empty()) {
      const auto it = groups.find(c.process_group);
      if (it != groups.end()) return it->second;
    }
    ProcessGroupMatch m = map_group(c.process_group, {}, c.group_size, 0, false, world, shapes);
    if (c.group_size_assumed) m.reason += " (the trace gives no group: its size is taken as the world's)";
    return m;
  }
};

// What the trace measured, per rank (each a mean over the rank's steps): the step's parts, the
// communication kernels' time and exposed share by group label, and every collective by op and label.
struct TraceMeasurements {
  Accumulator step, compute, exposed, idle;
  std::map<std::string, Accumulator> comm_by_label, exposed_by_label;
  std::map<std::pair<int, std::string>, CollectiveAccumulator> collectives;
  std::set<std::string> labels_with_comm;
  int64_t steps = 0;  // ProfilerSteps, all ranks together
};

// One rank's steps and collectives into `measured`; a note for each collective without a process group.
void measure_rank(const KinetoRankAnalysis& r, const GroupMapping& mapping, TraceMeasurements& measured,
                  std::vector<std::string>& notes) {
  const double steps = static_cast<double>(r.steps.size());
  measured.steps += static_cast<int64_t>(r.steps.size());
  double step_s = 0, compute_s = 0, exposed_s = 0, idle_s = 0;
  for (const KinetoStepBreakdown& s : r.steps) {
    step_s += s.duration_us * kMicro;
    compute_s += s.compute_us * kMicro;
    exposed_s += s.exposed_communication_us * kMicro;
    idle_s += s.idle_us * kMicro;
  }
  measured.step.add(step_s / steps);
  measured.compute.add(compute_s / steps);
  measured.exposed.add(exposed_s / steps);
  measured.idle.add(idle_s / steps);

  std::map<std::string, double> kernel_s;  // per step, by label
  double kernel_total_s = 0;
  for (const KinetoCollectiveSummary& c : r.collectives) {
    const ProcessGroupMatch g = mapping.of(c);
    const double per_step_s = c.time_us * kMicro / steps;
    kernel_s[g.label] += per_step_s;
    kernel_total_s += per_step_s;
    if (!c.op) continue;
    CollectiveAccumulator& acc = measured.collectives[{static_cast<int>(*c.op), g.label}];
    if (acc.count_per_step.values.empty()) {
      if (c.group_size_assumed)
        notes.push_back(std::string(collective_op_name(*c.op)) + ": the trace names no process group; taken as all " +
                        std::to_string(mapping.world) + " ranks (" + g.label + ")");
      acc.op = *c.op;
      acc.label = g.label;
      acc.axis = g.axis;
      acc.group_size = c.group_size;
      acc.first_rank = r.rank;
    }
    acc.count_per_step.add(static_cast<double>(c.count) / steps);
    if (c.busbw_bytes_per_s > 0 && std::isfinite(c.busbw_bytes_per_s)) acc.busbw.add(c.busbw_bytes_per_s);
    acc.bytes += c.bytes;
    acc.count_with_bytes += c.count_with_bytes;
  }
  for (const auto& [label, seconds] : kernel_s) {
    measured.comm_by_label[label].add(seconds);
    measured.labels_with_comm.insert(label);
    // The trace's exposed time is one total: shared out by kernel time when several groups communicate.
    measured.exposed_by_label[label].add(kernel_total_s > 0 ? exposed_s / steps * seconds / kernel_total_s : 0);
  }
}

// The time rows: step, compute, exposed communication in total and per label (every label that
// communicates in the trace or in the plan), communication kernel time per label, idle.
void add_time_rows(TraceMeasurements& measured, const StepEstimate& estimate, std::vector<TraceCompareRow>& rows) {
  const StepBreakdown& b = estimate.breakdown;
  rows.push_back(
      make_row("step time", TraceRowKind::time, measured.step, estimate.step_time_s, "CPU span of ProfilerStep#N"));
  rows.push_back(make_row("compute", TraceRowKind::time, measured.compute, predicted_compute_s(estimate),
                          "union of compute kernels; predicted: forward + backward + recompute + optimizer"));
  rows.push_back(make_row("exposed comm", TraceRowKind::time, measured.exposed,
                          b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s + b.dp_exposed_s,
                          "communication kernels not overlapped by compute"));

  // Per axis: every label that communicates in the trace or in the plan.
  std::map<std::string, double> planned_comm_s;
  for (const AxisComm& axis : estimate.comm.axes) planned_comm_s[axis_label(axis.axis)] += axis.time_per_step_s;
  std::set<std::string> labels = measured.labels_with_comm;
  for (const auto& [label, seconds] : planned_comm_s)
    if (seconds > 0) labels.insert(label);
  const bool apportioned = measured.labels_with_comm.size() > 1;
  for (const std::string& label : labels) {
    const bool axis = predicted_exposed_s(b, label).has_value();
    const Accumulator& measured_exposed = measured.exposed_by_label[label];
    rows.push_back(make_row("exposed comm " + label, TraceRowKind::time, measured_exposed,
                            predicted_exposed_s(b, label),
                            apportioned ? "the trace's exposed total shared out by kernel time" : ""));
    const auto planned = planned_comm_s.find(label);
    rows.push_back(
        make_row("comm " + label, TraceRowKind::time, measured.comm_by_label[label],
                 axis ? std::optional<double>(planned == planned_comm_s.end() ? 0 : planned->second) : std::nullopt,
                 "kernel time per step, overlapped or not"));
  }
  rows.push_back(make_row("idle / bubble", TraceRowKind::time, measured.idle, b.bubble_s,
                          "GPU idle inside the step's GPU span; predicted: the pipeline bubble only"));
}

// One collective (op × group) against the α–β model on the group it maps to, at its mean message
// size: its comparison, and its busbw row in `out` (or a note when the trace has no sizes).
TraceCollectiveComparison compare_collective(const CollectiveAccumulator& acc, const Placement& placement,
                                             const Router& router, int64_t world, const TraceCompareOptions& options,
                                             TraceComparison& out) {
  TraceCollectiveComparison c;
  c.op = acc.op;
  c.group = acc.label;
  c.group_size = acc.group_size;
  c.count_per_step = acc.count_per_step.mean();
  c.mean_message_bytes = acc.count_with_bytes > 0 ? acc.bytes / static_cast<double>(acc.count_with_bytes) : 0;
  c.measured_busbw = acc.busbw.mean();
  const std::string name = std::string(collective_op_name(acc.op)) + " " + acc.label;
  std::vector<int32_t> members;
  if (acc.axis) {
    if (const AxisGroups* axis_groups = placement.axis(*acc.axis))
      for (const auto& g : axis_groups->groups)
        if (std::find(g.begin(), g.end(), static_cast<int32_t>(acc.first_rank)) != g.end()) members = g;
  } else if (acc.label == "world") {
    for (int64_t r = 0; r < world; ++r) members.push_back(static_cast<int32_t>(r));
  }
  if (members.size() >= 2 && c.mean_message_bytes > 0) {
    const CollectiveEstimate e = estimate_collective(router, group_paths(router, placement.gpus_of(members)), acc.op,
                                                     c.mean_message_bytes, options.constants);
    c.predicted_busbw = e.busbw_bytes_per_s;
    c.predicted_time_s = e.time_s;
  }
  if (acc.busbw.values.empty()) {
    out.notes.push_back(name + ": the trace records no message sizes; no bandwidth to compare");
  } else {
    out.rows.push_back(make_row(name + " busbw", TraceRowKind::bandwidth, acc.busbw, c.predicted_busbw,
                                "mean message " + bytes_text(c.mean_message_bytes) +
                                    "; measured kernel time includes waiting for the slowest peer"));
  }
  return c;
}

}  // namespace

Result<TraceComparison> compare_trace(const KinetoRunAnalysis& run, const StepEstimate& estimate, const Layout& layout,
                                      const Cluster& cluster, const TraceCompareOptions& options) {
  if (run.ranks.empty()) return make_error(ErrorCode::invalid_argument, "no trace to compare");
  const int64_t world = layout.world_size();
  TraceComparison out;
  out.world_size = world;
  if (auto checked = check_trace_world(run, layout, out.notes); !checked) return tl::unexpected(checked.error());
  MS_TRY(ranks, ranks_with_steps(run, out.notes));
  out.ranks = static_cast<int64_t>(ranks.size());

  const Router router(cluster);
  MS_TRY(placement, place_layout(layout, cluster, router, options.order));
  const std::vector<AxisShape> shapes = axis_shapes(placement);
  const std::map<std::string, ProcessGroupMatch> groups = map_process_groups(ranks, world, shapes);
  for (const auto& [name, match] : groups) out.process_groups.push_back(match);

  TraceMeasurements measured;
  const GroupMapping mapping{groups, world, shapes};
  for (const KinetoRankAnalysis* r : ranks) measure_rank(*r, mapping, measured, out.notes);
  out.steps = measured.steps;

  add_time_rows(measured, estimate, out.rows);
  for (auto& [key, acc] : measured.collectives)
    out.collectives.push_back(compare_collective(acc, placement, router, world, options, out));
  if (estimate.breakdown.bubble_s == 0 && measured.idle.mean() > 0)
    out.notes.emplace_back(
        "the model predicts no idle time outside the pipeline bubble: data loading, launch gaps and host "
        "synchronisation show up as measured idle only");
  return out;
}

Result<GemmFit> fit_gemm_efficiency(double measured, const TrainingWorkload& workload, const Cluster& cluster,
                                    const EstimateOptions& options, int max_iterations,
                                    const std::function<Result<double>(double gemm)>& predicted) {
  GemmFit fit;
  // Unset, the GPU's measured share (core/estimate/gemm_rate.hpp) is where the calibration starts.
  const auto gpu = find_gpu(cluster.gpus.empty() ? "h100-sxm" : cluster.device(cluster.gpus.front()).gpu_model);
  fit.before = options.efficiency.gemm.value_or(
      gpu ? gemm_share_of_peak(*gpu, workload.compute_dtype, options.efficiency) : kUnmeasuredGemmShare);
  MS_TRY(start, predicted(fit.before));
  fit.error_before = start / measured - 1;
  // Fixed point of gemm ← gemm · predicted / measured.
  double gemm = fit.before, value = start;
  for (int i = 0; i < max_iterations && std::abs(value / measured - 1) > 1e-3; ++i) {
    const double next = std::clamp(gemm * value / measured, kMinGemmEfficiency, kMaxGemmEfficiency);
    if (std::abs(next - gemm) < 1e-6) break;
    gemm = next;
    MS_TRY(again, predicted(gemm));
    value = again;
  }
  fit.after = std::clamp(std::round(gemm * 1000) / 1000, kMinGemmEfficiency, kMaxGemmEfficiency);
  MS_TRY(after, predicted(fit.after));
  fit.error_after = after / measured - 1;
  fit.at_limit = fit.after <= kMinGemmEfficiency || fit.after >= kMaxGemmEfficiency;
  char key[32];
  std::snprintf(key, sizeof key, "gemm=%.3f", fit.after);
  fit.efficiency_key = key;
  return fit;
}

Result<GemmEfficiencyHint> gemm_efficiency_hint(double measured_compute_s, const ModelSpec& model,
                                                const TrainingWorkload& workload, const Layout& layout,
                                                const Cluster& cluster, const Router& router,
                                                const EstimateOptions& options) {
  if (!(measured_compute_s > 0))
    return make_error(ErrorCode::invalid_argument, "no measured compute time to calibrate the GEMM efficiency from");
  EstimateOptions o = options;
  // Only the GEMM share of compute scales with the efficiency.
  MS_TRY(fit,
         fit_gemm_efficiency(measured_compute_s, workload, cluster, options, 30, [&](double gemm) -> Result<double> {
           o.efficiency.gemm = gemm;
           MS_TRY(e, estimate_step(model, workload, layout, cluster, router, o));
           return predicted_compute_s(e);
         }));
  return GemmEfficiencyHint{fit.before,      fit.after,    fit.error_before,
                            fit.error_after, fit.at_limit, std::move(fit.efficiency_key)};
}

}  // namespace meshscope
