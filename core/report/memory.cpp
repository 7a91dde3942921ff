#include "core/report/memory.hpp"

#include <nlohmann/json.hpp>

namespace meshscope {

using nlohmann::json;

json memory_report(const MemoryBudget& budget) {
  json ranks = json::array();
  for (const auto& rank : budget.ranks) {
    json categories = json::object();
    json formulas = json::object();
    for (const auto& item : rank.items) {
      categories[std::string(category_name(item.category))] = item.bytes;
      formulas[std::string(category_name(item.category))] = item.formula;
    }
    ranks.push_back({{"role", rank.role},
                     {"pp_stage", rank.pp_stages.front()},
                     {"pp_stages", rank.pp_stages},
                     {"layers", rank.layers},
                     {"params_on_rank", rank.params_on_rank},
                     {"in_flight_micro_batches", rank.in_flight_micro_batches},
                     {"categories", categories},
                     {"formulas", formulas},
                     {"total_bytes", rank.total_bytes()}});
  }
  json doc = {{"ranks", ranks},
              {"peak_total_bytes", budget.peak_total_bytes()},
              {"capacity_bytes", budget.capacity_bytes},
              {"fits", budget.fits()},
              {"convention", budget.convention}};
  if (budget.kv_bytes_per_token > 0) {
    doc["kv_bytes_per_token"] = budget.kv_bytes_per_token;
    doc["max_concurrency"] = budget.max_concurrency;
  }
  return doc;
}

json problems_report(const std::vector<LayoutProblem>& problems) {
  json list = json::array();
  for (const auto& p : problems) list.push_back({{"field", p.field}, {"message", p.message}});
  return list;
}

}  // namespace meshscope
