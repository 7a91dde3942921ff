// The ranked layouts view over a real search: the default project's model (Llama-3.1-70B) and
// workload on 8 DGX H100 nodes, the best 20. Every model runs under QAbstractItemModelTester;
// expected values come from the search result the models show, never from the models.
#include <catch2/catch.hpp>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QColor>
#include <QDir>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "core/framework/framework.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "core/topology/generators.hpp"
#include "qt_catch.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/ranked/layout_compare.hpp"
#include "ui/ranked/ranked_layouts_model.hpp"
#include "ui/ranked/ranked_layouts_panel.hpp"

using namespace meshscope;
using meshscope::test::QtWarningRecorder;
using meshscope::ui::LayoutCompareModel;
using meshscope::ui::RankedLayoutsModel;
using meshscope::ui::RejectedLayoutsModel;
using meshscope::ui::ServingLayoutsModel;

namespace {

struct Search {
  Project project;
  Cluster cluster;
  std::shared_ptr<const SearchResult> result;
};

const Search& search() {
  static const Search cached = [] {
    Search s;
    Result<Project> project = default_project();
    REQUIRE(project);
    s.project = *project;
    Result<Cluster> cluster = resolve_cluster("dgx-h100:nodes=8");
    REQUIRE(cluster);
    s.cluster = *cluster;
    SearchOptions options;
    options.top = 20;
    Result<SearchResult> result = rank_layouts(s.project.model, s.project.training, s.cluster, options);
    REQUIRE(result);
    s.result = std::make_shared<const SearchResult>(std::move(*result));
    return s;
  }();
  return cached;
}

double sort_value(const QAbstractItemModel& model, int row, int column) {
  return model.index(row, column).data(ui::SortRole).toDouble();
}

std::vector<double> column_values(const QAbstractItemModel& model, int column) {
  std::vector<double> values;
  for (int row = 0; row < model.rowCount(); ++row) values.push_back(sort_value(model, row, column));
  return values;
}

bool same_layout(const RankedLayout& a, const RankedLayout& b) {
  return layout_to_keys(a.layout) == layout_to_keys(b.layout) && a.recompute == b.recompute &&
         a.zero_stage == b.zero_stage && a.schedule == b.schedule && a.step_time_s == b.step_time_s;
}

// The step estimate and memory of a ranked layout, as the lead computes them for the comparison.
ui::CompareSide compare_side(const QString& label, const RankedLayout& ranked) {
  const Search& s = search();
  TrainingWorkload w = s.project.training;
  w.recompute = ranked.recompute;
  w.zero_stage = ranked.zero_stage;
  w.tp_comm_overlap = ranked.tp_comm_overlap;
  w.schedule = ranked.schedule;
  EstimateOptions options;
  const Router router(s.cluster);
  Result<StepEstimate> estimate = estimate_step(s.project.model, w, ranked.layout, s.cluster, router, options);
  REQUIRE(estimate);
  return {label, *estimate, training_memory(s.project.model, w, ranked.layout, s.project.gpu)};
}

void save_png(QWidget& widget, const QSize& size, const QString& name) {
  widget.resize(size);
  const QImage image = widget.grab().toImage();
  CHECK(image.save(QDir::temp().filePath(name)));
}

}  // namespace

TEST_CASE("ranked layouts: a layout in a known validation gap is marked in the step column and its tooltip") {
  Result<Project> project = default_project();
  REQUIRE(project);
  Result<Cluster> cluster = resolve_cluster("mi300x:nodes=8");  // AMD: the one measured run took 1.8×
  REQUIRE(cluster);
  SearchOptions options;
  options.top = 5;
  Result<SearchResult> result = rank_layouts(project->model, project->training, *cluster, options);
  REQUIRE(result);
  REQUIRE_FALSE(result->layouts.empty());
  RankedLayoutsModel model;
  model.setResult(std::make_shared<const SearchResult>(std::move(*result)), RankObjective::throughput);
  for (int row = 0; row < model.rowCount(); ++row) {
    CHECK(model.index(row, RankedLayoutsModel::kStepTime).data().toString().startsWith(QStringLiteral("\u26a0 ")));
    CHECK(model.index(row, RankedLayoutsModel::kLayout)
              .data(Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("known gap in the validation (")));
  }
  // On DGX H100 nodes the same model's best layout has none (search() above).
  REQUIRE_FALSE(search().result->layouts.empty());
  CHECK(search().result->layouts.front().known_gaps.empty());
}

