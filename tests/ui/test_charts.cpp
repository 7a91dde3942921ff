// The memory-budget chart and the serving latency–throughput chart, over budgets and estimates the
// core computes for real configurations: the default project (Llama-3.1-70B, TP 8 · PP 4 (v 5) ·
// DP 2 · SP on H100 SXM5), a Llama-3.1-70B serving budget, the same model trained on one L40S (it
// does not fit), and Llama-3.1-70B served on one DGX H100 at two layouts. The charts must draw
// exactly what the core computed: every value here is read from the core's result in the test.
//
// Set MESHSCOPE_CHART_PNG_DIR to a folder to keep the rendered charts as PNG files.
#include <catch2/catch.hpp>

#include <QDir>
#include <QImage>
#include <QRadioButton>
#include <QSignalSpy>
#include <QToolTip>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QStackedBarSeries>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"
#include "qt_catch.hpp"
#include "ui/charts/memory_chart.hpp"
#include "ui/charts/serving_chart.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/kit/formatting.hpp"

using namespace meshscope;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using meshscope::test::QtWarningRecorder;

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string text(const QString& value) {
  return value.toStdString();
}

std::shared_ptr<const MemoryBudget> default_training_budget() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  REQUIRE(project->mode == Mode::training);
  return std::make_shared<const MemoryBudget>(
      training_memory(project->model, project->training, project->layout, project->gpu));
}

// The default project's model and serving workload (prompt 2048, output 512, 64 sequences) on
// TP 4 · PP 2 of H100s: two pipeline stages, two distinct ranks.
std::shared_ptr<const MemoryBudget> serving_budget() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  Layout layout;
  layout.tp = 4;
  layout.pp = 2;
  return std::make_shared<const MemoryBudget>(serving_memory(project->model, project->serving, layout, project->gpu));
}

// The default project at PP 8 without interleaving: every stage holds a different number of
// in-flight micro-batches (1F1B), so eight distinct ranks.
std::shared_ptr<const MemoryBudget> eight_stage_budget() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  Layout layout = project->layout;
  layout.pp = 8;
  layout.vpp = 1;
  layout.dp = 1;
  return std::make_shared<const MemoryBudget>(training_memory(project->model, project->training, layout, project->gpu));
}

// Llama-3.1-70B trained without any parallelism on one 48 GB L40S: ~140 GB of bf16 weights alone.
std::shared_ptr<const MemoryBudget> overflowing_budget() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  const Result<GpuSpec> l40s = find_gpu("l40s");
  REQUIRE(l40s);
  Layout layout;  // TP 1 · PP 1 · DP 1
  return std::make_shared<const MemoryBudget>(training_memory(project->model, project->training, layout, *l40s));
}

// `meshscope-cli serve --model llama3.1-70b --cluster dgx-h100:nodes=1 --layout tp=8` and
// `--layout tp=4,replicas=2` with the default project's serving workload.
const std::vector<ui::ServingCurve>& llama70b_curves() {
  static const std::vector<ui::ServingCurve> curves = [] {
    const Result<ModelSpec> model = model_preset("llama3.1-70b");
    REQUIRE(model);
    const Result<Cluster> cluster = resolve_cluster("dgx-h100:nodes=1");
    REQUIRE(cluster);
    const Router router(*cluster);
    const Result<Project> project = default_project();
    REQUIRE(project);
    std::vector<ui::ServingCurve> out;
    for (const auto& [tp, replicas] : {std::pair<int64_t, int64_t>{8, 1}, std::pair<int64_t, int64_t>{4, 2}}) {
      ServingLayout layout;
      layout.tp = tp;
      layout.replicas = replicas;
      Result<ServingEstimate> estimate =
          estimate_serving(*model, project->serving, ServingTraffic{}, layout, *cluster, router);
      REQUIRE(estimate);
      REQUIRE(estimate->curve.size() >= 3);
      out.push_back({QString(), layout, std::move(*estimate)});
    }
    return out;
  }();
  return curves;
}

const MemoryItem& item_of(const RankMemory& rank, MemoryCategory category) {
  const auto item = std::find_if(rank.items.begin(), rank.items.end(),
                                 [&](const MemoryItem& candidate) { return candidate.category == category; });
  REQUIRE(item != rank.items.end());
  return *item;
}

// Renders a widget at a size; keeps a PNG when MESHSCOPE_CHART_PNG_DIR names a folder.
QImage render(QWidget& widget, QSize size, const QString& name) {
  widget.resize(size);
  QImage image = widget.grab().toImage();  // lays the widget out at that size first
  const QString folder = qEnvironmentVariable("MESHSCOPE_CHART_PNG_DIR");
  if (!folder.isEmpty())
    image.save(QDir(folder).filePath(QStringLiteral("%1-%2x%3.png").arg(name).arg(size.width()).arg(size.height())));
  return image;
}

}  // namespace

