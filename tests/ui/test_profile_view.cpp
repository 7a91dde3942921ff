// The profile view (ui/profile/profile_view.hpp) on the real traces of ../shared/data/kineto_traces: importing fills
// the step and collective tables with the importer's own numbers (read here straight from load_kineto_trace and
// analyze_kineto_run), the comparison table shows compare_trace's rows and errors, a truncated copy of a real trace
// is reported inline, and an import can be cancelled. Every model runs under QAbstractItemModelTester.
#include <zlib.h>

#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QSignalSpy>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/training_log.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/session/trace_prediction.hpp"
#include "core/topology/generators.hpp"
#include "qt_catch.hpp"
#include "ui/profile/profile_view.hpp"

using namespace meshscope;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using meshscope::test::QtWarningRecorder;
using meshscope::ui::LogComparisonModel;
using meshscope::ui::ProfileCollectiveModel;
using meshscope::ui::ProfileStepModel;
using meshscope::ui::ProfileView;
using meshscope::ui::TraceComparisonModel;

namespace {

constexpr int kImportTimeoutMs = 120000;  // the largest shared trace takes seconds in a debug build

// ../shared beside the repository (DESIGN.md), unless the build or the environment says where it is.
std::string shared_dir() {
  if (const QString dir = qEnvironmentVariable("MESHSCOPE_SHARED_DIR"); !dir.isEmpty()) return dir.toStdString();
#ifdef MESHSCOPE_SHARED_DIR
  return MESHSCOPE_SHARED_DIR;
#else
  return (std::filesystem::path(__FILE__).parent_path() / "../../../shared").lexically_normal().string();
#endif
}

QString trace_path(const std::string& name) {
  return QString::fromStdString(shared_dir() + "/data/kineto_traces/" + name);
}

const char* const kTwoRankA100 = "hta_nccl_data_rank0_ws2_A100.json.gz";

std::shared_ptr<const KinetoRunAnalysis> analyse(const std::vector<QString>& paths) {
  std::vector<KinetoTrace> traces;
  for (const QString& path : paths) {
    auto trace = load_kineto_trace(path.toStdString());
    if (!trace) FAIL(trace.error().to_string());
    traces.push_back(std::move(*trace));
  }
  return std::make_shared<const KinetoRunAnalysis>(analyze_kineto_run(traces));
}

struct Prediction {
  StepEstimate estimate;
  Layout layout;
  Cluster cluster;
};

// GPT-2 small, data parallel over `dp` ranks: the traces' own models are not LLM presets (see test_trace_compare).
Prediction gpt2_prediction(const std::string& cluster_spec, int64_t dp) {
  auto model = resolve_model("gpt2");
  REQUIRE(model);
  auto cluster = resolve_cluster(cluster_spec);
  REQUIRE(cluster);
  TrainingWorkload workload;
  workload.seq_len = 1024;
  workload.global_batch = 16;
  Layout layout;
  layout.dp = dp;
  const Router router(*cluster);
  auto estimate = estimate_step(*model, workload, layout, *cluster, router);
  REQUIRE(estimate);
  return {*estimate, layout, *cluster};
}

// An evaluation with `p` as its prediction and the comparisons of `runs` against it, as the evaluator's worker
// makes it (core/session/trace_prediction.hpp).
std::shared_ptr<const Evaluation> evaluation_of(const Prediction& p, const MeasuredRuns& runs) {
  Evaluation evaluation;
  evaluation.project.layout = p.layout;
  evaluation.estimate = std::make_shared<const StepEstimate>(p.estimate);
  evaluation.cluster = std::make_shared<const Cluster>(p.cluster);
  evaluation.measured = std::make_shared<const TracePrediction>(compare_with_prediction(runs, evaluation));
  return std::make_shared<const Evaluation>(std::move(evaluation));
}

double value(const QAbstractItemModel& model, int row, int column) {
  return model.data(model.index(row, column), ProfileStepModel::ValueRole).toDouble();
}

std::string gunzip(const QString& path) {
  gzFile file = gzopen(path.toStdString().c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  gzclose(file);
  return out;
}

bool wait_for_import(ProfileView& view) {
  QSignalSpy ended(&view, &ProfileView::importEnded);
  return view.isImporting() ? ended.wait(kImportTimeoutMs) : true;
}

}  // namespace

TEST_CASE("profile view: importing a real trace fills the step and collective tables with the importer's numbers") {
  const QtWarningRecorder recorder;
  ProfileView view;
  const QAbstractItemModelTester steps_tester(view.stepModel(),
                                              QAbstractItemModelTester::FailureReportingMode::Warning);
  const QAbstractItemModelTester collectives_tester(view.collectiveModel(),
                                                    QAbstractItemModelTester::FailureReportingMode::Warning);
  QSignalSpy imported(&view, &ProfileView::imported);
  view.startImport({trace_path(kTwoRankA100)});
  REQUIRE(view.isImporting());
  REQUIRE(wait_for_import(view));
  REQUIRE(imported.count() == 1);
  CHECK_FALSE(view.isImporting());
  CHECK(view.messageText().isEmpty());

  const auto expected = analyse({trace_path(kTwoRankA100)});
  REQUIRE(expected->ranks.size() == 1);
  const KinetoRankAnalysis& rank = expected->ranks.front();
  const ProfileStepModel& steps = *view.stepModel();
  REQUIRE(steps.rowCount() == static_cast<int>(rank.steps.size()));
  for (int r = 0; r < steps.rowCount(); ++r) {
    const KinetoStepBreakdown& s = rank.steps[static_cast<size_t>(r)];
    CHECK(steps.data(steps.index(r, ProfileStepModel::kStep)).toString() == QString::fromStdString(s.name));
    CHECK(value(steps, r, ProfileStepModel::kStepTime) == s.duration_us * 1e-6);
    CHECK(value(steps, r, ProfileStepModel::kCompute) == s.compute_us * 1e-6);
    CHECK(value(steps, r, ProfileStepModel::kCommunication) == s.communication_us * 1e-6);
    CHECK(value(steps, r, ProfileStepModel::kExposed) == s.exposed_communication_us * 1e-6);
    CHECK(value(steps, r, ProfileStepModel::kIdle) == s.idle_us * 1e-6);
    CHECK(value(steps, r, ProfileStepModel::kGpuEvents) == static_cast<double>(s.gpu_events));
  }
  const ProfileCollectiveModel& collectives = *view.collectiveModel();
  REQUIRE(collectives.rowCount() == static_cast<int>(rank.collectives.size()));
  for (int r = 0; r < collectives.rowCount(); ++r) {
    const KinetoCollectiveSummary& c = rank.collectives[static_cast<size_t>(r)];
    CHECK(collectives.data(collectives.index(r, ProfileCollectiveModel::kOp)).toString() ==
          QString::fromUtf8(collective_op_name(*c.op).data()));
    CHECK(value(collectives, r, ProfileCollectiveModel::kCount) == static_cast<double>(c.count));
    CHECK(value(collectives, r, ProfileCollectiveModel::kBytes) == c.bytes);
    CHECK(value(collectives, r, ProfileCollectiveModel::kTime) == c.time_us * 1e-6);
    CHECK(value(collectives, r, ProfileCollectiveModel::kAlgbw) == c.algbw_bytes_per_s);
    CHECK(value(collectives, r, ProfileCollectiveModel::kBusbw) == c.busbw_bytes_per_s);
  }
  // The chart: one bar for the one rank, each segment the mean over its steps in ms.
  const auto& spec = view.chartSpec();
  REQUIRE(spec.bar_labels == QStringList{QStringLiteral("0")});
  double compute_ms = 0;
  for (const auto& s : rank.steps) compute_ms += s.compute_us * 1e-3;
  compute_ms /= static_cast<double>(rank.steps.size());
  CHECK_THAT(spec.sets[0].ms.at(0), WithinRel(compute_ms, 1e-12));
  CHECK(view.drawnValues(0) == spec.sets[0].ms);

  view.clear();
  CHECK(view.stepModel()->rowCount() == 0);
  CHECK(view.collectiveModel()->rowCount() == 0);
  CHECK(recorder.warnings().isEmpty());
}

TEST_CASE("profile view: with a prediction, the comparison table shows compare_trace's rows and errors") {
  const QtWarningRecorder recorder;
  ProfileView view;
  const QAbstractItemModelTester tester(view.comparisonModel(),
                                        QAbstractItemModelTester::FailureReportingMode::Warning);
  const auto run = analyse({trace_path(kTwoRankA100)});
  const Prediction p = gpt2_prediction("dgx-a100:gpu=a100-40gb-sxm", 2);
  view.setTrace(run);
  CHECK(view.comparisonModel()->rowCount() == 0);
  view.showEvaluation(evaluation_of(p, {run, nullptr}));
  REQUIRE(view.comparison());

  auto expected = compare_trace(*run, p.estimate, p.layout, p.cluster);
  REQUIRE(expected);
  const TraceComparisonModel& model = *view.comparisonModel();
  REQUIRE(model.rowCount() == static_cast<int>(expected->rows.size()));
  for (int r = 0; r < model.rowCount(); ++r) {
    const TraceCompareRow& row = expected->rows[static_cast<size_t>(r)];
    CAPTURE(row.quantity);
    CHECK(model.data(model.index(r, TraceComparisonModel::kQuantity)).toString() ==
          QString::fromStdString(row.quantity));
    const double measured = value(model, r, TraceComparisonModel::kMeasured);
    CHECK(measured == row.measured);
    if (row.predicted && measured > 0) {
      const double predicted = value(model, r, TraceComparisonModel::kPredicted);
      CHECK(predicted == *row.predicted);
      CHECK_THAT(value(model, r, TraceComparisonModel::kError), WithinAbs(predicted / measured - 1, 1e-12));
    }
  }
  // The chart gains a "predicted" bar with the estimate's compute.
  const auto& spec = view.chartSpec();
  REQUIRE(spec.bar_labels.size() == 2);
  CHECK(spec.bar_labels.back() == QStringLiteral("predicted"));
  CHECK_THAT(spec.sets[0].ms.back(), WithinRel(predicted_compute_s(p.estimate) * 1e3, 1e-12));
  CHECK_THAT(spec.sets[2].ms.back(), WithinAbs(p.estimate.breakdown.bubble_s * 1e3, 1e-12));

  SECTION("a prediction for another world size is reported inline; the measured side stays") {
    const Prediction wrong = gpt2_prediction("dgx-a100", 8);
    view.showEvaluation(evaluation_of(wrong, {run, nullptr}));
    CHECK(view.messageIsError());
    CHECK(view.messageText().contains(QStringLiteral("ran on 2 ranks")));
    CHECK(view.comparisonModel()->rowCount() == 0);
    CHECK(view.stepModel()->rowCount() == static_cast<int>(run->ranks.front().steps.size()));
    const QString dir = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
      view.resize(1400, 800);
      CHECK(view.grab().save(QDir(dir).filePath(QStringLiteral("profile_view_error.png"))));
    }
    view.showEvaluation(evaluation_of(p, {run, nullptr}));
    CHECK_FALSE(view.messageIsError());
  }
  const QString dir = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) {
    view.resize(1400, 800);
    CHECK(view.grab().save(QDir(dir).filePath(QStringLiteral("profile_view_a100.png"))));
  }
  CHECK(recorder.warnings().isEmpty());
}

