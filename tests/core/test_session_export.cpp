// The ranked tables as CSV (core/session/export.hpp): one header and one row per layout in rank
// order, each row's fields those of its layout, quoting as RFC 4180 asks.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/project/project.hpp"
#include "core/session/evaluate.hpp"
#include "core/session/export.hpp"

using namespace meshscope;

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) out.push_back(field);
  return out;
}

}  // namespace

TEST_CASE("export: RFC 4180 quoting of a CSV field") {
  CHECK(csv_field("zb-h1") == "zb-h1");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("export: the ranked training table has one row per layout with its degrees, choices and figures") {
  auto project = default_project();
  REQUIRE(project);
  const std::atomic<bool> go{false};
  const SearchEvaluation s = search_project(*project, {}, go);
  REQUIRE(s.training);
  const std::string csv = ranked_training_csv(*s.training);
  std::stringstream in(csv);
  std::string line;
  REQUIRE(std::getline(in, line));
  const std::vector<std::string> header = split(line);
  REQUIRE(header.size() == 20);
  CHECK(header.front() == "rank");
  CHECK(header[18] == "tp_comm_overlap");
  size_t row = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line);
    REQUIRE(f.size() == header.size());
    REQUIRE(row < s.training->layouts.size());
    const RankedLayout& r = s.training->layouts[row];
    CHECK(f[0] == std::to_string(row + 1));
    CHECK(f[1] == std::to_string(r.layout.tp));
    CHECK(f[2] == std::to_string(r.layout.pp));
    CHECK(f[7] == std::to_string(r.layout.dp));
    CHECK(f[9] == recompute_name(r.recompute));
    CHECK(f[11] == enum_name(r.schedule));
    CHECK(std::abs(std::stod(f[12]) / r.step_time_s - 1) < 1e-8);  // 9 significant digits
    CHECK(f[18] == (r.tp_comm_overlap ? "1" : "0"));
    ++row;
  }
  CHECK(row == s.training->layouts.size());
}

TEST_CASE("export: the estimate as JSON holds the project, its memory budget and its step estimate") {
  auto project = default_project();
  REQUIRE(project);
  REQUIRE(project->mode == Mode::training);
  ClusterCache cache;
  const Evaluation e = evaluate_project(*project, cache);
  REQUIRE(e.budget);
  REQUIRE(e.estimate);
  const nlohmann::json doc = estimate_export_json(e);
  CHECK(doc.at("project") == project_to_json(e.project));
  CHECK(doc.at("memory").at("peak_total_bytes") == e.budget->peak_total_bytes());
  CHECK(doc.at("memory").at("ranks").size() == e.budget->ranks.size());
  CHECK(doc.at("estimate").at("step_time_s") == e.estimate->step_time_s);
  CHECK(doc.at("estimate").at("mfu") == e.estimate->mfu);

  // An invalid layout: the project alone.
  Evaluation invalid;
  invalid.project = *project;
  const nlohmann::json only_project = estimate_export_json(invalid);
  CHECK(only_project.size() == 1);
  CHECK(only_project.at("project") == project_to_json(*project));
}