// ---- memory chart ------------------------------------------------------------------------------

TEST_CASE("memory chart: one bar per distinct rank and one stack per category in use") {
  const auto budget = default_training_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  REQUIRE(chart.barCount() == static_cast<int>(budget->ranks.size()));
  REQUIRE(chart.barCount() >= 2);

  QStringList expected;
  for (int c = 0; c < kMemoryCategoryCount; ++c) {
    const auto category = static_cast<MemoryCategory>(c);
    const bool used = std::any_of(budget->ranks.begin(), budget->ranks.end(),
                                  [&](const RankMemory& rank) { return rank.bytes(category) > 0; });
    if (used) expected << ui::category_label(category);
  }
  CHECK(chart.setLabels() == expected);
  // Training holds no KV cache, so it has no stack.
  CHECK_FALSE(chart.setLabels().contains(ui::category_label(MemoryCategory::kv_cache)));
  CHECK_FALSE(chart.segmentGib(0, MemoryCategory::kv_cache));
}

TEST_CASE("memory chart: every segment is the item's bytes in GiB") {
  const auto budget = GENERATE(default_training_budget(), serving_budget());
  ui::MemoryChart chart;
  chart.setBudget(budget);
  for (size_t bar = 0; bar < budget->ranks.size(); ++bar) {
    const RankMemory& rank = budget->ranks[bar];
    for (const MemoryItem& item : rank.items) {
      if (item.bytes <= 0) continue;
      const std::optional<double> drawn = chart.segmentGib(static_cast<int>(bar), item.category);
      INFO(rank.role << " " << category_name(item.category));
      REQUIRE(drawn);
      CHECK_THAT(*drawn, WithinRel(item.bytes / kBytesPerGib, 1e-12));
    }
  }
}

TEST_CASE("memory chart: the serving budget stacks weights, KV cache and workspace") {
  const auto budget = serving_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  CHECK(chart.barCount() == 2);  // first and last stage of PP 2
  const QStringList sets = chart.setLabels();
  CHECK(sets.contains(ui::category_label(MemoryCategory::parameters)));
  CHECK(sets.contains(ui::category_label(MemoryCategory::kv_cache)));
  CHECK(sets.contains(ui::category_label(MemoryCategory::temporary)));
  CHECK_FALSE(sets.contains(ui::category_label(MemoryCategory::gradients)));
  CHECK_FALSE(sets.contains(ui::category_label(MemoryCategory::optimizer_state)));
}

TEST_CASE("memory chart: the capacity line is drawn at the GPU's capacity") {
  const auto budget = default_training_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  // H100 SXM5: 80 GB of HBM3 (NVIDIA H100 datasheet), binary GB as nvidia-smi reports them.
  REQUIRE(chart.capacityLineGib());
  CHECK_THAT(*chart.capacityLineGib(), WithinRel(80.0, 1e-12));
  CHECK_THAT(*chart.capacityLineGib(), WithinRel(budget->capacity_bytes / kBytesPerGib, 1e-12));
  // Training may use the whole GPU: no separate usable line.
  CHECK_FALSE(chart.usableLineGib());
  CHECK(chart.spec().axis_max_gib >= 80.0);
}

TEST_CASE("memory chart: a usable share below the capacity gets its own line and sets the headroom") {
  // The core's budgets use the whole GPU today; an engine limit (vLLM's gpu_memory_utilization)
  // would lower usable_bytes, and the chart must then measure headroom against it.
  auto budget = std::make_shared<MemoryBudget>(*serving_budget());
  budget->usable_bytes = 0.5 * budget->capacity_bytes;
  ui::MemoryChart chart;
  chart.setBudget(budget);
  render(chart, {900, 450}, QStringLiteral("memory-usable"));
  REQUIRE(chart.usableLineGib());
  CHECK_THAT(*chart.usableLineGib(), WithinRel(0.5 * budget->capacity_bytes / kBytesPerGib, 1e-12));
  CHECK_THAT(*chart.capacityLineGib(), WithinRel(budget->capacity_bytes / kBytesPerGib, 1e-12));
  const double free_bytes = budget->usable_bytes - budget->ranks.front().total_bytes();
  CHECK(chart.headroomText(0) == QStringLiteral("+%1 free").arg(ui::gib_text(free_bytes)));
}

