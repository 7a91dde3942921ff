#pragma once
// Calibration of the collective model (core/comm/collective.hpp) from measured nccl-tests logs:
// the prediction against every measured size, and a fit of the bandwidth efficiency of the link
// kind that limits the measured groups (docs/conventions.md, Collectives).
//
// The fit changes one constant per bottleneck link kind (never a per-size correction): it
// minimises the mean |relative error| of the time over the rows of at least `min_bytes`,
// where the efficiency decides the time; smaller rows are latency-bound and left to NCCL's
// latency tables.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/base/result.hpp"
#include "core/comm/collective.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/keys/options.hpp"
#include "core/topology/cluster.hpp"

namespace meshscope {

// One measured size against the model. Times in seconds, bandwidths in bytes/s.
struct CollectiveComparison {
  double bytes = 0;
  double measured_time_s = 0;
  double predicted_time_s = 0;
  double measured_busbw = 0;
  double predicted_busbw = 0;
  // Relative error of the predicted time: predicted / measured − 1 (positive: the model is slower).
  [[nodiscard]] double error() const { return predicted_time_s / measured_time_s - 1; }
};

// The prediction for every out-of-place row of the log with bytes > 0 and a measured time, on the
// group `gpus` (in rank order). Errors (invalid_argument): the log names no collective, fewer than
// two GPUs, a GPU that is not one of the cluster's, a repeated GPU, or a log whose rank count
// differs from the group's.
[[nodiscard]] Result<std::vector<CollectiveComparison>> compare_nccl_tests(const NcclTestsLog& log,
                                                                           const Cluster& cluster,
                                                                           const std::vector<DeviceId>& gpus,
                                                                           const CommConstants& constants);

struct CalibrationResult {
  CommConstants constants;           // `start` with the fitted efficiencies
  std::vector<std::string> changes;  // "nvlink efficiency 0.780 → 0.742 (bottleneck of 12 rows)"
  KeyValues comm_keys;               // the fitted constants as --comm keys: {"nvlink_efficiency", "0.742"}
  double error_before = 0;           // mean |relative time error| over the rows used, with `start`
  double error_after = 0;            // the same with `constants`
  int64_t rows = 0;                  // rows used (bytes ≥ min_bytes, every log)
  // The fixed costs per call (CommConstants::call_overhead_us): the LL floor fitted to the
  // latency-bound rows (bytes ≤ kLatencyBoundBytes) when there are at least three of them, and the
  // pipelined protocols' start-up (LL128 and Simple) fitted with the efficiencies to the rows used.
  double overhead_ll_us = 0;
  double overhead_pipelined_us = 0;
  double latency_error_before = 0;  // mean |relative time error| over the latency-bound rows
  double latency_error_after = 0;
  int64_t latency_rows = 0;
};
// nccl-tests rows up to this size are latency-bound on NVLink and InfiniBand clusters (the flat
// part of every shared log's time column).
inline constexpr double kLatencyBoundBytes = 64.0 * 1024;

// Fits, for every link kind that bounds the bandwidth of the rows of at least `min_bytes` (the
// CollectiveEstimate's bottleneck with `start`), that kind's efficiency in [0.05, 1] by
// a 0.01 grid and golden-section search on the mean |relative error| of the time over all those rows (kinds
// in turn when there are several). Efficiencies are rounded to 0.001 so that the printed --comm keys
// reproduce error_after. Errors: no log, a log `compare_nccl_tests` rejects, or no row of at least
// min_bytes.
[[nodiscard]] Result<CalibrationResult> calibrate_from_nccl_tests(
    const std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>>& logs, const Cluster& cluster,
    CommConstants start, double min_bytes);

}  // namespace meshscope