TEST_CASE("ranked layouts: ties and the frameworks that run each layout are columns of their own") {
  const Search& s = search();
  RankedLayoutsModel model;
  model.setResult(s.result, RankObjective::throughput);
  REQUIRE(model.rowCount() > 1);
  for (int row = 0; row < model.rowCount(); ++row) {
    const RankedLayout& r = s.result->layouts[static_cast<size_t>(row)];
    const auto in_group = std::count_if(s.result->layouts.begin(), s.result->layouts.end(),
                                        [&](const RankedLayout& o) { return o.tie_group == r.tie_group; });
    const QString tie = model.index(row, RankedLayoutsModel::kTie).data().toString();
    CHECK(tie == (in_group > 1 ? QStringLiteral("= %1").arg(r.tie_group) : QString()));
    const QString runs = model.index(row, RankedLayoutsModel::kFrameworks).data().toString();
    // The default project's target is `any`: a layout Megatron-LM runs says so, a zero-bubble one none.
    CHECK(runs.contains(QStringLiteral("Megatron")) == ((r.frameworks & framework_bit(Framework::megatron_lm)) != 0));
    if (r.frameworks == 0) CHECK(runs == QStringLiteral("none"));
    const QString tip = model.index(row, RankedLayoutsModel::kLayout).data(Qt::ToolTipRole).toString();
    CHECK(tip.contains(QStringLiteral("Uncertainty")));
    CHECK(tip.contains(QStringLiteral("Runs in: ")));
  }
}

TEST_CASE("ranked layouts: one row per ranked layout, each cell the search's own number") {
  const QtWarningRecorder recorder;
  const Search& s = search();
  REQUIRE(s.result->layouts.size() == 20);
  RankedLayoutsModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.setResult(s.result, RankObjective::throughput);
  REQUIRE(model.rowCount() == 20);
  for (int row = 0; row < model.rowCount(); ++row) {
    const RankedLayout& r = s.result->layouts[static_cast<size_t>(row)];
    CHECK(sort_value(model, row, RankedLayoutsModel::kStepTime) == r.step_time_s);
    CHECK(sort_value(model, row, RankedLayoutsModel::kTokensPerGpu) == r.tokens_per_s_per_gpu);
    CHECK(sort_value(model, row, RankedLayoutsModel::kMfu) == r.mfu);
    CHECK(sort_value(model, row, RankedLayoutsModel::kPeakMemory) == r.peak_memory_bytes);
    CHECK(sort_value(model, row, RankedLayoutsModel::kHeadroom) == r.headroom_bytes);
    CHECK(sort_value(model, row, RankedLayoutsModel::kBubble) == r.bubble_fraction);
    CHECK(model.index(row, RankedLayoutsModel::kStepTime).data().toString() == ui::duration_text(r.step_time_s));
    CHECK(model.index(row, RankedLayoutsModel::kPeakMemory).data().toString() ==
          ui::binary_bytes_text(r.peak_memory_bytes));
    CHECK(model.index(row, RankedLayoutsModel::kMfu).data().toString() == ui::percent_text(r.mfu));
    const QString layout = model.index(row, RankedLayoutsModel::kLayout).data().toString();
    CHECK(layout.startsWith(ui::layout_summary(r.layout)));
    CHECK(layout.contains(QStringLiteral("ZeRO-%1").arg(r.zero_stage)));
    CHECK(layout.contains(QStringLiteral("mb %1").arg(static_cast<qlonglong>(r.layout.micro_batch))));
    // The tooltip names the objective and, below the best, the gap to it.
    const QString tip = model.index(row, RankedLayoutsModel::kLayout).data(Qt::ToolTipRole).toString();
    CHECK(tip.contains(QStringLiteral("by throughput")));
    CHECK(tip.contains(QStringLiteral("MFU")));
    CHECK(tip.contains(QStringLiteral("headroom")));
    if (row > 0) {
      CHECK(tip.contains(QStringLiteral("behind #1")));
      CHECK(tip.contains(ui::duration_text(s.result->layouts.front().step_time_s)));
    }
  }
  model.setResult(nullptr);
  CHECK(model.rowCount() == 0);
  CHECK(recorder.warnings().join(u'\n') == QString());
}