TEST_CASE("memory chart: a rank that fits shows its free memory, one that does not shows the overflow in red") {
  ui::MemoryChart chart;
  const auto fitting = default_training_budget();
  REQUIRE(fitting->fits());
  chart.setBudget(fitting);
  render(chart, {900, 450}, QStringLiteral("memory-headroom"));  // wide enough for the long texts
  for (int bar = 0; bar < chart.barCount(); ++bar) {
    const double free_bytes = fitting->usable_bytes - fitting->ranks[static_cast<size_t>(bar)].total_bytes();
    CHECK(chart.headroomText(bar) == QStringLiteral("+%1 free").arg(ui::gib_text(free_bytes)));
    CHECK_FALSE(chart.headroomIsOverflow(bar));
  }

  const auto overflowing = overflowing_budget();
  REQUIRE_FALSE(overflowing->fits());
  chart.setBudget(overflowing);
  render(chart, {900, 450}, QStringLiteral("memory-overflow"));
  REQUIRE(chart.barCount() == 1);
  const double over_bytes = overflowing->ranks.front().total_bytes() - overflowing->usable_bytes;
  CHECK(over_bytes > 100 * kBytesPerGib);
  CHECK(chart.headroomText(0) == QStringLiteral("%1 over").arg(ui::gib_text(over_bytes)));
  CHECK(chart.headroomIsOverflow(0));
  CHECK_FALSE(chart.spec().fits);
  // The axis reaches above the overflowing bar.
  CHECK(chart.spec().axis_max_gib * kBytesPerGib >= overflowing->peak_total_bytes());
}

TEST_CASE("memory chart: a segment's tooltip gives the category, exact bytes and the formula") {
  const auto budget = default_training_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  const RankMemory& first = budget->ranks.front();
  for (MemoryCategory category :
       {MemoryCategory::parameters, MemoryCategory::optimizer_state, MemoryCategory::activations}) {
    const MemoryItem& item = item_of(first, category);
    REQUIRE_FALSE(item.formula.empty());
    const QString tip = chart.segmentToolTip(0, category);
    CHECK_THAT(text(tip), Contains(text(ui::category_label(category))));
    CHECK_THAT(text(tip), Contains(text(ui::rank_label(first).toHtmlEscaped())));
    CHECK_THAT(text(tip), Contains(text(ui::gib_text(item.bytes))));
    CHECK_THAT(text(tip), Contains(text(ui::exact_bytes_text(item.bytes))));
    CHECK_THAT(text(tip), Contains(text(QString::fromStdString(item.formula).toHtmlEscaped())));
  }
}

TEST_CASE("memory chart: hovering a segment shows its tooltip") {
  const auto budget = default_training_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  render(chart, {900, 450}, QStringLiteral("memory-hover"));
  QStackedBarSeries* series = nullptr;
  for (QAbstractSeries* candidate : chart.chart()->series())
    if (auto* bars = qobject_cast<QStackedBarSeries*>(candidate)) series = bars;
  REQUIRE(series);
  QBarSet* parameters = series->barSets().front();
  REQUIRE(parameters->label() == ui::category_label(MemoryCategory::parameters));
  emit parameters->hovered(true, 1);
  CHECK(QToolTip::isVisible());
  CHECK(QToolTip::text() == chart.segmentToolTip(1, MemoryCategory::parameters));
  emit parameters->hovered(false, 1);
  QToolTip::hideText();
}

TEST_CASE("memory chart: narrow bars are labelled by their stages alone") {
  const auto budget = eight_stage_budget();
  REQUIRE(budget->ranks.size() == 8);
  ui::MemoryChart chart;
  chart.setBudget(budget);
  render(chart, {1600, 1000}, QStringLiteral("memory-eight-stages-wide"));
  CHECK(chart.barLabels().front() == QStringLiteral("first stage (0)"));
  render(chart, {900, 450}, QStringLiteral("memory-eight-stages-narrow"));
  CHECK(chart.barLabels().front() == QStringLiteral("stage 0"));
  CHECK(chart.barLabels().back() == QStringLiteral("stage 7"));
}

