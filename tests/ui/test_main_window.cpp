// The main window as a composition root: edits go to the background evaluator and every view
// shows the latest evaluation. Checked through its widgets, offscreen.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include "core/importers/nccl_tests.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/session/compare_layouts.hpp"
#include "qt_catch.hpp"
#include "ui/kit/padded_item_delegate.hpp"
#include "ui/panels/pipeline_chart.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/profile/calibration_controller.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"
#include "ui/window/export_controller.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/import_controller.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

Project project_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

// A project from examples/, as the README and the screenshots open it.
Project example_project(const std::string& file) {
  auto text = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/examples/" + file);
  REQUIRE(text);
  auto doc = parse_json_text(*text, file);
  REQUIRE(doc);
  auto project = project_from_json(*doc, file);
  REQUIRE(project);
  return *project;
}

QString header_text(const ui::MainWindow& window) {
  return window.findChild<QLabel*>(QStringLiteral("header"))->text() + QLatin1Char('\n') +
         window.findChild<QLabel*>(QStringLiteral("summary"))->text();
}

void write(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::WriteOnly));
  REQUIRE(file.write(bytes) == bytes.size());
}

}  // namespace

TEST_CASE("main window: every table has the one table style (read-only, padded cells, no word wrap)") {
  ui::MainWindow window(project_or_fail());
  window.waitForEvaluation();
  const QList<QTableView*> tables = window.findChildren<QTableView*>();
  CHECK(tables.size() >= 7);  // memory, communication, valid, rejected, compare, profile ×3
  for (const QTableView* table : tables) {
    INFO(table->objectName().toStdString() << " in " << table->parent()->metaObject()->className());
    CHECK(qobject_cast<ui::PaddedItemDelegate*>(table->itemDelegate()) != nullptr);
    CHECK(table->editTriggers() == QAbstractItemView::NoEditTriggers);
    CHECK_FALSE(table->wordWrap());
    CHECK(table->styleSheet().contains(QStringLiteral("QHeaderView::section")));
  }
}

TEST_CASE("main window: the default project shows its memory table under a summary header") {
  const Project project = project_or_fail();
  ui::MainWindow window(project);
  window.waitForEvaluation();
  CHECK(window.windowTitle().startsWith(QStringLiteral("meshscope — ") + QString::fromStdString(project.name)));
  const auto* table = window.findChild<QTableView*>(QStringLiteral("memory_table"));
  REQUIRE(table != nullptr);
  REQUIRE(table->model() != nullptr);
  CHECK(table->model()->rowCount() == kMemoryCategoryCount + 1);
  const QString header = header_text(window);
  CHECK(header.contains(QStringLiteral("TP 8 · PP 4 (v 5) · DP 2 · SP")));
  CHECK(header.contains(QString::fromStdString(project.gpu.name)));
  CHECK(header.contains(QStringLiteral("fits")));
  CHECK(header.contains(QStringLiteral("Predicted step")));
  // The explain panel names the convention behind the numbers.
  CHECK(window.findChild<QTextBrowser*>(QStringLiteral("explain"))->toPlainText().contains(QStringLiteral("MFU")));
}

TEST_CASE("main window: an invalid layout lists its problems and empties the views") {
  Project project = project_or_fail();
  project.layout.tp = 7;  // 64 attention heads cannot be split over 7 ranks
  ui::MainWindow window(project);
  window.waitForEvaluation();
  CHECK(window.findChild<QTableView*>(QStringLiteral("memory_table"))->model()->rowCount() == 0);
  const QString header = header_text(window);
  CHECK(header.contains(QStringLiteral("not valid")));
  CHECK(header.contains(QStringLiteral("<b>tp</b>")));
  CHECK(window.findChild<QLabel*>(QStringLiteral("validity"))->text().contains(QStringLiteral("tp")));
}

TEST_CASE("main window: a serving project shows the serving budget and its latencies") {
  Project project = project_or_fail();
  project.mode = Mode::serving;
  project.serving_layout = ServingLayout{};
  project.serving_layout.tp = 8;
  project.serving_layout.replicas = 8;
  ui::MainWindow window(project);
  window.waitForEvaluation();
  const auto* table = window.findChild<QTableView*>(QStringLiteral("memory_table"));
  REQUIRE(table != nullptr);
  CHECK(table->model()->columnCount() == 1);
  const QString header = header_text(window);
  CHECK(header.contains(QStringLiteral("serving")));
  CHECK(header.contains(QStringLiteral("TTFT")));
  REQUIRE(window.evaluation() != nullptr);
  CHECK(window.evaluation()->serving != nullptr);
}

