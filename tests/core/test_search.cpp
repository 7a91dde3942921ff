// Ranked layouts: enumeration, rejections, determinism, agreement with the detailed model, and
// Megatron SC21 Table 1's own layouts among the best predicted.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/keys/options.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/search.hpp"
#include "core/topology/generators.hpp"
#include "gpt_style.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {
TrainingWorkload llama_workload() {
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 512;
  return w;
}
}  // namespace

TEST_CASE("search: every candidate is either valid or rejected with a reason") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  auto r = rank_layouts(*model_preset("llama3.1-70b"), llama_workload(), *cluster);
  REQUIRE(r);
  int64_t rejected = 0;
  for (const auto& [reason, count] : r->rejected) rejected += count;
  CHECK(r->valid + rejected == r->evaluated);
  CHECK(r->valid > 0);
  CHECK(r->rejected.count("does not fit in GPU memory") == 1);
  CHECK(r->largest_overflow_bytes > 0);
  REQUIRE(r->layouts.size() == 10);
  for (size_t i = 1; i < r->layouts.size(); ++i) CHECK(r->layouts[i - 1].step_time_s <= r->layouts[i].step_time_s);
  for (const auto& l : r->layouts) CHECK(l.layout.world_size() == 64);
}

TEST_CASE("search: results do not depend on the run (deterministic order, ties broken by degrees)") {
  auto cluster = generate_cluster("dgx-h100:nodes=4");
  REQUIRE(cluster);
  TrainingWorkload w = llama_workload();
  w.global_batch = 128;
  const auto a = rank_layouts(*model_preset("llama3-8b"), w, *cluster);
  const auto b = rank_layouts(*model_preset("llama3-8b"), w, *cluster);
  REQUIRE((a && b));
  REQUIRE(a->layouts.size() == b->layouts.size());
  for (size_t i = 0; i < a->layouts.size(); ++i) {
    CHECK(layout_to_keys(a->layouts[i].layout) == layout_to_keys(b->layouts[i].layout));
    CHECK(a->layouts[i].step_time_s == b->layouts[i].step_time_s);
  }
}

TEST_CASE("search: the fast model's memory equals the memory budget; its time is close to the detailed one") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  SearchOptions options;
  options.top = 12;
  auto r = rank_layouts(m, llama_workload(), *cluster, options);
  REQUIRE(r);
  const Router router(*cluster);
  for (const auto& candidate : r->layouts) {
    TrainingWorkload w = llama_workload();
    w.recompute = candidate.recompute;
    w.zero_stage = candidate.zero_stage;
    w.tp_comm_overlap = candidate.tp_comm_overlap;
    w.schedule = candidate.schedule;
    INFO(layout_to_keys(candidate.layout).size()
         << " " << enum_name(candidate.schedule) << " TP" << candidate.layout.tp << " PP" << candidate.layout.pp
         << " CP" << candidate.layout.cp << " mbs" << candidate.layout.micro_batch << " z" << candidate.zero_stage
         << " rc " << enum_name(candidate.recompute));
    std::string totals;
    for (const auto& rank : training_memory(m, w, candidate.layout, *find_gpu("h100-sxm")).ranks)
      totals += " " + std::to_string(rank.total_bytes() / 1e9);
    INFO(totals);
    CHECK_THAT(candidate.peak_memory_bytes,
               WithinRel(training_memory(m, w, candidate.layout, *find_gpu("h100-sxm")).peak_total_bytes(), 1e-9));
    EstimateOptions e;
    e.order = candidate.order;
    auto detailed = estimate_step(m, w, candidate.layout, *cluster, router, e);
    REQUIRE(detailed);
    CHECK_THAT(candidate.step_time_s, WithinRel(detailed->step_time_s, 0.05));
  }
}