TEST_CASE("memory chart: eight bars in the main window's narrow chart keep every label apart") {
  // 350 px is the chart's width beside the table in a 1600-px window: "stage 7" and "+32.7 GiB" do
  // not fit in a bar's slot there and overlapped their neighbours.
  const auto budget = eight_stage_budget();
  ui::MemoryChart chart;
  chart.setBudget(budget);
  render(chart, {350, 520}, QStringLiteral("memory-eight-stages-tiny"));
  CHECK(chart.barLabels().front() == QStringLiteral("0"));
  CHECK(chart.barLabels().back() == QStringLiteral("7"));
  // No room even for "+37" over a 17-px bar: no headroom labels (the tooltips carry them) ...
  CHECK(chart.headroomText(0).isEmpty());
  // ... and at 520 px the bare number in GiB.
  render(chart, {520, 520}, QStringLiteral("memory-eight-stages-small"));
  const double free_gib = (budget->usable_bytes - budget->ranks.front().total_bytes()) / kBytesPerGib;
  CHECK(chart.headroomText(0) == QStringLiteral("+%1").arg(free_gib, 0, 'f', 0));
}

TEST_CASE("memory chart: renders at a small and a large size without Qt warnings") {
  const QtWarningRecorder recorder;
  for (const auto& [name, budget] : {std::pair{QStringLiteral("memory-training"), default_training_budget()},
                                     std::pair{QStringLiteral("memory-serving"), serving_budget()},
                                     std::pair{QStringLiteral("memory-overflow"), overflowing_budget()},
                                     std::pair{QStringLiteral("memory-eight-stages"), eight_stage_budget()}}) {
    for (const QSize size : {QSize(900, 450), QSize(1600, 1000)}) {
      ui::MemoryChart chart;
      chart.setBudget(budget);
      const QImage image = render(chart, size, name);
      CHECK(image.size() == size);
      // The middle of each bar's parameters segment has the parameters' colour.
      for (int bar = 0; bar < chart.barCount(); ++bar) {
        const std::optional<QPoint> centre = chart.segmentCentre(bar, MemoryCategory::parameters);
        REQUIRE(centre);
        CHECK(image.pixelColor(*centre) == ui::memory_category_colour(MemoryCategory::parameters));
      }
    }
  }
  CHECK(recorder.warnings().isEmpty());
}

TEST_CASE("memory chart: no budget draws no bars") {
  ui::MemoryChart chart;
  chart.setBudget(default_training_budget());
  chart.setBudget(nullptr);
  CHECK(chart.barCount() == 0);
  CHECK(chart.setLabels().isEmpty());
  CHECK_FALSE(chart.capacityLineGib());
}

// ---- serving chart -----------------------------------------------------------------------------

TEST_CASE("serving chart: one line per layout through the curve's points, throughput per GPU against ITL") {
  const auto& curves = llama70b_curves();
  ui::ServingCurveChart chart;
  chart.setCurves(curves);
  REQUIRE(chart.seriesCount() == 2);
  CHECK(chart.seriesName(0) == QStringLiteral("TP 8 \u00d7 1 replica (8 GPUs)"));
  CHECK(chart.seriesName(1) == QStringLiteral("TP 4 \u00d7 2 replicas (8 GPUs)"));
  for (int s = 0; s < 2; ++s) {
    const ServingEstimate& estimate = curves[static_cast<size_t>(s)].estimate;
    const std::vector<QPointF> points = chart.seriesPoints(s);
    REQUIRE(points.size() == estimate.curve.size());
    for (size_t i = 0; i < points.size(); ++i) {
      CHECK_THAT(points[i].x(), WithinRel(estimate.curve[i].output_tokens_per_s / 8.0, 1e-12));
      CHECK_THAT(points[i].y(), WithinRel(1e3 * estimate.curve[i].itl_s, 1e-12));
    }
  }
  // Concurrency doubles from 1 to the largest batch: throughput spans more than a decade.
  CHECK(chart.logX());
}

TEST_CASE("serving chart: the target is a line at the target latency of the metric shown") {
  ui::ServingCurveChart chart;
  chart.setCurves(llama70b_curves());
  CHECK_FALSE(chart.targetLineMs());  // no target set
  ServingTarget target;
  target.max_itl_s = 0.050;
  target.max_ttft_s = 0.200;
  chart.setTarget(target);
  REQUIRE(chart.targetLineMs());
  CHECK_THAT(*chart.targetLineMs(), WithinRel(50.0, 1e-12));
  CHECK(chart.spec().y_max >= 50.0);
  chart.setMetric(ui::ServingMetric::ttft);
  REQUIRE(chart.targetLineMs());
  CHECK_THAT(*chart.targetLineMs(), WithinRel(200.0, 1e-12));
}