TEST_CASE("main window: the pipeline view shows the schedule whole and zoomed on the warm-up") {
  const Project project = project_or_fail();
  ui::MainWindow window(project);
  window.waitForEvaluation();
  const QList<ui::PipelineChart*> charts = window.findChildren<ui::PipelineChart*>();
  REQUIRE(charts.size() == 2);
  // p stages × m micro-batches × v chunks, forward and backward each (Megatron interleaved 1F1B).
  const int64_t micro_batches = num_micro_batches(project.training, project.layout);
  const auto expected = static_cast<size_t>(2 * project.layout.pp * project.layout.vpp * micro_batches);
  for (const ui::PipelineChart* c : charts) CHECK(c->schedule().events.size() == expected);
}

TEST_CASE("main window: changing a layout degree updates the memory and bubble views") {
  const Project project = project_or_fail();
  ui::MainWindow window(project);
  window.waitForEvaluation();
  REQUIRE(window.evaluation());
  REQUIRE(window.evaluation()->estimate);
  const double bubble_before = window.evaluation()->estimate->bubble_fraction;
  const double memory_before = window.evaluation()->budget->peak_total_bytes();
  const size_t events_before = window.findChild<ui::PipelineChart*>()->schedule().events.size();

  // PP 4 (v 5) → PP 8 (v 5), DP 2 → DP 1: 80 layers / 8 stages / 5 chunks = 2 layers per chunk.
  ui::KeyForm* form = window.workloadPanel()->layoutForm();
  REQUIRE(form->setValue("dp", QStringLiteral("1")));
  REQUIRE(form->setValue("pp", QStringLiteral("8")));
  window.waitForEvaluation();
  REQUIRE(window.evaluation()->estimate);
  CHECK(window.evaluation()->project.layout.pp == 8);
  CHECK(window.evaluation()->estimate->bubble_fraction != bubble_before);
  CHECK(window.evaluation()->budget->peak_total_bytes() != memory_before);
  CHECK(window.findChild<ui::PipelineChart*>()->schedule().events.size() != events_before);
  CHECK(window.isWindowModified());
}

TEST_CASE("main window: a value the core refuses is shown inline and the project is kept") {
  const Project project = project_or_fail();
  ui::MainWindow window(project);
  window.waitForEvaluation();
  ui::KeyForm* training = window.workloadPanel()->trainingForm();
  REQUIRE(training->setValue("runtime_gib", QStringLiteral("lots")));
  window.waitForEvaluation();
  CHECK(window.workloadPanel()->inputError().contains(QStringLiteral("runtime_gib")));
  CHECK(window.project().training.runtime.runtime_bytes == project.training.runtime.runtime_bytes);
}

TEST_CASE("main window: save and open a project; a malformed file keeps the current project") {
  QCoreApplication::setOrganizationName(QStringLiteral("meshscope-tests"));
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  Project project = project_or_fail();
  project.layout.micro_batch = 2;
  ui::MainWindow window(project);
  window.waitForEvaluation();
  const QString path = dir.filePath(QStringLiteral("p.json"));
  REQUIRE(window.session()->saveProject(path));
  CHECK_FALSE(window.isWindowModified());

  // The saved file is a version-2 project that reads back to the same layout.
  auto text = read_text_file(path.toStdString());
  REQUIRE(text);
  auto doc = parse_json_text(*text, "p.json");
  REQUIRE(doc);
  CHECK(doc->at("version") == kProjectVersion);
  CHECK(doc->at("view").contains("docks"));

  Project other = project_or_fail();
  other.layout.micro_batch = 1;
  window.session()->setProject(other);
  window.waitForEvaluation();
  REQUIRE(window.session()->openProject(path));
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == 2);
  CHECK(window.inlineError().isEmpty());

  // Truncated and wrongly typed variants of the saved file: an inline error naming the file.
  const QByteArray saved = QByteArray::fromStdString(*text);
  const QString truncated = dir.filePath(QStringLiteral("truncated.json"));
  write(truncated, saved.left(saved.size() / 2));
  CHECK_FALSE(window.session()->openProject(truncated));
  CHECK(window.inlineError().contains(QStringLiteral("truncated.json")));
  CHECK(window.project().layout.micro_batch == 2);
  nlohmann::json wrong = *doc;
  wrong["layout"]["tp"] = "eight";
  const QString wrong_path = dir.filePath(QStringLiteral("wrong.json"));
  write(wrong_path, QByteArray::fromStdString(wrong.dump()));
  CHECK_FALSE(window.session()->openProject(wrong_path));
  CHECK(window.inlineError().contains(QStringLiteral("tp")));
  CHECK(window.project().layout.micro_batch == 2);
  CHECK_FALSE(window.session()->openProject(dir.filePath(QStringLiteral("missing.json"))));
}

