#pragma once
// Sweeps (docs/sweeps.md): the cross product of models × clusters × GPU types × workloads × objectives
// from a JSON spec, each point a full ranked layout search written as one JSON line. Points run
// concurrently and their lines are written in point order, so the output does not depend on the
// number of threads; a run resumes from its output file, and `shard` splits the points (Slurm).
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/search/search.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

struct SweepSpec {
  std::vector<std::string> models;        // preset names or model files
  std::vector<std::string> clusters;      // generator strings (or cluster files), ranges expanded
  std::vector<std::string> gpus;          // GPU ids applied as `gpu=` to every cluster; empty: the generator's own
  std::vector<nlohmann::json> workloads;  // objects of --train keys
  std::vector<RankObjective> objectives = {RankObjective::throughput};
  int64_t top = 3;
  int64_t refine = 0;
};

// Expands the ranges of a generator string, every key's value (after the first ':') that is
// `A..B` (A, A+1, ..., B), `A..B:+S` (step S), `A..B:xF` (A, A·F, ... up to B) or `a|b|c`; several
// ranged keys give their cross product, the leftmost key varying slowest. A string without ranges
// is returned as it is.
[[nodiscard]] Result<std::vector<std::string>> expand_cluster_ranges(std::string_view spec);

// Parses and checks a spec; errors name the field and its index (`clusters[2]`).
[[nodiscard]] Result<SweepSpec> parse_sweep_spec(const nlohmann::json& doc);
[[nodiscard]] Result<SweepSpec> parse_sweep_spec_text(std::string_view text);

struct SweepPoint {
  int64_t index = 0;   // position in the cross product (models slowest, objectives fastest)
  std::string id;      // 16 hex digits of a hash of its inputs: stable when the spec grows
  size_t model = 0;    // into SweepPlan::models
  size_t cluster = 0;  // into SweepPlan::clusters
  size_t workload = 0;
  RankObjective objective = RankObjective::throughput;
};

// A spec with its models and clusters resolved once (shared read-only by the points).
struct SweepPlan {
  SweepSpec spec;
  std::vector<ModelSpec> models;
  std::vector<std::string> cluster_names;  // the cluster string with its gpu= applied
  std::vector<std::shared_ptr<const Cluster>> clusters;
  std::vector<TrainingWorkload> workloads;
  std::vector<SweepPoint> points;
};
[[nodiscard]] Result<SweepPlan> plan_sweep(const SweepSpec& spec);

// One point: its inputs, the ranked layouts and rejection counts (as `rank --json`, without
// elapsed_s) under "result" or the search's error under "error", and the wall time as the top-level
// "elapsed_s", the only field that differs between two runs. One line, no newline.
[[nodiscard]] std::string run_sweep_point(const SweepPlan& plan, const SweepPoint& point);

// "llama3-8b dgx-h100:nodes=2 seq=4096,global_batch=64 throughput": a point for progress lines.
[[nodiscard]] std::string sweep_point_label(const SweepPlan& plan, const SweepPoint& point);

// The points of shard `index` of `count` (point index % count == index), in order.
[[nodiscard]] std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, int64_t index, int64_t count);

struct SweepProgress {
  int64_t done = 0;   // lines written in this run
  int64_t total = 0;  // points to run in this run
  const SweepPoint* point = nullptr;
  double elapsed_s = 0;
};
struct SweepRunOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
  std::function<void(const SweepProgress&)> progress;
};

// Runs `points` on a pool of threads and calls `write` with each line, in the order of `points`.
void run_sweep_points(const SweepPlan& plan, const std::vector<SweepPoint>& points, const SweepRunOptions& options,
                      const std::function<void(const std::string& line)>& write);

struct SweepFileSummary {
  int64_t skipped = 0;  // points already in the file
  int64_t ran = 0;
  bool dropped_partial_line = false;  // a truncated last line (a killed run) was removed
};
// Runs the points that `path` does not hold yet (by id), appending a line per point and flushing
// it; a truncated last line is dropped first. The file ends sorted by point index.
[[nodiscard]] Result<SweepFileSummary> run_sweep_to_file(const SweepPlan& plan, const std::vector<SweepPoint>& points,
                                                         const std::string& path, const SweepRunOptions& options);

// Joins sweep outputs: one line per id, ordered by point index. The same id with different
// results (elapsed_s aside), or two ids at one index, is an error.
[[nodiscard]] Result<std::vector<std::string>> merge_sweep_files(const std::vector<std::string>& paths);

// A line without its elapsed_s: what two runs of one point must agree on.
[[nodiscard]] nlohmann::json sweep_line_without_elapsed(const nlohmann::json& line);

}  // namespace meshscope
