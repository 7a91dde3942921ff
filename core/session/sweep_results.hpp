#pragma once
// A sweep's JSON lines (`meshscope-cli sweep`, docs/sweeps.md) read back as values for the app's sweep view and
// any other reader: one point per line with its inputs and its best layout's figures, and the Pareto front of
// throughput against per-GPU throughput.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/keys/options.hpp"
#include "core/project/project.hpp"

namespace meshscope {

struct SweepResultPoint {
  int64_t index = 0;
  std::string id;
  std::string model;    // as the spec names it
  std::string cluster;  // the expanded generator string (with gpu= when the spec gave GPU types)
  KeyValues workload;   // the --train keys of the point
  std::string objective;
  std::string error;  // the search failed (no result)
  // The best layout (the result's first), when one fits.
  bool has_layout = false;
  KeyValues layout;          // its --layout keys (dp, tp, pp, ...)
  KeyValues layout_choices;  // what the search chose with it: recompute, zero, schedule, tp_comm_overlap (--train keys)
  int64_t gpus = 0;          // dp · tp · pp · cp of the best layout (0 when none fits)
  double step_time_s = 0, tokens_per_s_per_gpu = 0, mfu = 0, peak_memory_bytes = 0, cost_per_million_tokens = 0;
  int64_t valid = 0;                      // layouts that fit
  std::vector<std::string> top_rejected;  // the most frequent reasons, when none fits
  [[nodiscard]] double tokens_per_s() const { return tokens_per_s_per_gpu * static_cast<double>(gpus); }
  // The family the view draws as one series: the model, and the cluster generator without its size (nodes=).
  [[nodiscard]] std::string series() const;
};

struct SweepResults {
  std::vector<SweepResultPoint> points;  // in index order
  std::vector<std::string> warnings;     // e.g. a truncated last line (a run still writing, or killed)
};

// text: the whole file; origin names it in messages. Errors (parse_error) give the line: a line that is not a JSON
// object, or one without index/id/model/cluster. A last line without its newline that does not parse is a warning.
[[nodiscard]] Result<SweepResults> parse_sweep_results(std::string_view text, const std::string& origin);
[[nodiscard]] Result<SweepResults> load_sweep_results(const std::string& path);

// The project a point ran, on `base` (its name, calibration, axis order and view state are kept): the point's model
// (a preset by name, else the file inline), its cluster generator string, training on the default workload with the
// point's keys and its best layout with the search's choices. Errors: a model or cluster that does not resolve here.
[[nodiscard]] Result<Project> project_from_sweep_point(const Project& base, const SweepResultPoint& point);

// The points (of those with a layout) no other point of the same model and workload beats on both total
// throughput and per-GPU throughput — faster and more efficient at once; returned as indices into `points`,
// ordered by GPU count.
[[nodiscard]] std::vector<size_t> sweep_pareto_front(const std::vector<SweepResultPoint>& points);

}  // namespace meshscope