TEST_CASE("main window: exports write the estimate, the ranked table and each view") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  ui::MainWindow window(project_or_fail());
  window.waitForEvaluation();
  REQUIRE(window.search());
  const QString json_path = dir.filePath(QStringLiteral("estimate.json"));
  REQUIRE(window.exports()->exportEstimateJson(json_path));
  auto text = read_text_file(json_path.toStdString());
  REQUIRE(text);
  auto doc = parse_json_text(*text, "estimate.json");
  REQUIRE(doc);
  CHECK(doc->at("estimate").at("step_time_s").get<double>() == window.evaluation()->estimate->step_time_s);

  const QString csv_path = dir.filePath(QStringLiteral("ranked.csv"));
  REQUIRE(window.exports()->exportRankedCsv(csv_path));
  auto csv = read_text_file(csv_path.toStdString());
  REQUIRE(csv);
  const auto lines = std::count(csv->begin(), csv->end(), '\n');
  CHECK(lines == static_cast<long>(window.search()->training->layouts.size()) + 1);

  for (const QString& name : window.viewNames()) {
    CHECK(window.exports()->exportViewImage(name, dir.filePath(name + QStringLiteral(".png"))));
    CHECK(window.exports()->exportViewImage(name, dir.filePath(name + QStringLiteral(".svg"))));
    CHECK(QFileInfo(dir.filePath(name + QStringLiteral(".svg"))).size() > 100);
  }
  CHECK_FALSE(window.exports()->exportViewImage(QStringLiteral("memory"), QStringLiteral("/no/such/dir/x.png")));
}

TEST_CASE("main window: the default project opens on the best-ranked layout when asked") {
  ui::MainWindow::Options options;
  options.select_best_layout = true;
  ui::MainWindow window(project_or_fail(), options);
  window.waitForEvaluation();
  window.waitForEvaluation();
  REQUIRE(window.search());
  REQUIRE(window.search()->training);
  REQUIRE_FALSE(window.search()->training->layouts.empty());
  const RankedLayout& best = window.search()->training->layouts.front();
  CHECK(window.project().layout.tp == best.layout.tp);
  CHECK(window.project().layout.pp == best.layout.pp);
  CHECK(window.project().layout.dp == best.layout.dp);
  CHECK(window.project().training.zero_stage == best.zero_stage);
  CHECK(window.project().training.tp_comm_overlap == best.tp_comm_overlap);  // the search's TP-overlap dimension
  REQUIRE(window.evaluation()->estimate);
  CHECK(window.evaluation()->project.layout.tp == best.layout.tp);
  // The summary shows the layout the ranked row promised: the detailed estimate of it agrees with
  // the search's figure as closely as test_search asks of the two models (5 %).
  CHECK(std::abs(window.evaluation()->estimate->step_time_s / best.step_time_s - 1) < 0.05);
}

TEST_CASE("main window: every view can be brought to the front") {
  ui::MainWindow window(project_or_fail());
  for (const char* name : {"memory", "pipeline", "communication", "explain", "workload"})
    CHECK(window.showView(QString::fromLatin1(name)));
  CHECK_FALSE(window.showView(QStringLiteral("no such view")));
}