TEST_CASE("ranked layouts: a proxy sorts by the numeric sort role, not by the text") {
  const QtWarningRecorder recorder;
  const Search& s = search();
  RankedLayoutsModel model;
  model.setResult(s.result);
  QSortFilterProxyModel proxy;
  const QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Warning);
  proxy.setSourceModel(&model);
  proxy.setSortRole(ui::SortRole);

  const auto sorted = [&](auto field, bool ascending) {
    std::vector<double> values;
    for (const RankedLayout& r : s.result->layouts) values.push_back(r.*field);
    std::sort(values.begin(), values.end());
    if (!ascending) std::reverse(values.begin(), values.end());
    return values;
  };
  proxy.sort(RankedLayoutsModel::kStepTime, Qt::AscendingOrder);
  CHECK(column_values(proxy, RankedLayoutsModel::kStepTime) == sorted(&RankedLayout::step_time_s, true));
  proxy.sort(RankedLayoutsModel::kStepTime, Qt::DescendingOrder);
  CHECK(column_values(proxy, RankedLayoutsModel::kStepTime) == sorted(&RankedLayout::step_time_s, false));
  // Peak memory is not in rank order, and "9.50 GiB" sorts after "10.2 GiB" as text.
  proxy.sort(RankedLayoutsModel::kPeakMemory, Qt::AscendingOrder);
  CHECK(column_values(proxy, RankedLayoutsModel::kPeakMemory) == sorted(&RankedLayout::peak_memory_bytes, true));
  proxy.sort(RankedLayoutsModel::kBubble, Qt::AscendingOrder);
  CHECK(column_values(proxy, RankedLayoutsModel::kBubble) == sorted(&RankedLayout::bubble_fraction, true));
  CHECK(recorder.warnings().join(u'\n') == QString());
}

TEST_CASE("ranked layouts: rejected examples carry their reason and the overflow") {
  const QtWarningRecorder recorder;
  const Search& s = search();
  RejectedLayoutsModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.setResult(s.result);
  REQUIRE(model.rowCount() == static_cast<int>(s.result->rejected_examples.size()));
  REQUIRE(model.rowCount() > 0);
  int64_t total = 0;
  for (const auto& [reason, count] : s.result->rejected) total += count;
  CHECK(model.rejectedTotal() == total);
  bool overflow_shown = false;
  for (int row = 0; row < model.rowCount(); ++row) {
    const RejectedLayout& example = s.result->rejected_examples[static_cast<size_t>(row)];
    const QString reason = model.index(row, RejectedLayoutsModel::kReason).data().toString();
    CHECK(reason == QString::fromStdString(example.reason));
    CHECK(s.result->rejected.count(reason.toStdString()) == 1);
    CHECK(model.index(row, RejectedLayoutsModel::kLayout).data().toString() == ui::rejected_layout_text(example));
    CHECK(sort_value(model, row, RejectedLayoutsModel::kOverflow) == example.overflow_bytes);
    if (example.overflow_bytes > 0) {
      overflow_shown = true;
      CHECK(model.index(row, RejectedLayoutsModel::kOverflow).data().toString() ==
            ui::binary_bytes_text(example.overflow_bytes));
    }
  }
  CHECK(overflow_shown);
  CHECK(recorder.warnings().join(u'\n') == QString());
}