TEST_CASE("serving chart: switching to TTFT plots each point's time to first token") {
  const auto& curves = llama70b_curves();
  ui::ServingCurveChart chart;
  chart.setCurves(curves);
  QSignalSpy spy(&chart, &ui::ServingCurveChart::metricChanged);
  const std::vector<QPointF> itl = chart.seriesPoints(0);
  // The switch in the widget's header does what setMetric does.
  QRadioButton* ttft_button = nullptr;
  for (QRadioButton* button : chart.findChildren<QRadioButton*>())
    if (button->text() == QStringLiteral("TTFT")) ttft_button = button;
  REQUIRE(ttft_button);
  ttft_button->click();
  CHECK(chart.metric() == ui::ServingMetric::ttft);
  CHECK(spy.count() == 1);
  CHECK(chart.spec().y_title == QStringLiteral("TTFT (ms)"));
  const std::vector<QPointF> ttft = chart.seriesPoints(0);
  REQUIRE(ttft.size() == itl.size());
  const ServingEstimate& estimate = curves.front().estimate;
  for (size_t i = 0; i < ttft.size(); ++i) {
    CHECK(ttft[i].x() == itl[i].x());  // same operating points
    CHECK_THAT(ttft[i].y(), WithinRel(1e3 * estimate.curve[i].ttft_s, 1e-12));
  }
  chart.setMetric(ui::ServingMetric::itl);
  CHECK(chart.seriesPoints(0) == itl);
  CHECK(spy.count() == 2);
}

TEST_CASE("serving chart: a point's tooltip names concurrency, TTFT, ITL, throughput and the binding") {
  const auto& curves = llama70b_curves();
  ui::ServingCurveChart chart;
  chart.setCurves(curves);
  const ServingEstimate& estimate = curves.front().estimate;
  for (size_t i = 0; i < estimate.curve.size(); ++i) {
    const ServingPoint& point = estimate.curve[i];
    const QString tip = chart.pointToolTip(0, static_cast<int>(i));
    const std::string_view binding = serving_binding_name(point.binding);
    CHECK_THAT(text(tip), Contains(text(QStringLiteral("concurrency %1 per replica").arg(point.concurrency))));
    CHECK_THAT(text(tip), Contains(text(QStringLiteral("TTFT %1").arg(ui::duration_text(point.ttft_s)))));
    CHECK_THAT(text(tip), Contains(text(QStringLiteral("ITL %1").arg(ui::duration_text(point.itl_s)))));
    CHECK_THAT(text(tip), Contains(text(QStringLiteral("output tokens/s per GPU"))));
    CHECK_THAT(text(tip),
               Contains(text(
                   QString::fromLatin1(binding.data(), static_cast<qsizetype>(binding.size())).replace(u'_', u' '))));
  }
}

TEST_CASE("serving chart: hovering near a point shows that point's tooltip") {
  ui::ServingCurveChart chart;
  chart.setCurves(llama70b_curves());
  render(chart, {900, 450}, QStringLiteral("serving-hover"));
  QLineSeries* second = nullptr;
  for (QAbstractSeries* series : chart.findChild<QChartView*>()->chart()->series())
    if (series->name() == chart.seriesName(1)) second = qobject_cast<QLineSeries*>(series);
  REQUIRE(second);
  const std::vector<QPointF> points = chart.seriesPoints(1);
  // A hover a little off the third point (on the line towards the fourth) names the third.
  const QPointF near_third = points[2] + 0.05 * (points[3] - points[2]);
  emit second->hovered(near_third, true);
  CHECK(QToolTip::isVisible());
  CHECK(QToolTip::text() == chart.pointToolTip(1, 2));
  QSignalSpy clicked(&chart, &ui::ServingCurveChart::pointClicked);
  emit second->clicked(near_third);
  REQUIRE(clicked.count() == 1);
  CHECK(clicked.front().at(0).toInt() == 1);
  CHECK(clicked.front().at(1).value<int64_t>() == llama70b_curves()[1].estimate.curve[2].concurrency);
  emit second->hovered(near_third, false);
  QToolTip::hideText();
}

TEST_CASE("serving chart: renders at a small and a large size without Qt warnings") {
  const QtWarningRecorder recorder;
  ServingTarget target;
  target.max_itl_s = 0.050;
  target.max_ttft_s = 0.200;
  for (const ui::ServingMetric metric : {ui::ServingMetric::itl, ui::ServingMetric::ttft}) {
    for (const QSize size : {QSize(900, 450), QSize(1600, 1000)}) {
      ui::ServingCurveChart chart;
      chart.setCurves(llama70b_curves());
      chart.setTarget(target);
      chart.setMetric(metric);
      const QImage image =
          render(chart, size,
                 metric == ui::ServingMetric::itl ? QStringLiteral("serving-itl") : QStringLiteral("serving-ttft"));
      CHECK(image.size() == size);
    }
  }
  CHECK(recorder.warnings().isEmpty());
}