TEST_CASE("main window: a second schedule is drawn below the first on the same time axis") {
  Project project = project_or_fail();
  ui::MainWindow window(project);
  window.waitForEvaluation();
  auto* compare = window.findChild<QComboBox*>(QStringLiteral("compare_schedule"));
  REQUIRE(compare != nullptr);
  compare->setCurrentIndex(compare->findData(QStringLiteral("gpipe")));
  emit compare->activated(compare->currentIndex());
  window.waitForEvaluation();
  // GPipe has no virtual stages: with v = 5 the comparison says why it cannot be drawn.
  CHECK_FALSE(window.evaluation()->compare_error.empty());
  CHECK(window.evaluation()->compare_estimate == nullptr);
  REQUIRE(window.workloadPanel()->layoutForm()->setValue("vpp", QStringLiteral("1")));
  window.waitForEvaluation();
  REQUIRE(window.evaluation()->compare_estimate);
  CHECK(window.evaluation()->compare_estimate->pipeline_schedule == PipelineSchedule::gpipe);
  // GPipe and 1F1B idle for the same (p − 1) slots (Narayanan et al. SC21 §2.2.1); ZB-H1 less
  // (Qi et al., ICLR 2024 §3: W fills part of the warm-up and cool-down).
  CHECK(window.evaluation()->compare_estimate->bubble_fraction ==
        Approx(window.evaluation()->estimate->bubble_fraction).epsilon(0.05));
  compare->setCurrentIndex(compare->findData(QStringLiteral("zb-h1")));
  emit compare->activated(compare->currentIndex());
  window.waitForEvaluation();
  REQUIRE(window.evaluation()->compare_estimate);
  CHECK(window.evaluation()->compare_estimate->bubble_fraction < window.evaluation()->estimate->bubble_fraction);
  const auto* chart = window.findChild<ui::PipelineChart*>(QStringLiteral("compare_chart"));
  REQUIRE(chart != nullptr);
  CHECK(chart->schedule().events.size() == window.evaluation()->compare_estimate->schedule.events.size());
  CHECK(window.project().view.at("compare_schedule") == "zb-h1");
}

TEST_CASE("main window: the rank order choice renumbers ranks: Megatron's tp-pp-dp keeps the pipeline in a node") {
  Project project = project_or_fail();
  project.layout.tp = 2;
  project.layout.cp = 1;
  project.layout.pp = 4;
  project.layout.vpp = 1;
  project.layout.dp = 8;
  project.layout.micro_batch = 1;
  ui::MainWindow window(project);
  window.waitForEvaluation();
  const auto pp_tier = [&] {
    REQUIRE(window.evaluation()->estimate);
    for (const AxisComm& axis : window.evaluation()->estimate->comm.axes)
      if (axis.axis == MeshAxis::pp) return axis.tier;
    FAIL("no PP axis");
    return PathTier::same_gpu;
  };
  // Megatron's default order: pipeline neighbours are TP·DP = 16 ranks apart, on another node.
  CHECK(pp_tier() > PathTier::nvlink);
  QComboBox* order = window.workloadPanel()->orderCombo();
  REQUIRE(order != nullptr);
  const int index = order->findData(QStringLiteral("tp-pp-dp"));
  REQUIRE(index >= 0);
  order->setCurrentIndex(index);
  emit order->activated(index);
  window.waitForEvaluation();
  CHECK(window.project().order == AxisOrder::tp_pp_dp);
  CHECK(window.evaluation()->project.order == AxisOrder::tp_pp_dp);
  CHECK(pp_tier() == PathTier::nvlink);  // TP·PP = 8 ranks: one node
  // Undo restores the order.
  window.undoStack()->undo();
  window.waitForEvaluation();
  CHECK(window.project().order == AxisOrder::megatron);
}

TEST_CASE("main window: selecting a ranked layout makes it the current layout everywhere") {
  ui::MainWindow window(project_or_fail());
  window.waitForEvaluation();
  REQUIRE(window.search());
  REQUIRE(window.search()->training->layouts.size() >= 3);
  auto* panel = window.findChild<ui::RankedLayoutsPanel*>();
  REQUIRE(panel != nullptr);
  REQUIRE(panel->selectRank(3));
  window.waitForEvaluation();
  const RankedLayout& third = window.search()->training->layouts[2];
  CHECK(window.project().layout.tp == third.layout.tp);
  CHECK(window.project().layout.pp == third.layout.pp);
  CHECK(window.project().layout.vpp == third.layout.vpp);
  CHECK(window.project().layout.cp == third.layout.cp);
  CHECK(window.project().training.schedule == third.schedule);
  CHECK(window.project().training.tp_comm_overlap == third.tp_comm_overlap);
  REQUIRE(window.evaluation()->estimate);
  CHECK(window.evaluation()->project.layout.dp == third.layout.dp);
  CHECK(window.workloadPanel()->project().layout.tp == third.layout.tp);

  // Two pins fill the comparison.
  panel->togglePinCurrent();
  REQUIRE(panel->selectRank(1));
  panel->togglePinCurrent();
  window.waitForEvaluation();
  // Estimated with the evaluation, on its worker thread (core/session/compare_layouts.hpp).
  REQUIRE(window.evaluation()->pinned_comparison);
  CHECK(window.evaluation()->pinned_comparison->sides.size() == 2);
  auto* compare = window.findChild<ui::LayoutCompareWidget*>();
  REQUIRE(compare != nullptr);
  REQUIRE(compare->model() != nullptr);
  CHECK(compare->model()->rowCount() > 5);
}

