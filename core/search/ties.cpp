#include "core/search/ties.hpp"

#include <algorithm>
#include <string>

#include "core/search/validation_bands.hpp"

namespace meshscope {

std::optional<double> validation_band(std::string_view regime) {
  for (const auto& band : validation_bands::kBands)
    if (band.regime == regime) return band.median_abs_error;
  return std::nullopt;
}

double step_uncertainty(const ModelSpec& m, const RankedLayout& r) {
  double band = validation_band(m.is_moe() ? "moe" : "dense").value_or(0.0);
  for (const std::string& gap : r.known_gaps) band = std::max(band, validation_band("gap:" + gap).value_or(0.0));
  return band;
}

void mark_ties(std::vector<RankedLayout>& layouts, RankObjective objective) {
  int group = 0;
  const RankedLayout* first = nullptr;
  for (RankedLayout& r : layouts) {
    const bool joins = objective != RankObjective::memory_headroom && first != nullptr &&
                       r.step_time_s <= first->step_time_s * (1.0 + first->uncertainty);
    if (!joins) {
      ++group;
      first = &r;
    }
    r.tie_group = group;
  }
}

int tie_group_size(const std::vector<RankedLayout>& layouts, int group) {
  return static_cast<int>(
      std::count_if(layouts.begin(), layouts.end(), [&](const RankedLayout& r) { return r.tie_group == group; }));
}

}  // namespace meshscope