TEST_CASE("ranked layouts: the panel filters, selects through the proxy and pins two layouts") {
  const QtWarningRecorder recorder;
  const Search& s = search();
  ui::RankedLayoutsPanel panel;
  const QAbstractItemModelTester tester(panel.validModel(), QAbstractItemModelTester::FailureReportingMode::Warning);
  std::vector<RankedLayout> activated;
  std::vector<std::vector<RankedLayout>> pins;
  QObject::connect(&panel, &ui::RankedLayoutsPanel::layoutActivated,
                   [&](const RankedLayout& layout) { activated.push_back(layout); });
  QObject::connect(&panel, &ui::RankedLayoutsPanel::pinnedChanged,
                   [&](const std::vector<RankedLayout>& pinned) { pins.push_back(pinned); });
  panel.setResult(s.result);
  QAbstractItemModel& valid = *panel.validModel();
  REQUIRE(valid.rowCount() == 20);

  auto* tabs = panel.findChild<QTabWidget*>();
  REQUIRE(tabs != nullptr);
  CHECK(tabs->tabText(0) ==
        QStringLiteral("Valid (20 of %1)").arg(ui::count_text(static_cast<double>(s.result->valid))));
  int64_t rejected = 0;
  for (const auto& [reason, count] : s.result->rejected) rejected += count;
  CHECK(tabs->tabText(1) == QStringLiteral("Rejected (%1)").arg(ui::count_text(static_cast<double>(rejected))));
  CHECK(panel.rejectedModel()->rowCount() > 0);

  SECTION("the filter keeps the layouts whose text has every word") {
    // A filter that splits the 20 (a degree or knob not every layout shares), counted from the
    // result's fields.
    const std::vector<RankedLayout>& layouts = s.result->layouts;
    struct Knob {
      QString word;
      std::function<int64_t(const RankedLayout&)> field;
    };
    const std::vector<Knob> knobs = {
        {QStringLiteral("tp%1"), [](const RankedLayout& r) { return r.layout.tp; }},
        {QStringLiteral("pp%1"), [](const RankedLayout& r) { return r.layout.pp; }},
        {QStringLiteral("mb%1"), [](const RankedLayout& r) { return r.layout.micro_batch; }},
        {QStringLiteral("zero-%1"), [](const RankedLayout& r) { return int64_t{r.zero_stage}; }},
    };
    QString filter;
    int64_t expected = 0;
    for (const Knob& knob : knobs) {
      const int64_t value = knob.field(layouts.front());
      const auto count =
          std::count_if(layouts.begin(), layouts.end(), [&](const RankedLayout& r) { return knob.field(r) == value; });
      if (count < static_cast<int64_t>(layouts.size())) {
        filter = knob.word.arg(static_cast<qlonglong>(value));
        expected = count;
        break;
      }
    }
    REQUIRE_FALSE(filter.isEmpty());
    INFO(filter.toStdString());
    panel.setFilterText(filter);
    CHECK(valid.rowCount() == expected);
    CHECK(valid.rowCount() < 20);
    CHECK(tabs->tabText(0).startsWith(QStringLiteral("Valid (%1 shown").arg(expected)));
    // Spaces inside "TP 8" are optional, and every word must match.
    const QString tp = QStringLiteral("TP %1").arg(static_cast<qlonglong>(layouts.front().layout.tp));
    panel.setFilterText(tp);
    CHECK(valid.rowCount() ==
          static_cast<int>(std::count_if(layouts.begin(), layouts.end(), [&](const RankedLayout& r) {
            return r.layout.tp == layouts.front().layout.tp;
          })));
    panel.setFilterText(tp + QStringLiteral(" zero-9"));
    CHECK(valid.rowCount() == 0);
    panel.setFilterText(QString());
    CHECK(valid.rowCount() == 20);
  }

  SECTION("selecting a row emits its layout, mapped through the sorted proxy") {
    valid.sort(RankedLayoutsModel::kStepTime, Qt::DescendingOrder);
    auto* view = panel.findChild<QTableView*>();
    REQUIRE(view != nullptr);
    REQUIRE(view->model() == &valid);
    view->setCurrentIndex(valid.index(0, RankedLayoutsModel::kLayout));
    REQUIRE(activated.size() == 1);
    // Descending step time: the first row is the slowest of the 20, the last ranked — or one tied
    // with it (CP 2 × micro-batch 2 and CP 1 × micro-batch 1 can take the same time; the proxy's
    // order among equal keys is not the rank order).
    CHECK(activated.back().step_time_s == s.result->layouts.back().step_time_s);
    CHECK(std::any_of(s.result->layouts.begin(), s.result->layouts.end(),
                      [&](const RankedLayout& r) { return same_layout(activated.back(), r); }));
    REQUIRE(panel.selectRank(3));
    REQUIRE(activated.size() == 2);
    CHECK(same_layout(activated.back(), s.result->layouts[2]));
    CHECK_FALSE(panel.selectRank(21));
  }

  SECTION("pins: up to two, a third drops the oldest") {
    REQUIRE(panel.selectRank(1));
    panel.togglePinCurrent();
    REQUIRE(panel.selectRank(2));
    panel.togglePinCurrent();
    REQUIRE(pins.size() == 2);
    REQUIRE(pins.back().size() == 2);
    CHECK(same_layout(pins.back()[0], s.result->layouts[0]));
    CHECK(same_layout(pins.back()[1], s.result->layouts[1]));
    CHECK(valid.index(0, RankedLayoutsModel::kRank).data().toString() == QStringLiteral("A \u00b7 1"));
    REQUIRE(panel.selectRank(5));
    panel.togglePinCurrent();
    REQUIRE(pins.back().size() == 2);
    CHECK(same_layout(pins.back()[0], s.result->layouts[1]));
    CHECK(same_layout(pins.back()[1], s.result->layouts[4]));
    panel.togglePinCurrent();  // the selected one again: unpinned
    REQUIRE(pins.back().size() == 1);
    CHECK(same_layout(pins.back()[0], s.result->layouts[1]));
    panel.clearPins();
    CHECK(pins.back().empty());
  }

  SECTION("render at 1200 × 500") {
    REQUIRE(panel.selectRank(2));
    panel.togglePinCurrent();
    save_png(panel, {1200, 500}, QStringLiteral("h-ranked-panel.png"));
    tabs->setCurrentIndex(1);
    save_png(panel, {1200, 500}, QStringLiteral("h-ranked-panel-rejected.png"));
  }
  CHECK(recorder.warnings().join(u'\n') == QString());
}