TEST_CASE("main window: selecting a ranked serving layout makes it the deployment") {
  ui::MainWindow window(example_project("serving-deepseek-v3-h200.json"));
  window.waitForEvaluation();
  REQUIRE(window.search());
  REQUIRE(window.search()->serving);
  REQUIRE(window.evaluation()->serving);
  // The current deployment's curve and the best ranked ones are drawn; its EP all-to-alls are mapped.
  CHECK_FALSE(window.search()->curves.empty());
  REQUIRE(window.evaluation()->serving_traffic);
  CHECK_FALSE(window.evaluation()->serving_traffic->loads.empty());
  auto* panel = window.findChild<ui::RankedLayoutsPanel*>();
  REQUIRE(panel != nullptr);
  const auto& ranked = window.search()->serving->layouts;
  const auto colocated =
      std::find_if(ranked.begin(), ranked.end(), [](const RankedServing& r) { return !r.disaggregated; });
  REQUIRE(colocated != ranked.end());
  REQUIRE(panel->selectRank(static_cast<int>(colocated - ranked.begin()) + 1));
  window.waitForEvaluation();
  CHECK(window.project().serving_layout.tp == colocated->layout.tp);
  CHECK(window.project().serving_layout.dp == colocated->layout.dp);
  CHECK(window.project().serving_layout.ep == colocated->layout.ep);
  CHECK(window.project().serving_layout.replicas == colocated->layout.replicas);
  REQUIRE(window.evaluation()->serving);
  CHECK(window.evaluation()->problems.empty());
  // (The ranking's throughput is at the largest concurrency meeting the target; the estimate is at
  // the workload's concurrency, so the two are different operating points of the same curve.)
  CHECK(window.evaluation()->serving->output_tokens_per_s_per_gpu > 0);
}

TEST_CASE("main window: an imported node topology becomes the project's editable cluster") {
  const std::string dir = std::string(MESHSCOPE_SHARED_DIR) + "/data/nvidia_smi_topo/";
  ui::MainWindow window(project_or_fail());
  window.waitForEvaluation();
  // 8 × A100 with NVSwitch (nvidia-smi topo -m from a real DGX-class node), replicated onto 4 nodes.
  REQUIRE(window.imports()->importNodeTopology(QString::fromStdString(dir + "repo_blog_8xA100_NV12_17NIC_bond.txt"), 4,
                                               QStringLiteral("a100-80gb-sxm")));
  window.waitForEvaluation();
  REQUIRE(window.project().cluster_inline);
  CHECK(window.project().gpu_count == 32);
  REQUIRE(window.evaluation()->cluster);
  CHECK(window.evaluation()->cluster->num_gpus() == 32);
  CHECK(window.evaluation()->cluster_error.empty());
  // The default layout needs 64 GPUs: the validity line says so.
  CHECK_FALSE(window.evaluation()->problems.empty());

  // A truncated copy of the same file: an inline error, and the imported cluster stays.
  QTemporaryDir temp;
  auto text = read_text_file(dir + "repo_blog_8xA100_NV12_17NIC_bond.txt");
  REQUIRE(text);
  const QString broken = temp.filePath(QStringLiteral("topo.txt"));
  write(broken, QByteArray::fromStdString(text->substr(0, 40)));
  CHECK_FALSE(window.imports()->importNodeTopology(broken, 2, QStringLiteral("a100-80gb-sxm")));
  CHECK(window.inlineError().contains(QStringLiteral("topo.txt")));
  CHECK(window.project().gpu_count == 32);
}

