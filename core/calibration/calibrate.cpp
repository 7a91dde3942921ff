#include "core/calibration/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "core/topology/routing.hpp"

namespace meshscope {
namespace {

constexpr double kMinEfficiency = 0.05;
constexpr double kMaxEfficiency = 1.0;
constexpr double kMaxOverheadUs = 2000;  // a per-call cost beyond 2 ms is not a collective's

// One measured row, reduced to what the comparison needs.
struct Point {
  double bytes = 0;
  double time_s = 0;
  double busbw = 0;
};

// A log prepared for repeated evaluation: its op, group and rows.
struct PreparedLog {
  CollectiveOp op = CollectiveOp::all_reduce;
  GroupPaths group;
  std::vector<Point> points;
};

Result<PreparedLog> prepare_log(const NcclTestsLog& log, const Cluster& cluster, const Router& router,
                                const std::vector<DeviceId>& gpus) {
  if (!log.op)
    return make_error(ErrorCode::invalid_argument,
                      "the nccl-tests log does not say which collective it measured (name the file after it, e.g. "
                      "all_reduce_perf.log)");
  if (gpus.size() < 2)
    return make_error(ErrorCode::invalid_argument,
                      "a collective needs at least 2 GPUs; " + std::to_string(gpus.size()) + " given");
  std::set<int32_t> seen;
  for (const DeviceId gpu : gpus) {
    if (!gpu.valid() || gpu.index() >= cluster.devices.size() || cluster.device(gpu).kind != DeviceKind::gpu)
      return make_error(ErrorCode::invalid_argument,
                        "device " + std::to_string(gpu.value) + " is not a GPU of the cluster");
    if (!seen.insert(gpu.value).second)
      return make_error(ErrorCode::invalid_argument, "GPU " + cluster.device(gpu).id + " appears twice in the group");
  }
  if (log.ranks > 0 && log.ranks != static_cast<int64_t>(gpus.size()))
    return make_error(ErrorCode::invalid_argument, "the log was measured on " + std::to_string(log.ranks) +
                                                       " ranks but the group has " + std::to_string(gpus.size()) +
                                                       " GPUs");
  PreparedLog out;
  out.op = *log.op;
  out.group = group_paths(router, gpus);
  for (const auto& row : log.rows)
    if (row.bytes > 0 && row.out_of_place_time_s > 0 && std::isfinite(row.out_of_place_time_s))
      out.points.push_back({row.bytes, row.out_of_place_time_s, row.out_of_place_busbw_bytes_per_s});
  return out;
}

std::vector<CollectiveComparison> compare_prepared(const Router& router, const PreparedLog& log,
                                                   const CommConstants& constants, double min_bytes = 0) {
  const CollectiveModel model = prepare_collective(router, log.group, log.op, constants);
  std::vector<CollectiveComparison> out;
  for (const Point& p : log.points) {
    if (p.bytes < min_bytes) continue;
    const CollectiveEstimate e = evaluate_collective(model, p.bytes, constants);
    out.push_back({p.bytes, p.time_s, e.time_s, p.busbw, e.busbw_bytes_per_s});
  }
  return out;
}

struct ErrorSummary {
  double mean_abs = 0;
  int64_t rows = 0;
};

ErrorSummary summarise(const Router& router, const std::vector<PreparedLog>& logs, const CommConstants& constants,
                       double min_bytes) {
  ErrorSummary s;
  for (const auto& log : logs)
    for (const auto& c : compare_prepared(router, log, constants, min_bytes)) {
      s.mean_abs += std::abs(c.error());
      ++s.rows;
    }
  if (s.rows > 0) s.mean_abs /= static_cast<double>(s.rows);
  return s;
}

// The same over the latency-bound rows (bytes ≤ max_bytes).
ErrorSummary summarise_small(const Router& router, const std::vector<PreparedLog>& logs, const CommConstants& constants,
                             double max_bytes) {
  ErrorSummary s;
  for (const auto& log : logs)
    for (const auto& c : compare_prepared(router, log, constants, 0)) {
      if (c.bytes > max_bytes || !(c.measured_time_s > 0)) continue;
      s.mean_abs += std::abs(c.error());
      ++s.rows;
    }
  if (s.rows > 0) s.mean_abs /= static_cast<double>(s.rows);
  return s;
}

// The minimum of `objective` over [lo, hi], starting from `start`: a grid of `step` (the
// objectives are minima over algorithms and protocols, so not smooth everywhere), then
// golden-section search in the cells around the best point, one evaluation per iteration.
template <class Objective>
double minimise_on_grid(Objective objective, double lo, double hi, double step, double start) {
  double best = start, best_value = objective(start);
  for (double x = lo; x <= hi + 1e-9; x += step) {
    const double value = objective(x);
    if (value < best_value) {
      best_value = value;
      best = x;
    }
  }
  double a = std::max(lo, best - step), b = std::min(hi, best + step);
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - ratio * (b - a), x2 = a + ratio * (b - a);
  double f1 = objective(x1), f2 = objective(x2);
  for (int i = 0; i < 40 && b - a > step * 1e-3; ++i) {
    if (f1 < f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - ratio * (b - a);
      f1 = objective(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + ratio * (b - a);
      f2 = objective(x2);
    }
  }
  const double candidate = (a + b) / 2;
  return objective(candidate) < best_value ? candidate : best;
}

// The per-call overhead of the LL protocol (the floor of the latency-bound rows, bytes ≤
// kLatencyBoundBytes) that minimises their mean |relative time error|; rounded to 0.1 µs.
double fit_ll_overhead(const Router& router, const std::vector<PreparedLog>& logs, CommConstants constants) {
  auto objective = [&](double us) {
    constants.call_overhead_us[0] = us;
    return summarise_small(router, logs, constants, kLatencyBoundBytes).mean_abs;
  };
  return std::round(minimise_on_grid(objective, 0, kMaxOverheadUs, 1.0, 0) * 10) / 10;
}

// The per-call start-up of the pipelined protocols (LL128 and Simple, one value) that minimises
// the mean |relative time error| of the rows of at least min_bytes; rounded to 0.1 µs.
double fit_pipelined_overhead(const Router& router, const std::vector<PreparedLog>& logs, CommConstants constants,
                              double min_bytes) {
  auto objective = [&](double us) {
    constants.call_overhead_us[1] = constants.call_overhead_us[2] = us;
    return summarise(router, logs, constants, min_bytes).mean_abs;
  };
  return std::round(minimise_on_grid(objective, 0, kMaxOverheadUs, 2.0, 0) * 10) / 10;
}

double round_to(double value, double step) {
  return std::round(value / step) * step;
}

// The efficiency of `kind` in [kMinEfficiency, kMaxEfficiency] that minimises the mean |relative
// time error| (the reported error; the mean square would let the mid-size rows, slower than NCCL's
// latency tables say, pull the efficiency down and spoil the large ones):
// a grid of 0.01 (the objective is a minimum over algorithms and protocols, so not smooth
// everywhere), then golden-section search around the best grid point.
double fit_efficiency(const Router& router, const std::vector<PreparedLog>& logs, CommConstants constants,
                      LinkKind kind, double min_bytes) {
  auto objective = [&](double efficiency) {
    constants.link_efficiency[static_cast<size_t>(kind)] = efficiency;
    return summarise(router, logs, constants, min_bytes).mean_abs;
  };
  const double best = minimise_on_grid(objective, kMinEfficiency, kMaxEfficiency, 0.01, constants.efficiency(kind));
  return std::clamp(round_to(best, 0.001), kMinEfficiency, kMaxEfficiency);
}

std::string format_efficiency(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  return buffer;
}

}  // namespace

Result<std::vector<CollectiveComparison>> compare_nccl_tests(const NcclTestsLog& log, const Cluster& cluster,
                                                             const std::vector<DeviceId>& gpus,
                                                             const CommConstants& constants) {
  const Router router(cluster);
  MS_TRY(prepared, prepare_log(log, cluster, router, gpus));
  return compare_prepared(router, prepared, constants);
}

Result<CalibrationResult> calibrate_from_nccl_tests(
    const std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>>& logs, const Cluster& cluster,
    CommConstants start, double min_bytes) {
  if (logs.empty()) return make_error(ErrorCode::invalid_argument, "no nccl-tests log to calibrate from");
  const Router router(cluster);
  std::vector<PreparedLog> prepared;
  for (size_t i = 0; i < logs.size(); ++i) {
    auto p = prepare_log(logs[i].first, cluster, router, logs[i].second);
    if (!p) {
      Error error = p.error();
      if (error.location.empty()) error.location = "log " + std::to_string(i + 1);
      return tl::unexpected(error);
    }
    prepared.push_back(std::move(*p));
  }

  // The link kinds that bound the rows used, most rows first.
  std::map<LinkKind, int64_t> bottlenecks;
  for (const auto& log : prepared) {
    const CollectiveModel model = prepare_collective(router, log.group, log.op, start);
    for (const Point& p : log.points) {
      if (p.bytes < min_bytes) continue;
      const CollectiveEstimate e = evaluate_collective(model, p.bytes, start);
      if (e.bottleneck.valid()) ++bottlenecks[cluster.link(e.bottleneck).kind];
    }
  }
  const ErrorSummary before = summarise(router, prepared, start, min_bytes);
  if (before.rows == 0)
    return make_error(
        ErrorCode::invalid_argument,
        "no measured row of at least " + std::to_string(static_cast<int64_t>(min_bytes)) + " bytes to calibrate from");
  if (bottlenecks.empty())
    return make_error(ErrorCode::invalid_argument, "no link limits the measured groups (every rank on one GPU?)");
  std::vector<std::pair<LinkKind, int64_t>> kinds(bottlenecks.begin(), bottlenecks.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  CalibrationResult result;
  result.constants = start;
  // One pass per kind; with several kinds (e.g. NVLink inside a node and the network across), a
  // second pass lets each settle given the other.
  const int passes = kinds.size() > 1 ? 3 : 1;
  for (int pass = 0; pass < passes; ++pass)
    for (const auto& [kind, count] : kinds)
      result.constants.link_efficiency[static_cast<size_t>(kind)] =
          fit_efficiency(router, prepared, result.constants, kind, min_bytes);

  // The fixed costs, once the bandwidths are set: the LL floor from the latency-bound rows, the
  // pipelined protocols' start-up from the rows used, then the bandwidths again (the start-up no
  // longer stands for part of them) and the start-up once more.
  const ErrorSummary small_before = summarise_small(router, prepared, result.constants, kLatencyBoundBytes);
  if (small_before.rows >= 3) {
    result.constants.call_overhead_us[0] = fit_ll_overhead(router, prepared, result.constants);
    result.latency_error_before = small_before.mean_abs;
    result.latency_error_after = summarise_small(router, prepared, result.constants, kLatencyBoundBytes).mean_abs;
    result.latency_rows = small_before.rows;
  }
  for (int pass = 0; pass < 2; ++pass) {
    const double overhead = fit_pipelined_overhead(router, prepared, result.constants, min_bytes);
    result.constants.call_overhead_us[1] = result.constants.call_overhead_us[2] = overhead;
    for (const auto& [kind, count] : kinds)
      result.constants.link_efficiency[static_cast<size_t>(kind)] =
          fit_efficiency(router, prepared, result.constants, kind, min_bytes);
  }
  result.overhead_ll_us = result.constants.call_overhead_us[0];
  result.overhead_pipelined_us = result.constants.call_overhead_us[2];
  for (const auto& [kind, count] : kinds) {
    const double was = start.efficiency(kind), now = result.constants.efficiency(kind);
    const std::string name(link_kind_name(kind));
    result.comm_keys.emplace_back(name + "_efficiency", format_efficiency(now));
    result.changes.push_back(name + "_efficiency " + format_efficiency(was) + " -> " + format_efficiency(now) +
                             " (bottleneck of " + std::to_string(count) + " rows)");
  }
  auto overhead_change = [&](const char* key, double was, double now, const std::string& detail) {
    char value[32];
    std::snprintf(value, sizeof value, "%.1f", now);
    result.comm_keys.emplace_back(key, value);
    char line[200];
    std::snprintf(line, sizeof line, "%s %.1f -> %s%s", key, was, value, detail.c_str());
    result.changes.emplace_back(line);
  };
  overhead_change("overhead_ll128_us", start.call_overhead_us[1], result.overhead_pipelined_us, "");
  overhead_change("overhead_simple_us", start.call_overhead_us[2], result.overhead_pipelined_us, "");
  if (result.latency_rows > 0) {
    char detail[120];
    std::snprintf(detail, sizeof detail, " (%lld latency-bound rows: error %.1f %% -> %.1f %%)",
                  static_cast<long long>(result.latency_rows), 100 * result.latency_error_before,
                  100 * result.latency_error_after);
    overhead_change("overhead_ll_us", start.call_overhead_us[0], result.overhead_ll_us, detail);
  }
  const ErrorSummary after = summarise(router, prepared, result.constants, min_bytes);
  result.error_before = before.mean_abs;
  result.error_after = after.mean_abs;
  result.rows = before.rows;
  return result;
}

}  // namespace meshscope
