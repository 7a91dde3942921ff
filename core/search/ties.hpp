#pragma once
// Ties in the ranked list: a layout's predicted step is uncertain by the validation set's error for
// its regime (docs/validation.md: the median |error| of the dense rows, of the MoE rows, and of the
// rows of each known gap it falls into, core/search/validation_bands.hpp), so layouts whose steps
// lie within that band of a better one's are ties the model cannot order.
#include <optional>
#include <string_view>
#include <vector>

#include "core/model/model.hpp"
#include "core/search/search.hpp"

namespace meshscope {

// The median |error| of the validation rows of `regime` ("dense", "moe", "gap:<id>"); nullopt
// when the set has no such rows.
[[nodiscard]] std::optional<double> validation_band(std::string_view regime);

// The relative uncertainty of a ranked layout's step: the band of its model's regime (dense or
// MoE), or of a known gap it falls into when that is wider.
[[nodiscard]] double step_uncertainty(const ModelSpec& model, const RankedLayout& layout);

// Numbers the tie groups of layouts ranked best first by step time (throughput or cost per
// token): a layout joins the group of the one before it when its step is within the group's
// first layout's uncertainty of that layout's step, t ≤ t_first · (1 + u_first); otherwise it
// starts the next group. Under the memory objective every layout is a group of its own.
void mark_ties(std::vector<RankedLayout>& layouts, RankObjective objective = RankObjective::throughput);

// How many of the layouts are in tie group `group` (a group of one is no tie).
[[nodiscard]] int tie_group_size(const std::vector<RankedLayout>& layouts, int group);

}  // namespace meshscope
