// Ties in the ranked list: the uncertainty band of a regime is the validation set's median |error|
// for it (docs/validation.md), and layouts within a group's band are one tie group.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/search/ties.hpp"
#include "core/search/validation_bands.hpp"

using namespace meshscope;
using Catch::Matchers::WithinAbs;

namespace {

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line.substr(1));
  while (std::getline(in, cell, '|')) {
    const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

TEST_CASE("ties: every band is the median |error| of its regime's rows in docs/validation.md") {
  std::ifstream doc(std::string(MESHSCOPE_SOURCE_DIR) + "/docs/validation.md");
  REQUIRE(doc);
  // The MoE models of the validation set (their catalogue entries have experts).
  const std::vector<std::string> moe = {"deepseek", "gpt-oss", "qwen3-30b-a3b", "qwen3-235b", "grok", "mixtral"};
  std::map<std::string, std::vector<double>> errors;
  const std::regex error_cell(R"(\**([+-]?[0-9.]+) %\**)");
  std::string line;
  while (std::getline(doc, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const auto cells = cells_of(line);
    std::smatch m;
    if (cells.size() < 11 || !std::regex_match(cells[7], m, error_cell)) continue;
    const double error = std::abs(std::stod(m[1].str())) / 100;
    std::string model = cells[1];
    std::transform(model.begin(), model.end(), model.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool is_moe =
        std::any_of(moe.begin(), moe.end(), [&](const std::string& n) { return model.find(n) != std::string::npos; });
    errors[is_moe ? "moe" : "dense"].push_back(error);
    std::istringstream gaps(cells[10]);
    std::string gap;
    while (std::getline(gaps, gap, ',')) {
      gap = std::regex_replace(gap, std::regex(R"(\\_)"), "_");
      gap.erase(0, gap.find_first_not_of(' '));
      gap.erase(gap.find_last_not_of(' ') + 1);
      if (!gap.empty()) errors["gap:" + gap].push_back(error);
    }
  }
  REQUIRE(errors.size() == validation_bands::kBands.size());
  for (const auto& band : validation_bands::kBands) {
    INFO(band.regime);
    const auto& rows = errors.at(std::string(band.regime));
    CHECK(static_cast<int>(rows.size()) == band.rows);
    CHECK_THAT(band.median_abs_error, WithinAbs(median(rows), 5e-5));
  }
}

TEST_CASE("ties: a layout's uncertainty is its regime's band, or a wider known gap's") {
  RankedLayout r;
  const ModelSpec dense = *model_preset("llama3.1-70b");
  const ModelSpec moe = *model_preset("mixtral-8x7b");
  CHECK(step_uncertainty(dense, r) == *validation_band("dense"));
  CHECK(step_uncertainty(moe, r) == *validation_band("moe"));
  r.known_gaps = {"moe_small_micro_batch"};
  CHECK(step_uncertainty(moe, r) == std::max(*validation_band("moe"), *validation_band("gap:moe_small_micro_batch")));
  CHECK_FALSE(validation_band("no such regime"));
}

TEST_CASE("ties: layouts within the first's band share its group; the next one past it starts a group") {
  std::vector<RankedLayout> ranked(5);
  const double steps[] = {10.0, 10.5, 10.9, 11.2, 11.3};
  for (size_t i = 0; i < ranked.size(); ++i) {
    ranked[i].step_time_s = steps[i];
    ranked[i].uncertainty = 0.1;
  }
  mark_ties(ranked);
  // 10.5 and 10.9 are within 10 % of 10.0; 11.2 is not and starts group 2, which 11.3 joins.
  CHECK(ranked[0].tie_group == 1);
  CHECK(ranked[1].tie_group == 1);
  CHECK(ranked[2].tie_group == 1);
  CHECK(ranked[3].tie_group == 2);
  CHECK(ranked[4].tie_group == 2);
  mark_ties(ranked, RankObjective::memory_headroom);
  for (size_t i = 0; i < ranked.size(); ++i) CHECK(ranked[i].tie_group == static_cast<int>(i) + 1);
}