TEST_CASE("profile view: an evaluation's comparison of another trace than the one shown is not shown") {
  ProfileView view;
  const auto run = analyse({trace_path(kTwoRankA100)});
  const auto other = analyse({trace_path(kTwoRankA100)});  // the same file imported again: another trace
  const Prediction p = gpt2_prediction("dgx-a100:gpu=a100-40gb-sxm", 2);
  view.setTrace(run);
  view.showEvaluation(evaluation_of(p, {other, nullptr}));
  CHECK_FALSE(view.comparison());
  CHECK(view.comparisonModel()->rowCount() == 0);
  CHECK(view.chartSpec().bar_labels.size() == 1);  // no "predicted" bar
  view.showEvaluation(evaluation_of(p, {run, nullptr}));
  CHECK(view.comparison());
}

TEST_CASE("profile view: a truncated copy of a real trace is reported inline with its file and position") {
  const QString path = QDir::temp().filePath(QStringLiteral("meshscope_test_profile_truncated.json"));
  const std::string json = gunzip(trace_path("hta_mi250_minitoy_train_ROCm6.2.json.gz"));
  {
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(json.data(), static_cast<qint64>(json.size() / 2));
  }
  ProfileView view;
  const auto before = analyse({trace_path(kTwoRankA100)});
  view.setTrace(before);
  QSignalSpy imported(&view, &ProfileView::imported);
  view.startImport({path});
  REQUIRE(wait_for_import(view));
  CHECK(imported.count() == 0);
  CHECK(view.messageIsError());
  const QString message = view.messageText();
  CHECK(message.contains(QStringLiteral("meshscope_test_profile_truncated.json")));
  // The importer's own error, with its position ("file:line:column (byte N): ..."), shown as it is.
  const auto expected = load_kineto_trace(path.toStdString());
  REQUIRE_FALSE(expected);
  CHECK(message.contains(QString::fromStdString(expected.error().to_string())));
  CHECK(message.contains(QStringLiteral("(byte ")));
  // Nothing else changed: the trace shown before is still there.
  CHECK(view.trace() == before);
  CHECK(view.stepModel()->rowCount() == static_cast<int>(before->ranks.front().steps.size()));
  QFile::remove(path);
}

