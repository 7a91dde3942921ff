// One session, three front ends: the app's Evaluator, fed a project file, publishes the estimate and the ranked
// layouts that `meshscope-cli estimate --project` and `rank --project` print for the same file (the CLI's
// tests/cli/run_same_output.cmake and the Python suite check the other two sides). Both run
// core/session's evaluate_project and rank_project; this test fails if the app ever builds its own.
#include <QProcess>
#include <QSignalSpy>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/report/estimate.hpp"
#include "core/report/search.hpp"
#include "qt_catch.hpp"
#include "ui/document/evaluator.hpp"

using namespace meshscope;

namespace {

const std::string kExample = std::string(MESHSCOPE_SOURCE_DIR) + "/examples/pipeline-llama3.1-70b-dgx-h100.json";

nlohmann::json cli_json(const QStringList& arguments) {
  QProcess cli;
  cli.start(QStringLiteral(MESHSCOPE_CLI), arguments);
  REQUIRE(cli.waitForFinished(300000));
  INFO(cli.readAllStandardError().toStdString());
  REQUIRE(cli.exitCode() == 0);
  return nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
}

Project example_project() {
  auto text = read_text_file(kExample);
  REQUIRE(text);
  auto doc = parse_json_text(*text, kExample);
  REQUIRE(doc);
  auto project = project_from_json(*doc, kExample);
  REQUIRE(project);
  return *project;
}

}  // namespace

TEST_CASE("front ends: the app's evaluation of a project file is the CLI's estimate and rank of it") {
  ui::Evaluator evaluator;
  evaluator.setDebounceMs(0);
  QSignalSpy evaluated(&evaluator, &ui::Evaluator::evaluated);
  QSignalSpy searched(&evaluator, &ui::Evaluator::searched);
  evaluator.request(example_project());
  REQUIRE((evaluated.count() > 0 || evaluated.wait(120000)));
  REQUIRE((searched.count() > 0 || searched.wait(300000)));

  const std::shared_ptr<const Evaluation>& evaluation = evaluator.latest();
  REQUIRE(evaluation);
  REQUIRE(evaluation->estimate);
  const QString example = QString::fromStdString(kExample);
  CHECK(estimate_report(*evaluation->estimate) ==
        cli_json({QStringLiteral("estimate"), QStringLiteral("--project"), example, QStringLiteral("--json")}));

  // The app keeps the best 200 layouts, the CLI prints the best 5: the same five, in the same order.
  const std::shared_ptr<const SearchEvaluation>& search = evaluator.latestSearch();
  REQUIRE(search);
  REQUIRE(search->training);
  const nlohmann::json app_layouts = ranked_layouts_report(*search->training, RankObjective::throughput)["layouts"];
  const nlohmann::json cli_layouts =
      cli_json({QStringLiteral("rank"), QStringLiteral("--project"), example, QStringLiteral("--top"),
                QStringLiteral("5"), QStringLiteral("--json")})["layouts"];
  REQUIRE(cli_layouts.size() == 5);
  REQUIRE(app_layouts.size() >= 5);
  for (size_t i = 0; i < 5; ++i) CHECK(app_layouts[i] == cli_layouts[i]);
}
