// The α–β (Hockney) fit of an nccl-tests sweep: time = α + bytes / β.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>

#include "core/importers/nccl_tests.hpp"

namespace meshscope {

Result<AlphaBetaFit> fit_alpha_beta(const std::vector<NcclTestsRow>& rows, double min_bytes) {
  std::vector<double> sizes_bytes;
  std::vector<double> times_s;
  for (const auto& row : rows) {
    // Empty messages are left out: they move no data and NCCL may skip them outright (1.3 us in the
    // superbench all-to-all log against 89 us for 32 bytes), so they time a launch, not a transfer.
    if (row.bytes > 0 && row.bytes >= min_bytes && std::isfinite(row.bytes) && std::isfinite(row.out_of_place_time_s) &&
        row.out_of_place_time_s > 0) {
      sizes_bytes.push_back(row.bytes);
      times_s.push_back(row.out_of_place_time_s);
    }
  }
  const auto [smallest, largest] = std::minmax_element(sizes_bytes.begin(), sizes_bytes.end());
  if (sizes_bytes.size() < 2 || *smallest == *largest) {
    return make_error(ErrorCode::invalid_argument,
                      "an alpha-beta fit needs at least two non-empty message sizes with a positive time (" +
                          std::to_string(sizes_bytes.size()) + " rows at or above " + std::to_string(min_bytes) +
                          " bytes)");
  }
  // Minimise sum(((alpha + bytes * s) - t) / t)^2: each row divided by its time. Sizes are scaled
  // by the largest so that both columns are of order 1/t.
  const double scale_bytes = *largest;
  const auto n = static_cast<Eigen::Index>(sizes_bytes.size());
  Eigen::MatrixXd design(n, 2);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    design(i, 0) = 1.0 / times_s[k];
    design(i, 1) = sizes_bytes[k] / scale_bytes / times_s[k];
  }
  const Eigen::Vector2d coefficients = design.colPivHouseholderQr().solve(ones);
  const double seconds_per_byte = coefficients(1) / scale_bytes;
  if (!std::isfinite(seconds_per_byte) || seconds_per_byte <= 0 || !std::isfinite(coefficients(0))) {
    return make_error(ErrorCode::invalid_argument,
                      "the time does not grow with the message size over the selected rows; no bandwidth fits");
  }
  const Eigen::VectorXd relative_residuals = design * coefficients - ones;
  // Weighted R²: weights 1/t², so the weighted mean time is sum(1/t) / sum(1/t²).
  double sum_inverse = 0;
  double sum_inverse_squared = 0;
  for (const double t : times_s) {
    sum_inverse += 1.0 / t;
    sum_inverse_squared += 1.0 / (t * t);
  }
  const double mean_time_s = sum_inverse / sum_inverse_squared;
  double total_sum_of_squares = 0;
  for (const double t : times_s) total_sum_of_squares += ((t - mean_time_s) / t) * ((t - mean_time_s) / t);
  AlphaBetaFit fit;
  fit.alpha_s = coefficients(0);
  fit.beta_bytes_per_s = 1.0 / seconds_per_byte;
  fit.r_squared = total_sum_of_squares > 0 ? 1.0 - relative_residuals.squaredNorm() / total_sum_of_squares : 1.0;
  fit.points = static_cast<int64_t>(n);
  return fit;
}

}  // namespace meshscope