TEST_CASE("search: under FP8 the fast model follows the recipe and the weight casts of each candidate's framework") {
  // The cached layer compute depends on the framework (ZeRO 3: FSDP2, current scaling, weights cast
  // every forward) and on the micro-batch count (Megatron: each weight cast once per step); a cache
  // keyed without them would hand one candidate another's casts.
  auto cluster = generate_cluster("dgx-h100:nodes=2");
  REQUIRE(cluster);
  const ModelSpec m = *model_preset("llama3.1-8b");
  TrainingWorkload base;
  base.seq_len = 8192;
  base.global_batch = 128;
  base.compute_dtype = DType::fp8;
  SearchOptions options;
  options.top = 40;
  auto r = rank_layouts(m, base, *cluster, options);
  REQUIRE(r);
  const Router router(*cluster);
  bool saw_fsdp = false, saw_megatron = false;
  for (const auto& candidate : r->layouts) {
    TrainingWorkload w = base;
    w.recompute = candidate.recompute;
    w.zero_stage = candidate.zero_stage;
    w.tp_comm_overlap = candidate.tp_comm_overlap;
    w.schedule = candidate.schedule;
    (candidate.zero_stage == 3 ? saw_fsdp : saw_megatron) = true;
    EstimateOptions e;
    e.order = candidate.order;
    auto detailed = estimate_step(m, w, candidate.layout, *cluster, router, e);
    REQUIRE(detailed);
    CHECK_THAT(candidate.step_time_s, WithinRel(detailed->step_time_s, 0.05));
  }
  CHECK(saw_megatron);
}

TEST_CASE("search: MoE candidates charge the expert gradients over expert DP, as the detailed model does") {
  // Mixtral 8x7B on two DGX H100 nodes: candidates with EP below DP × TP × CP reduce each expert
  // shard over an expert-DP group that crosses the nodes. The step charges it with the DP
  // collectives (without overlap_grad_reduce all of it: the dense and the expert buckets), and the
  // search's fast model agrees with the step on every candidate.
  auto cluster = generate_cluster("dgx-h100:nodes=2");
  REQUIRE(cluster);
  const ModelSpec m = *model_preset("mixtral-8x7b");
  TrainingWorkload base;
  base.seq_len = 4096;
  base.global_batch = 64;
  const Router router(*cluster);
  {
    Layout l;
    l.dp = 16;
    l.ep = 8;
    TrainingWorkload w = base;
    w.zero_stage = 1;
    auto e = estimate_step(m, w, l, *cluster, router);
    REQUIRE(e);
    double dp_and_edp = 0;
    for (const AxisComm& axis : e->comm.axes)
      if (axis.axis == MeshAxis::dp || axis.axis == MeshAxis::edp) dp_and_edp += axis.time_per_step_s;
    const AxisComm* edp = nullptr;
    for (const AxisComm& axis : e->comm.axes)
      if (axis.axis == MeshAxis::edp) edp = &axis;
    REQUIRE(edp != nullptr);
    CHECK(edp->time_per_step_s > 0);
    CHECK(e->breakdown.dp_exposed_s >= dp_and_edp * (1 - 1e-9));
  }
  SearchOptions options;
  options.top = 400;  // down to the layouts with expert DP (the best keep EP × PP at the GPU count)
  auto r = rank_layouts(m, base, *cluster, options);
  REQUIRE(r);
  bool saw_edp = false;
  for (const auto& candidate : r->layouts) {
    TrainingWorkload w = base;
    w.recompute = candidate.recompute;
    w.zero_stage = candidate.zero_stage;
    w.tp_comm_overlap = candidate.tp_comm_overlap;
    w.schedule = candidate.schedule;
    saw_edp = saw_edp || candidate.layout.expert_dp() > 1;
    EstimateOptions e;
    e.order = candidate.order;
    auto detailed = estimate_step(m, w, candidate.layout, *cluster, router, e);
    REQUIRE(detailed);
    INFO(layout_to_keys(candidate.layout).size() << " EDP " << candidate.layout.expert_dp());
    CHECK_THAT(candidate.step_time_s, WithinRel(detailed->step_time_s, 0.05));
  }
  CHECK(saw_edp);
}