TEST_CASE("profile view: cancelling an import leaves the view as it was") {
  ProfileView view;
  QSignalSpy imported(&view, &ProfileView::imported);
  view.startImport({trace_path("hta_rank1_ws2_V100_with_memory_events.json.gz")});  // 216k events
  REQUIRE(view.isImporting());
  view.cancelImport();
  REQUIRE(wait_for_import(view));
  CHECK(imported.count() == 0);
  CHECK_FALSE(view.isImporting());
  CHECK(view.trace() == nullptr);
  CHECK_FALSE(view.messageIsError());
  CHECK(view.messageText().contains(QStringLiteral("cancelled")));
}

TEST_CASE("profile view: dropped .json and .json.gz files are imported, other files ignored") {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(trace_path(kTwoRankA100)), QUrl::fromLocalFile(QStringLiteral("/tmp/notes.txt")),
                QUrl(QStringLiteral("https://example.org/trace.json"))});
  CHECK(ProfileView::traceFiles(&mime) == QStringList{trace_path(kTwoRankA100)});

  ProfileView view;
  QSignalSpy imported(&view, &ProfileView::imported);
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &enter);
  CHECK(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&view, &drop);
  REQUIRE(wait_for_import(view));
  CHECK(imported.count() == 1);
  REQUIRE(view.trace());
  CHECK(view.trace()->ranks.size() == 1);
}

