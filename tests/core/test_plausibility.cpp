// A believable top of the ranked list (issue 41): for published, measured runs the search's
// top-ranked layout under the run's own framework must (a) be runnable there, (b) predict no more
// than 15 % more throughput than the best published measurement of that model, GPU count, batch
// and precision, and (c) have the published layout among its top 10, or rank it within the model's
// uncertainty of the top. The rows come from the validation set (validation_rows.hpp), with the
// recipe settings its sources state; docs/validation.md ("A believable top") has the reasoning.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "core/framework/framework.hpp"
#include "core/search/search.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"
#include "validation_rows.hpp"

using namespace meshscope;
using namespace meshscope::validation_rows;

namespace {

// The framework a row's source ran (its "framework" column).
Framework framework_of(const test::CsvRow& row) {
  const std::string& f = row.at("framework");
  if (contains(f, "DeepSpeed")) return Framework::deepspeed;
  if (starts_with(f, "torchtitan")) return Framework::torchtitan;
  if (starts_with(f, "Megatron-Bridge") || starts_with(f, "NeMo")) return Framework::megatron_bridge;
  if (starts_with(f, "Megatron-LM")) return Framework::megatron_lm;
  return Framework::any;
}

struct Verdict {
  std::string id;
  bool runnable = false, within_15 = false, published_near_top = false;
  double top_over_best = 0;  // predicted top throughput / best published
  std::string top;
};

std::string layout_text(const Layout& l, PipelineSchedule schedule) {
  char text[160];
  std::snprintf(text, sizeof text, "TP%lld PP%lld v%lld CP%lld EP%lld DP%lld mbs%lld %s", static_cast<long long>(l.tp),
                static_cast<long long>(l.pp), static_cast<long long>(l.vpp), static_cast<long long>(l.cp),
                static_cast<long long>(l.ep), static_cast<long long>(l.dp), static_cast<long long>(l.micro_batch),
                std::string(enum_name(schedule)).c_str());
  return text;
}

bool same_mesh(const Layout& a, const Layout& b) {
  return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.ep == b.ep && a.dp == b.dp;
}

std::optional<Verdict> judge(const std::vector<test::CsvRow>& rows, const test::CsvRow& row) {
  if (unsupported(row)) return std::nullopt;
  auto model = model_of(row);
  if (!model) return std::nullopt;
  const Setup setup = setup_of(row, *model);
  // The search spreads over every GPU of the cluster: a job on part of an NVL72 rack searches the
  // trays it runs on (four GPUs a tray).
  std::string generator = setup.generator;
  const int64_t gpus = integer(row, "num_gpus");
  if (starts_with(generator, "gb200-nvl72:racks=1") && gpus < 72 && gpus % 4 == 0)
    generator =
        "gb200-nvl72:racks=1,trays=" + std::to_string(gpus / 4) + (contains(generator, "gb300") ? ",gpu=gb300" : "");
  auto cluster = generate_cluster(generator);
  if (!cluster || cluster->num_gpus() != gpus) return std::nullopt;
  TrainingWorkload w = setup.workload;
  w.framework = framework_of(row);
  // The best published measurement of the same model, GPU, count, batch, sequence and precision.
  double best_step = published_step_s(row, *model);
  for (const auto& other : rows)
    if (other.at("model") == row.at("model") && other.at("gpu") == row.at("gpu") &&
        other.at("num_gpus") == row.at("num_gpus") && other.at("global_batch") == row.at("global_batch") &&
        other.at("seq_len") == row.at("seq_len") && other.at("precision") == row.at("precision") && !unsupported(other))
      best_step = std::min(best_step, published_step_s(other, *model));
  SearchOptions options;
  options.top = 10;
  options.estimate = setup.options;
  const auto ranked = rank_layouts(*model, w, *cluster, options);
  if (!ranked || ranked->layouts.empty()) return std::nullopt;
  const RankedLayout& top = ranked->layouts.front();
  Verdict v;
  v.id = row.at("id");
  v.top = layout_text(top.layout, top.schedule);
  TrainingWorkload top_w = w;
  top_w.recompute = top.recompute;
  top_w.zero_stage = top.zero_stage;
  top_w.tp_comm_overlap = top.tp_comm_overlap;
  v.runnable = !framework_rejects(framework_spec(w.framework), top.layout, top_w, top.schedule,
                                  top.order == AxisOrder::tp_pp_dp);
  v.top_over_best = best_step / top.step_time_s;
  v.within_15 = v.top_over_best <= 1.15;
  for (const RankedLayout& r : ranked->layouts) v.published_near_top |= same_mesh(r.layout, setup.layout);
  if (!v.published_near_top) {
    const Router router(*cluster);
    auto published = estimate_step(*model, setup.workload, setup.layout, *cluster, router, setup.options);
    v.published_near_top = published && published->step_time_s <= top.step_time_s * (1 + top.uncertainty);
  }
  return v;
}

}  // namespace

TEST_CASE("plausibility: every expressible validation row, searched under its framework", "[.plausibility-all]") {
  const auto rows = read_validation_set();
  for (const auto& row : rows) {
    const auto v = judge(rows, row);
    if (!v) continue;
    std::printf(
        "[plausibility] %-44s %-16s top %-44s %.2fx best published  runnable %d  within 15%% %d  "
        "published near top %d\n",
        v->id.c_str(), std::string(enum_name(framework_of(row))).c_str(), v->top.c_str(), v->top_over_best, v->runnable,
        v->within_15, v->published_near_top);
  }
}

TEST_CASE("plausibility: the top of the list is believable for published runs on A100, H100 and GB200") {
  // Dense and MoE runs from torchtitan's tables, DGX Cloud Benchmarking and the Megatron-Bridge
  // performance summaries (validation_rows.hpp). The MI300X log and the runs the search still
  // over-predicts (MegaScale's A100 GPT-175B, fine-grained MoE at small micro-batches, PyTorch's CP)
  // are in docs/validation.md, "A believable top", with every row's verdict.
  const auto rows = read_validation_set();
  const char* ids[] = {"tt_a100_l2_13b_sel_op",
                       "tt_h100_t1_fsdp",
                       "dgxc_gpt3_175b_h100_bf16_128_nemo2412",
                       "mb2511_h100_llama31405b_fp8cs",
                       "mb2511_h100_qwen330ba3b_fp8cs",
                       "mb2511_gb200_llama31405b_fp8cs",
                       "mb2602_gb200_llama370b_fp8",
                       "mb2511_gb200_deepseekv3_bf16",
                       "mbapi_gb200_llama31405b_fp8mx_64gpu"};
  for (const char* id : ids) {
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const test::CsvRow& r) { return r.at("id") == id; });
    REQUIRE(row != rows.end());
    const auto v = judge(rows, *row);
    REQUIRE(v);
    INFO(id << ": top " << v->top << ", " << v->top_over_best << "x the best published throughput");
    CHECK(v->runnable);
    CHECK(v->within_15);
    CHECK(v->published_near_top);
  }
}
