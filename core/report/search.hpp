#pragma once
// Stable JSON documents of `meshscope-cli rank` (the ranked training layouts) and `schedule` (one pipeline
// schedule's events; docs/cli.md).
#include <nlohmann/json_fwd.hpp>

#include "core/schedule/schedule.hpp"
#include "core/search/search.hpp"

namespace meshscope {

[[nodiscard]] nlohmann::json ranked_layouts_report(const SearchResult& result, RankObjective objective);
[[nodiscard]] nlohmann::json schedule_report(PipelineSchedule schedule, const ScheduleResult& result);

}  // namespace meshscope