TEST_CASE("ranked layouts: serving rankings get their own columns and reason totals") {
  const QtWarningRecorder recorder;
  // The serving ranking of test_serving.cpp: Llama 3.1 70B in FP8 on one HGX H200, 2,048-token
  // prompts, 256 output tokens, TTFT ≤ 1 s and ITL ≤ 20 ms.
  const Cluster cluster = *generate_cluster("hgx-h200:nodes=1");
  ServingWorkload w;
  w.weight_dtype = DType::fp8;
  w.kv_dtype = DType::fp8;
  w.prompt_len = 2048;
  w.output_len = 256;
  ServingTarget target;
  target.max_ttft_s = 1.0;
  target.max_itl_s = 0.02;
  auto r = rank_serving_layouts(*model_preset("llama3.1-70b"), w, cluster, target);
  REQUIRE(r);
  const auto result = std::make_shared<const ServingRankResult>(std::move(*r));
  REQUIRE_FALSE(result->layouts.empty());

  ServingLayoutsModel model;
  const QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.setResult(result, target);
  REQUIRE(model.rowCount() == static_cast<int>(result->layouts.size()));
  for (int row = 0; row < model.rowCount(); ++row) {
    const RankedServing& x = result->layouts[static_cast<size_t>(row)];
    CHECK(sort_value(model, row, ServingLayoutsModel::kTokensPerGpu) == x.output_tokens_per_s_per_gpu);
    CHECK(sort_value(model, row, ServingLayoutsModel::kTtft) == x.ttft_s);
    CHECK(sort_value(model, row, ServingLayoutsModel::kItl) == x.itl_s);
    CHECK(model.index(row, ServingLayoutsModel::kTtft).data().toString() == ui::duration_text(x.ttft_s));
    CHECK(model.index(row, ServingLayoutsModel::kLayout).data().toString() == ui::serving_layout_text(x));
    CHECK(model.index(row, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("target \u2264")));
  }

  ui::RankedLayoutsPanel panel;
  std::vector<RankedServing> activated;
  QObject::connect(&panel, &ui::RankedLayoutsPanel::servingLayoutActivated,
                   [&](const RankedServing& x) { activated.push_back(x); });
  panel.setServingResult(result, target);
  CHECK(panel.validModel()->columnCount() == ServingLayoutsModel::kColumnCount);
  CHECK(panel.rejectedModel()->rowCount() == static_cast<int>(result->rejected.size()));
  REQUIRE(panel.selectRank(1));
  REQUIRE(activated.size() == 1);
  CHECK(activated.back().output_tokens_per_s_per_gpu == result->layouts.front().output_tokens_per_s_per_gpu);
  save_png(panel, {1200, 500}, QStringLiteral("h-ranked-serving.png"));
  CHECK(recorder.warnings().join(u'\n') == QString());
}