TEST_CASE("search: DualPipe candidates agree with the detailed model") {
  // DualPipe's closed form (a rank's two stages, the README's bubble) and its memory (both end
  // stages' parameters, p + 1 chunks) against estimate_step's event simulation and the budget: a
  // MoE model (the all-to-alls under the paired chunk) and a dense one deep enough for PP 4–16
  // (the bubble term).
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  struct Case {
    const char* model;
    int64_t global_batch, min_pp;
  };
  for (const Case& k : {Case{"mixtral-8x7b", 256, 2}, Case{"llama3.1-70b", 512, 4}}) {
    const ModelSpec m = *model_preset(k.model);
    TrainingWorkload base;
    base.seq_len = 4096;
    base.global_batch = k.global_batch;
    SearchOptions options;
    options.top = 60;
    options.space.schedules = {PipelineSchedule::dualpipe};
    options.space.max_vpp = 1;
    auto r = rank_layouts(m, base, *cluster, options);
    REQUIRE(r);
    CHECK(r->rejected.count("DualPipe needs an even PP and an even number of at least 2×PP micro-batches") == 1);
    int checked = 0;
    for (const auto& candidate : r->layouts) {
      if (candidate.layout.pp < k.min_pp || checked == 6) continue;
      ++checked;
      REQUIRE(candidate.schedule == PipelineSchedule::dualpipe);
      CHECK(candidate.layout.pp % 2 == 0);
      TrainingWorkload w = base;
      w.recompute = candidate.recompute;
      w.zero_stage = candidate.zero_stage;
      w.tp_comm_overlap = candidate.tp_comm_overlap;
      w.schedule = PipelineSchedule::dualpipe;
      INFO(k.model << " TP" << candidate.layout.tp << " PP" << candidate.layout.pp << " EP" << candidate.layout.ep
                   << " DP" << candidate.layout.dp << " mbs " << candidate.layout.micro_batch);
      CHECK_THAT(candidate.peak_memory_bytes,
                 WithinRel(training_memory(m, w, candidate.layout, *find_gpu("h100-sxm")).peak_total_bytes(), 1e-9));
      EstimateOptions e;
      e.order = candidate.order;
      auto detailed = estimate_step(m, w, candidate.layout, *cluster, router, e);
      REQUIRE(detailed);
      CHECK(detailed->pipeline_schedule == PipelineSchedule::dualpipe);
      std::printf(
          "[search] DualPipe %s TP%lld PP%lld EP%lld DP%lld mbs %lld: fast %.3f s, detailed %.3f s (%+.1f %%)\n",
          k.model, static_cast<long long>(candidate.layout.tp), static_cast<long long>(candidate.layout.pp),
          static_cast<long long>(candidate.layout.ep), static_cast<long long>(candidate.layout.dp),
          static_cast<long long>(candidate.layout.micro_batch), candidate.step_time_s, detailed->step_time_s,
          100 * (candidate.step_time_s / detailed->step_time_s - 1));
      CHECK_THAT(candidate.step_time_s, WithinRel(detailed->step_time_s, 0.03));
    }
    CHECK(checked == 6);
  }
}

