#include "core/report/memory.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/report/text.hpp"
#include "core/report/units.hpp"

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

std::string memory_text(const MemoryBudget& budget, const std::string& model_name, const std::string& gpu_name,
                        bool serving) {
  std::ostringstream out;
  out << "Memory per rank: " << model_name << " on " << gpu_name << "\n";
  out << "Convention: " << budget.convention << "\n\n";
  printf_to(out, "%-22s", "category");
  for (const auto& rank : budget.ranks)
    printf_to(out, "%18s", (rank.role + " " + std::to_string(rank.pp_stages.front())).c_str());
  printf_to(out, "\n");
  for (int c = 0; c < kMemoryCategoryCount; ++c) {
    const auto category = static_cast<MemoryCategory>(c);
    printf_to(out, "%-22s", std::string(category_name(category)).c_str());
    for (const auto& rank : budget.ranks) printf_to(out, "%18s", gib_text(rank.bytes(category)).c_str());
    printf_to(out, "\n");
  }
  printf_to(out, "%-22s", "total");
  for (const auto& rank : budget.ranks) printf_to(out, "%18s", gib_text(rank.total_bytes()).c_str());
  printf_to(out, "\n\npeak %s of %s: %s\n", gib_text(budget.peak_total_bytes()).c_str(),
            gib_text(budget.capacity_bytes).c_str(), budget.fits() ? "fits" : "DOES NOT FIT");
  if (serving) printf_to(out, "largest concurrency that fits: %lld\n", static_cast<long long>(budget.max_concurrency));
  return out.str();
}

}  // namespace meshscope
