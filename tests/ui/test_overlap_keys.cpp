// The frameworks' overlap keys in the GUI: the training form offers each key (built from the
// same key list as --train and the project file), and the Explain view lists them with the
// assumptions they produced. Offscreen.
#include <catch2/catch.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QTextBrowser>

#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "qt_catch.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

// The training form: the KeyForm that has the "zero" key.
ui::KeyForm* training_form(const ui::MainWindow& window) {
  for (ui::KeyForm* form : window.findChildren<ui::KeyForm*>())
    if (form->editor("zero") != nullptr) return form;
  return nullptr;
}

}  // namespace

TEST_CASE("overlap keys: the training form edits every overlap key; Explain lists them and what they did") {
  Result<Project> project = default_project();
  REQUIRE(project);
  project->training.tp_comm_overlap = true;
  project->training.overlap_grad_reduce = true;
  project->training.overlap_param_gather = true;
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  ui::KeyForm* form = training_form(window);
  REQUIRE(form != nullptr);
  for (const char* key : {"tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather", "fsdp_prefetch"}) {
    INFO(key);
    const auto* check = qobject_cast<QCheckBox*>(form->editor(key));
    REQUIRE(check != nullptr);
    CHECK(check->isChecked() == (std::string(key) != "fsdp_prefetch" ? true : project->training.fsdp_prefetch));
  }
  const auto* reshard = qobject_cast<QComboBox*>(form->editor("reshard_after_forward"));
  REQUIRE(reshard != nullptr);
  CHECK(reshard->currentText() == QStringLiteral("default"));
  CHECK(reshard->findText(QStringLiteral("never")) >= 0);
  const QString explain = window.findChild<QTextBrowser*>(QStringLiteral("explain"))->toPlainText();
  CHECK(explain.contains(QStringLiteral("Framework overlap")));
  CHECK(explain.contains(QStringLiteral("overlap_param_gather (Megatron --overlap-param-gather)")));
  // The default project is TP 8 with SP on DGX H100s: TE's overlap applies, with the SMs charged.
  CHECK(explain.contains(QStringLiteral("tp_comm_overlap: TP all-gathers and reduce-scatters in chunks")));
  CHECK(explain.contains(QStringLiteral("132 SMs per GPU")));
  CHECK(explain.contains(QStringLiteral("the first bucket is exposed")));
}

TEST_CASE("known gaps: Explain shows a validation gap under the step time where the configuration has one") {
  Result<Project> project = default_project();
  REQUIRE(project);
  {
    ui::MainWindow window(*project);
    window.waitForEvaluation();
    const QString explain = window.findChild<QTextBrowser*>(QStringLiteral("explain"))->toPlainText();
    CHECK(explain.contains(QStringLiteral("Step time")));
    CHECK_FALSE(explain.contains(QStringLiteral("Known gap")));  // Llama 3.1 70B on DGX H100: none
    CHECK_FALSE(window.findChild<QLabel*>(QStringLiteral("summary"))->text().contains(QStringLiteral("known gap")));
  }
  // The same job on MI300X nodes: the one measured AMD run took 1.8× the prediction.
  auto mi300x = find_gpu("mi300x");
  REQUIRE(mi300x);
  project->gpu = *mi300x;
  project->cluster = "mi300x:nodes=8";
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  const QString explain = window.findChild<QTextBrowser*>(QStringLiteral("explain"))->toPlainText();
  CHECK(explain.contains(QStringLiteral("Known gap in the validation")));
  CHECK(explain.contains(QStringLiteral("AMD Instinct: the one measured training run")));
  CHECK(explain.indexOf(QStringLiteral("Known gap")) < explain.indexOf(QStringLiteral("Assumptions")));
  // The summary strip above every view points to it.
  const auto* summary = window.findChild<QLabel*>(QStringLiteral("summary"));
  REQUIRE(summary != nullptr);
  CHECK(summary->text().contains(QStringLiteral("known gap in the validation (amd)")));
}

TEST_CASE("key table: the training and serving forms take their choices and tooltips from the key table") {
  Result<Project> project = default_project();
  REQUIRE(project);
  project->training.optimizer_state_dtype = DType::bf16;  // not a default: the form shows the key
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  ui::KeyForm* form = training_form(window);
  REQUIRE(form != nullptr);
  for (const KeyInfo& info : key_table(KeyScope::train)) {
    QWidget* editor = form->editor(std::string(info.name));
    if (editor == nullptr) continue;  // written only when it differs from its default
    INFO(std::string(info.name));
    // The tooltip is the table's meaning and source (Markdown as rich text).
    CHECK(editor->toolTip().contains(QStringLiteral("Default:")));
    if (!info.source.empty()) CHECK(editor->toolTip().contains(QStringLiteral("Source:")));
    if (auto* combo = qobject_cast<QComboBox*>(editor))
      for (const std::string& choice : info.choices) CHECK(combo->findText(QString::fromStdString(choice)) >= 0);
  }
  REQUIRE(form->editor("optimizer_dtype") != nullptr);
  CHECK(qobject_cast<QComboBox*>(form->editor("optimizer_dtype"))->currentText() == QStringLiteral("bf16"));
  CHECK(form->editor("zero")->toolTip().contains(QStringLiteral("Rajbhandari")));
  CHECK(form->editor("tp_comm_overlap")->toolTip().contains(QStringLiteral("<code>--tp-comm-overlap</code>")));
}

TEST_CASE("overlap keys: a ranked layout with TP-overlap says so") {
  RankedLayout ranked;
  ranked.layout.tp = 8;
  ranked.layout.sp = true;
  CHECK_FALSE(ui::ranked_layout_text(ranked).contains(QStringLiteral("TP-overlap")));
  ranked.tp_comm_overlap = true;
  CHECK(ui::ranked_layout_text(ranked).contains(QStringLiteral("TP-overlap")));
}

// precision=nvfp4 on the default project's DGX H100s: Transformer Engine refuses NVFP4 below compute
// capability 10.0, so the summary says why in place of a step time (no silent BF16 estimate).
TEST_CASE("precision: the form offers nvfp4; on H100s the summary says the GPU has no FP4 tensor cores") {
  Result<Project> project = default_project();
  REQUIRE(project);
  project->training.compute_dtype = DType::fp4;
  ui::MainWindow window(*project);
  window.waitForEvaluation();
  ui::KeyForm* form = training_form(window);
  REQUIRE(form != nullptr);
  const auto* precision = qobject_cast<QComboBox*>(form->editor("precision"));
  REQUIRE(precision != nullptr);
  CHECK(precision->currentText() == QStringLiteral("nvfp4"));
  REQUIRE(window.evaluation() != nullptr);
  CHECK_THAT(window.evaluation()->estimate_error, Catch::Matchers::Contains("has no NVFP4 (FP4) tensor cores"));
  auto* summary = window.findChild<QLabel*>(QStringLiteral("summary"));
  REQUIRE(summary != nullptr);
  CHECK(summary->text().contains(QStringLiteral("no NVFP4 (FP4) tensor cores")));
  const QString dir = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) {
    window.resize(1600, 1000);
    CHECK(window.grab().save(QDir(dir).filePath(QStringLiteral("precision_nvfp4_h100_error.png"))));
  }
}