TEST_CASE("search: Megatron SC21 Table 1 layouts rank among the best predicted") {
  // The issue's target: for each row the paper's TP and PP (any micro-batch and interleaving) is
  // in the top 5 of our ranking, or within 5 % of the best prediction. The search space is the
  // paper's setting: fp16, full recompute, no ZeRO, no SP (it predates it), 1F1B/interleaved.
  // Counted two ways: per candidate (micro-batch and interleaving variants of one mesh each take
  // a place) and among distinct meshes (TP, PP, DP), which is what the paper's table gives.
  // Known gap: for the 3.6B–39B and 145B rows the model prefers less TP and more PP than the
  // paper's weak-scaling layouts (6–16 % faster by our prediction), although it predicts those
  // layouts' own throughput within 10 % (test_estimate.cpp); 18.4B and 39.1B miss among meshes
  // too. So does 7.5B (#7 among meshes) since the fast model honours overlap_grad_reduce = false
  // (it used to overlap the DP reduction whatever the setting, unlike estimate_step): 2021
  // Megatron-LM all-reduced gradients after the backward (Korthikanti et al. §6.3 still ran "no
  // grad-allreduce overlap"), and the paper's TP4 · DP32 pays 0.36 s of exposed all-reduce a step
  // against 0.20 s for TP1 · PP2 · DP64. This test guards the rows that meet the target (printed
  // per row) against regressions.
  int in_top5 = 0, within5 = 0, in_top5_at_dp = 0, in_top5_meshes = 0;
  for (const auto& row : test::read_fidelity_csv("megatron_sc21_table1_weak_scaling.csv")) {
    const int64_t gpus = std::stoll(row.at("num_gpus"));
    const ModelSpec m = test::gpt_style(std::stoll(row.at("layers")), std::stoll(row.at("hidden")),
                                        std::stoll(row.at("heads")), std::stoll(row.at("vocab")), 2048);
    TrainingWorkload w = test::korthikanti_workload(2048, std::stoll(row.at("global_batch")), RecomputeMode::full);
    w.compute_dtype = DType::fp16;
    REQUIRE(apply_training_convention(w, "megatron"));
    w.overlap_grad_reduce = false;  // 2021 Megatron-LM reduced gradients after the backward pass
    auto cluster = generate_cluster("dgx-a100:nodes=" + std::to_string(gpus / 8));
    REQUIRE(cluster);
    SearchOptions options;
    options.top = 200;
    options.space.recompute = {RecomputeMode::full};
    options.space.zero_stages = {0};
    options.space.schedules = {PipelineSchedule::one_f_one_b};
    options.space.sequence_parallel = {false};
    options.space.max_cp = 1;
    options.space.orders = {AxisOrder::megatron};  // the tp-pp-dp mapping came later
    auto r = rank_layouts(m, w, *cluster, options);
    REQUIRE(r);
    REQUIRE_FALSE(r->layouts.empty());
    const int64_t tp = std::stoll(row.at("tp")), pp = std::stoll(row.at("pp"));
    int rank = 0;
    double paper_best = 0;
    for (size_t i = 0; i < r->layouts.size(); ++i) {
      const auto& l = r->layouts[i];
      if (l.layout.tp == tp && l.layout.pp == pp) {
        rank = static_cast<int>(i) + 1;
        paper_best = l.step_time_s;
        break;
      }
    }
    const double gap = rank > 0 ? paper_best / r->layouts.front().step_time_s - 1 : 1.0;
    std::printf("[search] %-12s paper layout TP%lld PP%lld ranks #%d, %.1f %% behind the best (TP%lld PP%lld)\n",
                row.at("model").c_str(), static_cast<long long>(tp), static_cast<long long>(pp), rank, 100 * gap,
                static_cast<long long>(r->layouts.front().layout.tp),
                static_cast<long long>(r->layouts.front().layout.pp));
    // Weak scaling fixed DP (32 for the first six rows): among the layouts with the paper's DP.
    const int64_t paper_dp = std::stoll(row.at("dp"));
    int rank_at_dp = 0, seen = 0;
    double best_at_dp = 0;
    for (const auto& l : r->layouts) {
      if (l.layout.dp != paper_dp) continue;
      if (++seen == 1) best_at_dp = l.step_time_s;
      if (l.layout.tp == tp && l.layout.pp == pp) {
        rank_at_dp = seen;
        break;
      }
    }
    std::printf("[search] %-12s   with the paper's DP %lld: ranks #%d, %.1f %% behind the best at that DP\n",
                row.at("model").c_str(), static_cast<long long>(paper_dp), rank_at_dp,
                rank_at_dp > 0 ? 100 * (paper_best / best_at_dp - 1) : 100.0);
    in_top5_at_dp += rank_at_dp >= 1 && (rank_at_dp <= 5 || paper_best / best_at_dp - 1 <= 0.05) ? 1 : 0;
    // The paper gives a mesh (TP, PP, DP), not a micro-batch or interleaving degree: its rank
    // among distinct meshes, each at its best variant.
    std::vector<std::tuple<int64_t, int64_t, int64_t>> meshes;
    int mesh_rank = 0;
    for (const auto& l : r->layouts) {
      const auto key = std::tuple(l.layout.tp, l.layout.pp, l.layout.dp);
      if (std::find(meshes.begin(), meshes.end(), key) != meshes.end()) continue;
      meshes.push_back(key);
      if (l.layout.tp == tp && l.layout.pp == pp) {
        mesh_rank = static_cast<int>(meshes.size());
        break;
      }
    }
    std::printf("[search] %-12s   among distinct meshes (TP, PP, DP): ranks #%d\n", row.at("model").c_str(), mesh_rank);
    in_top5_meshes += mesh_rank >= 1 && (mesh_rank <= 5 || gap <= 0.05) ? 1 : 0;
    INFO(row.at("model") << ": paper layout ranks #" << rank << ", " << 100 * gap << " % behind");
    CHECK(rank >= 1);
    in_top5 += rank >= 1 && rank <= 5 ? 1 : 0;
    within5 += rank >= 1 && gap <= 0.05 ? 1 : 0;
  }
  std::printf(
      "[search] SC21 Table 1: %d of 10 in the top 5, %d of 10 within 5 %%; with the paper's DP, %d of 10 in "
      "the top 5 or within 5 %%; among distinct meshes, %d of 10 in the top 5 or within 5 %%\n",
      in_top5, within5, in_top5_at_dp, in_top5_meshes);
  CHECK(in_top5 >= 5);
  CHECK(in_top5_meshes >= 7);
}

