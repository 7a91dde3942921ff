// Guided lessons (core/session/lesson.hpp): loading, cumulative edits, errors that name the file,
// the step and the key, figures equal to evaluate_project's own numbers, and a lint of every
// embedded lesson's text (no typed figures).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>

#include "core/model/model_io.hpp"
#include "core/session/evaluate.hpp"
#include "core/session/lesson.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// A small valid lesson; tests break one piece of it.
json small_lesson() {
  return json::parse(R"({
    "format": "meshscope-lesson",
    "title": "test lesson",
    "start": { "model": "llama3.1-8b", "cluster": "dgx-h100:nodes=1", "mode": "training",
               "train": { "seq": 4096, "global_batch": 64, "zero": 1 },
               "layout": { "tp": 8, "pp": 1, "vpp": 1, "dp": 1, "sp": true } },
    "steps": [
      { "text": "Peak {peak_memory_gib}, MFU {mfu_percent}.", "view": "memory" },
      { "text": "TP 4: from {prev.peak_memory_gib} to {peak_memory_gib}.", "edits": { "layout": { "tp": 4, "dp": 2 } },
        "view": "communication" },
      { "text": "ZeRO-3: {step_time_ms}.", "edits": { "train": { "zero": 3 } }, "view": "memory" }
    ]
  })");
}

// The number a rendered figure starts with ("61.2 GiB" → 61.2, "12,345 tokens/s" → 12345).
double leading_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace

TEST_CASE("lesson: steps are cumulative, so a step's project is the base plus every earlier edit") {
  auto lesson = lesson_from_json(small_lesson(), "small.json");
  REQUIRE(lesson);
  REQUIRE(lesson->steps.size() == 3);
  CHECK(lesson->steps[0].project.layout.tp == 8);
  CHECK(lesson->steps[1].project.layout.tp == 4);
  CHECK(lesson->steps[2].project.layout.tp == 4);  // kept from step 2
  CHECK(lesson->steps[2].project.training.zero_stage == 3);
  CHECK(lesson->steps[1].project.training.zero_stage == 1);
  // Back is exact: re-applying the edits of steps 1..k to the base gives step k's project.
  Project replay = lesson->base;
  for (size_t k = 0; k < lesson->steps.size(); ++k) {
    auto next = apply_lesson_edits(replay, lesson->steps[k].edits, "replay");
    REQUIRE(next);
    replay = *next;
    CHECK(replay == lesson->steps[k].project);
  }
}

TEST_CASE("lesson: a step's figures are evaluate_project's own numbers for the step's project") {
  auto lesson = lesson_from_json(small_lesson(), "small.json");
  REQUIRE(lesson);
  ClusterCache cache;
  for (int k = 1; k <= 2; ++k) {
    auto step = render_lesson_step(*lesson, k, cache);
    REQUIRE(step);
    const Evaluation evaluation = evaluate_project(lesson->steps[static_cast<size_t>(k - 1)].project, cache);
    REQUIRE(evaluation.estimate);
    CHECK_THAT(leading_number(step->figures.at("peak_memory_gib")),
               Catch::Matchers::WithinRel(evaluation.budget->peak_total_bytes() / (1024.0 * 1024 * 1024), 0.01));
    CHECK_THAT(step->figures.at("peak_memory_gib"), Contains("GiB"));
    if (k == 1)
      CHECK_THAT(leading_number(step->figures.at("mfu_percent")),
                 Catch::Matchers::WithinRel(evaluation.estimate->mfu * 100, 0.01));
  }
  // {prev.X} is the previous step's X.
  auto first = render_lesson_step(*lesson, 1, cache);
  auto second = render_lesson_step(*lesson, 2, cache);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(second->figures.at("prev.peak_memory_gib") == first->figures.at("peak_memory_gib"));
  CHECK_THAT(second->text, Contains(first->figures.at("peak_memory_gib")));
  // Rendering is a function of the step alone: going back renders the same text.
  auto again = render_lesson_step(*lesson, 1, cache);
  REQUIRE(again);
  CHECK(again->text == first->text);
}