TEST_CASE("layout compare: both labels, and Δ = B − A of the step time from the two estimates") {
  const QtWarningRecorder recorder;
  const Search& s = search();
  const RankedLayout& first = s.result->layouts[0];
  const RankedLayout& other = s.result->layouts[5];
  const QString label_a = QStringLiteral("#1 ") + ui::ranked_layout_text(first);
  const QString label_b = QStringLiteral("#6 ") + ui::ranked_layout_text(other);
  const ui::CompareSide a = compare_side(label_a, first);
  const ui::CompareSide b = compare_side(label_b, other);

  ui::LayoutCompareWidget widget;
  const QAbstractItemModelTester tester(widget.model(), QAbstractItemModelTester::FailureReportingMode::Warning);
  widget.setComparison(a, b);
  const LayoutCompareModel& model = *widget.model();
  QString title;
  for (const QLabel* label : widget.findChildren<QLabel*>()) title += label->text();
  CHECK(title.contains(label_a.toHtmlEscaped()));
  CHECK(title.contains(label_b.toHtmlEscaped()));
  CHECK(model.headerData(LayoutCompareModel::kA, Qt::Horizontal, Qt::ToolTipRole).toString() == label_a);
  CHECK(model.headerData(LayoutCompareModel::kB, Qt::Horizontal, Qt::ToolTipRole).toString() == label_b);

  const int step = model.rowOf(QStringLiteral("Step time"));
  REQUIRE(step >= 0);
  const double delta = b.estimate.step_time_s - a.estimate.step_time_s;
  REQUIRE(delta != 0);
  CHECK(sort_value(model, step, LayoutCompareModel::kA) == a.estimate.step_time_s);
  CHECK(sort_value(model, step, LayoutCompareModel::kB) == b.estimate.step_time_s);
  CHECK(sort_value(model, step, LayoutCompareModel::kDelta) == delta);
  CHECK_THAT(sort_value(model, step, LayoutCompareModel::kDeltaPercent),
             Catch::Matchers::WithinRel(b.estimate.step_time_s / a.estimate.step_time_s - 1, 1e-12));
  const QString sign = delta > 0 ? QStringLiteral("+") : QStringLiteral("\u2212");
  CHECK(model.index(step, LayoutCompareModel::kDelta).data().toString() == sign + ui::duration_text(std::abs(delta)));
  // Slower is worse: vermillion when B takes longer.
  const auto colour = model.index(step, LayoutCompareModel::kDelta).data(Qt::ForegroundRole).value<QBrush>().color();
  CHECK(colour == (delta > 0 ? QColor(0xd5, 0x5e, 0x00) : QColor(0x00, 0x9e, 0x73)));

  // Memory of the worst rank: the budgets' own peaks.
  const int peak = model.rowOf(QStringLiteral("Peak"));
  REQUIRE(peak >= 0);
  CHECK(sort_value(model, peak, LayoutCompareModel::kA) == a.memory.peak_total_bytes());
  CHECK(sort_value(model, peak, LayoutCompareModel::kB) == b.memory.peak_total_bytes());
  // Every axis the plans use has a bytes and a time row.
  for (const AxisComm& axis : a.estimate.comm.axes) {
    if (axis.bytes_per_step == 0) continue;
    const std::string_view name = mesh_axis_name(axis.axis);
    CHECK(model.rowOf(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())).toUpper() +
                      QStringLiteral(" bytes")) >= 0);
  }
  save_png(widget, {760, 820}, QStringLiteral("h-ranked-compare.png"));
  CHECK(recorder.warnings().join(u'\n') == QString());
}