TEST_CASE("search: GPT-3 175B on 1,024 A100s at sequence 2048 is not split by context") {
  // At CP 8 each rank holds 256 of the 2,048 tokens; GPT-3's 96 K/V heads (Brown et al. 2020,
  // Table 2.1: 96 heads of 128) make each ring step's K/V chunk 256 × 2 × 12,288 × 2 B = 12 MiB
  // against 1/8 of a 256-token rank's attention — the exchanges cannot hide, and a practitioner
  // would not split 2K-token sequences by context. SC21 and Korthikanti et al. ran this model at
  // TP 8 (Narayanan et al. 2021 Table 1; Korthikanti et al. 2022 Table 3).
  auto cluster = generate_cluster("dgx-a100:nodes=128");
  REQUIRE(cluster);
  TrainingWorkload w;
  w.seq_len = 2048;
  w.global_batch = 1536;
  SearchOptions options;
  options.top = 5;
  const auto r = rank_layouts(*model_preset("gpt3-175b"), w, *cluster, options);
  REQUIRE(r);
  REQUIRE(r->layouts.size() == 5);
  for (const auto& l : r->layouts) {
    INFO("TP" << l.layout.tp << " CP" << l.layout.cp << " PP" << l.layout.pp << " DP" << l.layout.dp);
    CHECK(l.layout.cp == 1);
  }
}

TEST_CASE("search: rejected candidates are kept as examples with their reason (TP 16 on 8 KV heads)") {
  // Llama 3.1 70B has 64 query heads and 8 KV heads (meta-llama/Llama-3.1-70B config.json), so a
  // TP of 16 cannot split the KV heads: with max_tp = 16 every TP-16 sub-tree is rejected for it.
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  REQUIRE(m.num_kv_heads == 8);
  SearchOptions options;
  options.space.max_tp = 16;
  options.rejected_examples_per_reason = 5;
  auto r = rank_layouts(m, llama_workload(), *cluster, options);
  REQUIRE(r);
  const std::string heads = "attention heads or KV heads not divisible by TP";
  REQUIRE(r->rejected.count(heads) == 1);

  std::map<std::string, int64_t> examples_per_reason;
  bool tp16_example = false;
  for (const RejectedLayout& example : r->rejected_examples) {
    INFO(example.reason);
    REQUIRE(r->rejected.count(example.reason) == 1);
    ++examples_per_reason[example.reason];
    if (example.reason == heads) {
      CHECK(example.layout.tp == 16);
      CHECK(example.scope == RejectedScope::mesh);
      CHECK(example.overflow_bytes == 0);
      CHECK(example.layout.world_size() == 64);
      tp16_example = tp16_example || example.layout.tp == 16;
    }
  }
  CHECK(tp16_example);
  for (const auto& [reason, count] : r->rejected) {
    INFO(reason);
    CHECK(examples_per_reason[reason] == std::min<int64_t>(count, 5));
  }
}

TEST_CASE("search: examples of \"does not fit\" are the nearest misses, with the memory budget's overflow") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  SearchOptions options;
  options.rejected_examples_per_reason = 8;
  auto r = rank_layouts(m, llama_workload(), *cluster, options);
  REQUIRE(r);
  const std::string does_not_fit = "does not fit in GPU memory";
  REQUIRE(r->rejected.at(does_not_fit) > 8);
  std::vector<const RejectedLayout*> misses;
  for (const RejectedLayout& example : r->rejected_examples)
    if (example.reason == does_not_fit) misses.push_back(&example);
  REQUIRE(misses.size() == 8);
  const GpuSpec gpu = *find_gpu("h100-sxm");
  for (size_t i = 0; i < misses.size(); ++i) {
    const RejectedLayout& miss = *misses[i];
    CHECK(miss.scope == RejectedScope::candidate);
    CHECK(miss.layout.world_size() == 64);
    CHECK(miss.overflow_bytes > 0);
    CHECK(miss.overflow_bytes <= r->largest_overflow_bytes);
    if (i > 0) CHECK(misses[i - 1]->overflow_bytes <= miss.overflow_bytes);
    // The overflow is the memory budget's own peak over the GPU's capacity.
    TrainingWorkload w = llama_workload();
    w.recompute = miss.recompute;
    w.zero_stage = miss.zero_stage;
    const MemoryBudget budget = training_memory(m, w, miss.layout, gpu);
    CHECK_THAT(miss.peak_memory_bytes, WithinRel(budget.peak_total_bytes(), 1e-9));
    CHECK_THAT(miss.overflow_bytes, WithinRel(budget.peak_total_bytes() - gpu.memory_bytes, 1e-9));
  }
  // The nearest misses are nearer than the worst overflow by a wide margin.
  CHECK(misses.back()->overflow_bytes < r->largest_overflow_bytes);
}