TEST_CASE("lesson: the search's best layout is search_project's top layout") {
  json doc = small_lesson();
  doc["steps"][0]["text"] = "Best {best_layout}.";
  auto lesson = lesson_from_json(doc, "small.json");
  REQUIRE(lesson);
  ClusterCache cache;
  auto step = render_lesson_step(*lesson, 1, cache);
  REQUIRE(step);
  const std::atomic<bool> cancel{false};
  const SearchEvaluation search = search_project(lesson->steps[0].project, ServingTarget{}, cancel);
  REQUIRE(search.training);
  REQUIRE_FALSE(search.training->layouts.empty());
  const Layout& best = search.training->layouts.front().layout;
  CHECK_THAT(step->text, Contains("TP " + std::to_string(best.tp) + " × PP " + std::to_string(best.pp) + " × DP " +
                                  std::to_string(best.dp)));
}

TEST_CASE("lesson: a bad key, value, view or placeholder is an error naming the file, the step and the key") {
  struct Case {
    const char* what;
    json patch;  // merged into step 2
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"unknown layout key", json{{"edits", {{"layout", {{"tq", 4}}}}}}, {"broken.json", "step 2", "layout", "tq"}},
      {"bad layout value", json{{"edits", {{"layout", {{"tp", "four"}}}}}}, {"broken.json", "step 2", "tp", "four"}},
      {"bad train value", json{{"edits", {{"train", {{"zero", 7}}}}}}, {"broken.json", "step 2", "train", "zero"}},
      {"unknown edit", json{{"edits", {{"network", "fast"}}}}, {"broken.json", "step 2", "network"}},
      {"unknown model", json{{"edits", {{"model", "no-such-model"}}}}, {"broken.json", "step 2", "no-such-model"}},
      {"bad cluster", json{{"edits", {{"cluster", "dgx-h100:nodes=zero"}}}}, {"broken.json", "step 2", "cluster"}},
      {"unknown view", json{{"view", "flamegraph"}}, {"broken.json", "step 2", "view", "flamegraph"}},
      {"unknown placeholder", json{{"text", "Peak {peak_memory_gb}."}}, {"broken.json", "step 2", "peak_memory_gb"}},
      {"unknown axis", json{{"text", "{tier.xp}"}}, {"broken.json", "step 2", "tier.xp"}},
      {"unclosed brace", json{{"text", "Peak {peak_memory_gib."}}, {"broken.json", "step 2", "{"}},
      {"unknown step key", json{{"note", "x"}}, {"broken.json", "step 2", "note"}},
      {"unknown trade-off axis", json{{"view", "tradeoff"}, {"axis", "tq"}}, {"broken.json", "step 2", "axis", "tq"}},
      {"second axis unknown", json{{"view", "tradeoff"}, {"axis", "tp,xx"}}, {"broken.json", "step 2", "xx"}},
      {"axis on another view", json{{"view", "memory"}, {"axis", "tp"}}, {"broken.json", "step 2", "axis", "memory"}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    json doc = small_lesson();
    doc["steps"][1].merge_patch(c.patch);
    auto lesson = lesson_from_json(doc, "broken.json");
    REQUIRE_FALSE(lesson);
    for (const std::string& part : c.expected) CHECK_THAT(lesson.error().to_string(), Contains(part));
  }
  json no_steps = small_lesson();
  no_steps["steps"] = json::array();
  CHECK_THAT(lesson_from_json(no_steps, "broken.json").error().to_string(), Contains("steps"));
  CHECK_THAT(load_lesson("no-such-lesson").error().to_string(), Contains("01-two-memory-budgets"));
}