TEST_CASE("profile view: renders the 8-rank DLRM trace with a prediction") {
  std::vector<QString> paths;
  for (const auto& entry : std::filesystem::directory_iterator(shared_dir() + "/data/kineto_traces/param_dlrm_8rank"))
    paths.push_back(QString::fromStdString(entry.path().string()));
  std::sort(paths.begin(), paths.end());
  ProfileView view;
  const auto run = analyse(paths);
  view.setTrace(run);
  const Prediction p = gpt2_prediction("dgx-a100:gpu=v100-sxm2-32gb", 8);
  view.showEvaluation(evaluation_of(p, {run, nullptr}));
  view.resize(1400, 800);
  view.show();
  QApplication::processEvents();
  const QImage image = view.grab().toImage();
  CHECK(image.width() == 1400);
  CHECK(image.height() == 800);
  const QString dir = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) CHECK(image.save(QDir(dir).filePath(QStringLiteral("profile_view_dlrm.png"))));
  CHECK(view.chartSpec().bar_labels.size() == 9);  // 8 ranks and the prediction
}

TEST_CASE("profile view: a training log is compared with the prediction in its own tab, as compare --log does") {
  const QtWarningRecorder recorder;
  ProfileView view;
  const QAbstractItemModelTester tester(view.logComparisonModel(),
                                        QAbstractItemModelTester::FailureReportingMode::Warning);
  // datacrunch-research/benchmarks: torchtitan's Llama 3 8B preset on 8×H200, FSDP over 8 GPUs, local batch 1,
  // sequence 8192, selective (op) AC (tests/data/shared/PROVENANCE.md).
  auto log =
      load_training_log(shared_dir() + "/data/training_logs/torchtitan_h200_8gpu_llama3_8b_fsdp8_datacrunch.log");
  REQUIRE(log);
  REQUIRE(log->step_time_s);
  auto model = resolve_model("llama3-8b");
  REQUIRE(model);
  auto cluster = resolve_cluster("hgx-h200");
  REQUIRE(cluster);
  auto workload = training_from_keys({{"seq", "8192"}, {"global_batch", "8"}, {"zero", "3"}, {"recompute", "op"}});
  REQUIRE(workload);
  Layout layout;
  layout.dp = 8;
  const Router router(*cluster);
  auto estimate = estimate_step(*model, *workload, layout, *cluster, router);
  REQUIRE(estimate);

  const auto measured = std::make_shared<const MeasuredRun>(*log);
  view.setTrainingLog(measured);
  CHECK(view.logComparisonModel()->rowCount() == 0);  // no prediction yet
  const Prediction prediction{*estimate, layout, *cluster};
  view.showEvaluation(evaluation_of(prediction, {nullptr, measured}));
  REQUIRE(view.logComparison());
  auto expected = compare_training_log(*log, *estimate, layout);
  REQUIRE(expected);
  const auto& model_rows = *view.logComparisonModel();
  REQUIRE(model_rows.rowCount() == static_cast<int>(expected->rows.size()));
  for (int r = 0; r < model_rows.rowCount(); ++r) {
    const LogCompareRow& row = expected->rows[static_cast<size_t>(r)];
    CAPTURE(row.quantity);
    CHECK(model_rows.data(model_rows.index(r, LogComparisonModel::kQuantity)).toString() ==
          QString::fromStdString(row.quantity));
    CHECK(value(model_rows, r, LogComparisonModel::kMeasured) == row.measured);
    if (row.predicted && row.measured > 0)
      CHECK_THAT(value(model_rows, r, LogComparisonModel::kError), WithinAbs(*row.predicted / row.measured - 1, 1e-12));
  }
  // The step-time row measures the log's median after warm-up.
  CHECK(expected->rows.front().measured == log->step_time_s->median);

  // A prediction for another world size: the table empties and the note says why; the log stays.
  Layout other = layout;
  other.dp = 16;
  auto two_nodes = resolve_cluster("hgx-h200:nodes=2");
  REQUIRE(two_nodes);
  const Router router2(*two_nodes);
  auto wrong = estimate_step(*model, *workload, other, *two_nodes, router2);
  REQUIRE(wrong);
  view.showEvaluation(evaluation_of({*wrong, other, *two_nodes}, {nullptr, measured}));
  CHECK_FALSE(view.logComparison());
  CHECK(view.logComparisonModel()->rowCount() == 0);
  CHECK(view.trainingLog() != nullptr);
  const QString dir = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR");
  view.showEvaluation(evaluation_of(prediction, {nullptr, measured}));
  if (!dir.isEmpty()) {
    view.resize(1400, 800);
    CHECK(view.grab().save(QDir(dir).filePath(QStringLiteral("profile_view_log.png"))));
  }
  CHECK(recorder.warnings().isEmpty());
}