TEST_CASE("main window: calibrating from nccl-tests logs applies, saves and undoes") {
  Project project = project_or_fail();
  project.cluster = "dgx-a100:gpu=a100-40gb-sxm";  // the logs' machine: 8 × A100-SXM4-40GB with NVSwitch
  project.layout = Layout{};
  project.layout.tp = 8;
  project.layout.pp = 8;
  project.layout.vpp = 5;
  project.layout.sp = true;
  ui::MainWindow window(project);
  window.waitForEvaluation();
  REQUIRE(window.evaluation()->cluster);
  const double step_before = window.evaluation()->estimate ? window.evaluation()->estimate->step_time_s : 0;
  const std::string log =
      std::string(MESHSCOPE_SHARED_DIR) + "/data/nccl_tests/superbench_8xA100-SXM4-40GB_nccl_allgather.log";
  const QString summary = window.calibration()->calibrateFromNcclTests({QString::fromStdString(log)});
  REQUIRE_FALSE(summary.isEmpty());
  CHECK(summary.contains(QStringLiteral("before")));
  // Every row of the log, measured against predicted before and after the fit; the rows of at
  // least 64 MiB (what the fit minimised) are closer after it on average.
  const auto& rows = window.calibration()->lastNcclComparison();
  auto parsed = load_nccl_tests(log);
  REQUIRE(parsed);
  size_t measured = 0;
  for (const auto& r : parsed->rows) measured += r.bytes > 0 && r.out_of_place_time_s > 0 ? 1 : 0;
  CHECK(rows.size() == measured);
  double before = 0, after = 0;
  for (const auto& r : rows) {
    CHECK(r.collective == QStringLiteral("all-gather"));
    if (r.bytes < 64.0 * 1024 * 1024) continue;
    before += std::abs(r.before_time_s / r.measured_time_s - 1);
    after += std::abs(r.after_time_s / r.measured_time_s - 1);
  }
  CHECK(after < before);
  window.calibration()->showNcclComparison(summary);
  auto* table = window.findChild<QTableView*>(QStringLiteral("nccl_comparison"));
  REQUIRE(table != nullptr);
  REQUIRE(table->model() != nullptr);
  CHECK(table->model()->rowCount() == static_cast<int>(rows.size()));
  window.waitForEvaluation();
  // The fit is an NVLink efficiency (the all-gather rows are NVSwitch-bound), now in the project.
  REQUIRE_FALSE(window.project().comm_keys.empty());
  CHECK(window.project().comm_keys.front().first == "nvlink_efficiency");
  const nlohmann::json saved = project_to_json(window.project());
  CHECK(saved.at("calibration").at("comm").contains("nvlink_efficiency"));
  if (window.evaluation()->estimate) CHECK(window.evaluation()->estimate->step_time_s != step_before);

  // Edit → Undo reverts it.
  REQUIRE(window.undoStack()->canUndo());
  window.undoStack()->undo();
  window.waitForEvaluation();
  CHECK(window.project().comm_keys.empty());
  window.undoStack()->redo();
  CHECK_FALSE(window.project().comm_keys.empty());

  // A log that is not nccl-tests output: an inline error, the calibration kept.
  QTemporaryDir dir;
  const QString junk = dir.filePath(QStringLiteral("junk.log"));
  write(junk, "not an nccl-tests log\n");
  CHECK(window.calibration()->calibrateFromNcclTests({junk}).isEmpty());
  CHECK(window.inlineError().contains(QStringLiteral("junk.log")));
  CHECK_FALSE(window.project().comm_keys.empty());
}