TEST_CASE("lesson: a figure that does not apply to the step's project is a render error naming it") {
  json doc = small_lesson();
  doc["steps"][2]["text"] = "TTFT {ttft_ms}.";  // a serving figure of a training project
  auto lesson = lesson_from_json(doc, "mode.json");
  REQUIRE(lesson);
  ClusterCache cache;
  auto step = render_lesson_step(*lesson, 3, cache);
  REQUIRE_FALSE(step);
  CHECK_THAT(step.error().to_string(), Contains("mode.json") && Contains("step 3") && Contains("ttft_ms"));
  CHECK_FALSE(render_lesson_step(*lesson, 4, cache));
}

TEST_CASE("lesson: every embedded lesson loads, in the practitioner's order, with 4 to 7 short steps") {
  const std::vector<std::string> names = lesson_names();
  REQUIRE(names.size() >= 8);
  const std::regex sentence_end(R"([a-z)}\]][.!?](\s|$))");
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const std::string& name : names) {
    INFO(name);
    CHECK(std::regex_match(name, std::regex("[0-9][0-9]-[a-z0-9-]+")));
    auto lesson = load_lesson(name);
    REQUIRE(lesson);
    CHECK(lesson->steps.size() >= 4);
    CHECK(lesson->steps.size() <= 7);
    for (const LessonStep& step : lesson->steps) {
      INFO(step.text);
      // At most three sentences: ". " (or the end) after a word.
      const std::ptrdiff_t sentences =
          std::distance(std::sregex_iterator(step.text.begin(), step.text.end(), sentence_end), std::sregex_iterator());
      CHECK(sentences <= 3);
    }
  }
  auto by_short_name = load_lesson("two-memory-budgets");
  REQUIRE(by_short_name);
  CHECK(by_short_name->name == "01-two-memory-budgets");
}

TEST_CASE("lesson lint: no step text types a figure (a digit followed by a unit) outside its placeholders") {
  const std::regex typed(R"([0-9]\s*(GB|GiB|MB|MiB|%|ms|s|tokens/s|TFLOP/s|TB/s|GB/s)\b)");
  const std::regex placeholder(R"(\{[^}]*\})");
  for (const std::string& name : lesson_names()) {
    auto lesson = load_lesson(name);
    REQUIRE(lesson);
    for (size_t k = 0; k < lesson->steps.size(); ++k) {
      const std::string bare = std::regex_replace(lesson->steps[k].text, placeholder, "");
      INFO(name << " step " << k + 1 << ": " << bare);
      CHECK_FALSE(std::regex_search(bare, typed));
    }
  }
}

TEST_CASE("lesson: every step of every embedded lesson renders with every figure computed") {
  ClusterCache cache;
  for (const std::string& name : lesson_names()) {
    auto lesson = load_lesson(name);
    REQUIRE(lesson);
    for (int k = 1; k <= static_cast<int>(lesson->steps.size()); ++k) {
      auto step = render_lesson_step(*lesson, k, cache);
      INFO(name << " step " << k << ": " << (step ? step->text : step.error().to_string()));
      REQUIRE(step);
      CHECK(step->text.find('{') == std::string::npos);
      CHECK(step->text.find("nan") == std::string::npos);
      CHECK(step->text.find("inf ") == std::string::npos);
      for (const auto& [figure, value] : step->figures) {
        INFO(figure << " = " << value);
        CHECK_FALSE(value.empty());
        CHECK(value.find("nan") == std::string::npos);
      }
      CHECK(step->count == static_cast<int>(lesson->steps.size()));
    }
  }
}

TEST_CASE("lesson: docs/lessons.md's placeholder table is lesson_figures() (meshscope-cli lesson --figures)") {
  auto docs = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/docs/lessons.md");
  REQUIRE(docs);
  const std::string begin = "<!-- lesson-figures -->\n";
  const size_t start = docs->find(begin);
  REQUIRE(start != std::string::npos);
  const size_t end = docs->find("<!-- /lesson-figures -->", start);
  REQUIRE(end != std::string::npos);
  CHECK(docs->substr(start + begin.size(), end - start - begin.size()) == lesson_figures_markdown());
}
