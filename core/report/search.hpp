#pragma once
// Stable JSON documents of `meshscope-cli rank` (the ranked training layouts) and `schedule` (one pipeline
// schedule's events; docs/cli.md).
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/schedule/schedule.hpp"
#include "core/search/search.hpp"

namespace meshscope {

// A ranked layout's keys: the --layout keys and the choices the search made (recompute, zero, schedule, order,
// tp_comm_overlap), as `rank --json` prints each layout's "layout".
[[nodiscard]] nlohmann::json ranked_layout_keys_json(const RankedLayout& r);
[[nodiscard]] nlohmann::json ranked_layouts_report(const SearchResult& result, RankObjective objective);
[[nodiscard]] nlohmann::json schedule_report(PipelineSchedule schedule, const ScheduleResult& result);

// The text of `rank` without --json: the counts, the rejection reasons and one line per ranked layout.
[[nodiscard]] std::string ranked_layouts_text(const SearchResult& result);
// The text of `schedule` without --json: the makespan and bubble, and each stage's peak in flight.
[[nodiscard]] std::string schedule_text(const ScheduleInput& input, const ScheduleResult& result);
}  // namespace meshscope