TEST_CASE("main window: the GEMM efficiency is fitted to an imported trace, applied and undone") {
  ui::MainWindow window(example_project("gpt2-dgx-a100-dp8.json"));
  window.waitForEvaluation();
  CHECK(window.calibration()->calibrateGemmFromTrace().isEmpty());  // nothing imported yet
  CHECK(window.inlineError().contains(QStringLiteral("trace")));
  window.imports()->importTraces(
      {QString::fromStdString(std::string(MESHSCOPE_SHARED_DIR) + "/data/kineto_traces/param_dlrm_8rank")});
  while (window.imports()->importing()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  window.waitForEvaluation();
  const QString summary = window.calibration()->calibrateGemmFromTrace();
  REQUIRE_FALSE(summary.isEmpty());
  CHECK(summary.contains(QStringLiteral("GEMM efficiency")));
  REQUIRE(window.project().efficiency_keys.size() == 1);
  CHECK(window.project().efficiency_keys.front().first == "gemm");
  window.undoStack()->undo();
  CHECK(window.project().efficiency_keys.empty());
}

TEST_CASE("main window: a launcher config imports as the project, exports back, and a broken one changes nothing") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  ui::MainWindow window(project_or_fail());
  window.waitForEvaluation();
  const std::string configs = std::string(MESHSCOPE_SHARED_DIR) + "/data/launcher_configs/";
  REQUIRE(
      window.imports()->importLauncherConfig(QString::fromStdString(configs + "megatron_train_llama3_8b_h100_fp8.sh")));
  window.waitForEvaluation();
  CHECK(window.project().model.num_layers == 32);
  CHECK(window.project().gpu_count == 8);
  CHECK(window.project().training.compute_dtype == DType::fp8);
  CHECK(window.inlineError().isEmpty());
  REQUIRE(window.evaluation());
  CHECK(window.evaluation()->problems.empty());

  const QString toml = dir.filePath(QStringLiteral("layout.toml"));
  REQUIRE(window.exports()->exportLauncherConfig(LauncherFormat::torchtitan, toml));
  auto text = read_text_file(toml.toStdString());
  REQUIRE(text);
  CHECK(text->find("data_parallel_replicate_degree = 8") != std::string::npos);
  const QString script = dir.filePath(QStringLiteral("layout.sh"));
  REQUIRE(window.exports()->exportLauncherConfig(LauncherFormat::megatron, script));
  const Project before = window.project();
  REQUIRE(window.imports()->importLauncherConfig(script));
  window.waitForEvaluation();
  CHECK(window.project() == before);

  const QString broken = dir.filePath(QStringLiteral("broken.toml"));
  QFile file(broken);
  REQUIRE(file.open(QIODevice::WriteOnly));
  file.write("[parallelism\ntensor_parallel_degree = 2\n");
  file.close();
  CHECK_FALSE(window.imports()->importLauncherConfig(broken));
  CHECK(window.inlineError().contains(QStringLiteral("broken.toml")));
  CHECK(window.project() == before);
}

// examples/pipeline-deepseek-v3-b200.json: Megatron-Bridge's PP 16 layout of DeepSeek-V3 with its
// MTP layer (recipes/deepseek/deepseek_v3.py layout_map (16, 1)), edited in the layout form.
TEST_CASE("main window: the layout form edits a Megatron pipeline layout; a wrong one is shown inline") {
  const Project project = example_project("pipeline-deepseek-v3-b200.json");
  REQUIRE(project.layout.pipeline_layout == "Et*4|(t*4|)*14tmL");
  ui::MainWindow window(project);
  window.waitForEvaluation();
  REQUIRE(window.evaluation());
  REQUIRE(window.evaluation()->estimate);
  const std::vector<double> busy = window.evaluation()->estimate->schedule.busy_s;
  REQUIRE(busy.size() == 16);
  ui::KeyForm* form = window.workloadPanel()->layoutForm();
  REQUIRE(form->editor("pp_layout") != nullptr);
  const QString shots = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  if (!shots.isEmpty()) CHECK(form->grab().save(QDir(shots).filePath(QStringLiteral("layout-form.png"))));

  // Without the MTP layer the last stage is lighter; the others do not change.
  REQUIRE(form->setValue("pp_layout", QStringLiteral("Et*4|(t*4|)*14tL")));
  window.waitForEvaluation();
  REQUIRE(window.evaluation()->estimate);
  CHECK(window.evaluation()->estimate->schedule.busy_s.back() < busy.back());
  CHECK(window.evaluation()->estimate->schedule.busy_s[8] == Approx(busy[8]).epsilon(1e-6));
  // 60 layers placed: the evaluation lists the problem (shown in the workload panel's status).
  REQUIRE(form->setValue("pp_layout", QStringLiteral("Et*4|(t*4|)*14L")));
  window.waitForEvaluation();
  const auto& problems = window.evaluation()->problems;
  CHECK(std::any_of(problems.begin(), problems.end(), [](const LayoutProblem& p) {
    return p.field == "pp_layout" && p.message.find("60 transformer layers") != std::string::npos;
  }));
  // A layout that does not parse is refused at the form, naming the key.
  REQUIRE(form->setValue("pp_layout", QStringLiteral("Et*4|(t*4|*14tmL")));
  window.waitForEvaluation();
  CHECK(window.workloadPanel()->inputError().contains(QStringLiteral("pp_layout")));
  CHECK(window.project().layout.pp == 16);
}