TEST_CASE("search: a set cancel flag stops the search with a clear error") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  std::atomic<bool> cancel{true};
  SearchOptions options;
  options.cancel = &cancel;
  auto r = rank_layouts(*model_preset("llama3.1-70b"), llama_workload(), *cluster, options);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == kSearchCancelled);
  cancel = false;
  CHECK(rank_layouts(*model_preset("llama3.1-70b"), llama_workload(), *cluster, options));
}

namespace {
std::string layout_label(const Layout& layout) {
  std::string text;
  for (const auto& [key, value] : layout_to_keys(layout)) text += key + "=" + value + ",";
  return text;
}
// Everything a search returns but its elapsed time, as comparable text (doubles with all their bits).
std::string search_dump(const SearchResult& r) {
  std::string out;
  char number[64];
  const auto add = [&](double value) {
    std::snprintf(number, sizeof number, "%a ", value);
    out += number;
  };
  out += std::to_string(r.evaluated) + " " + std::to_string(r.valid) + " " + std::to_string(r.collapsed) + "\n";
  for (const auto& [reason, count] : r.rejected) out += reason + ": " + std::to_string(count) + "\n";
  add(r.largest_overflow_bytes);
  for (const auto& l : r.layouts) {
    out += "\n" + layout_label(l.layout) + " " + std::to_string(static_cast<int>(l.recompute)) + " " +
           std::to_string(l.zero_stage) + " " + std::to_string(static_cast<int>(l.schedule)) + " " +
           std::to_string(static_cast<int>(l.order)) + " " + std::to_string(l.tp_comm_overlap) + " ";
    for (const double v : {l.step_time_s, l.tokens_per_s_per_gpu, l.mfu, l.peak_memory_bytes, l.headroom_bytes,
                           l.bubble_fraction, l.cost_per_million_tokens})
      add(v);
  }
  for (const auto& e : r.rejected_examples) {
    out += "\n" + e.reason + " " + layout_label(e.layout) + " " + std::to_string(static_cast<int>(e.scope)) + " " +
           std::to_string(static_cast<int>(e.recompute)) + " " + std::to_string(e.zero_stage) + " " +
           std::to_string(static_cast<int>(e.schedule)) + " ";
    add(e.peak_memory_bytes);
    add(e.overflow_bytes);
  }
  return out;
}
}  // namespace

TEST_CASE("search: a search on several threads returns what one thread returns, bit for bit") {
  struct Case {
    const char* model;
    const char* cluster;
    int64_t seq, batch;
    RankObjective objective;
    int64_t refine;
  };
  const Case k = GENERATE(Case{"llama3.1-70b", "dgx-h100:nodes=8", 8192, 512, RankObjective::throughput, 0},
                          Case{"mixtral-8x7b", "dgx-h100:nodes=4", 4096, 256, RankObjective::cost_per_token, 2},
                          Case{"deepseek-v3", "dgx-h100:nodes=16", 4096, 1024, RankObjective::throughput, 0},
                          Case{"llama3-8b", "dgx-a100:nodes=2", 4096, 64, RankObjective::memory_headroom, 1},
                          Case{"gpt2", "dgx-h100", 1024, 16, RankObjective::throughput, 0});
  CAPTURE(k.model, k.cluster);
  auto cluster = generate_cluster(k.cluster);
  REQUIRE(cluster);
  TrainingWorkload w;
  w.seq_len = k.seq;
  w.global_batch = k.batch;
  SearchOptions options;
  options.objective = k.objective;
  options.refine = k.refine;
  options.rejected_examples_per_reason = 5;  // small: the nearest misses cross the meshes
  options.threads = 1;                       // the default is every core
  auto serial = rank_layouts(*model_preset(k.model), w, *cluster, options);
  REQUIRE(serial);
  const std::string expected = search_dump(*serial);
  for (const int threads : {2, 3, 8}) {
    options.threads = threads;
    auto parallel = rank_layouts(*model_preset(k.model), w, *cluster, options);
    REQUIRE(parallel);
    CAPTURE(threads);
    CHECK(search_dump(*parallel) == expected);
  }
}
