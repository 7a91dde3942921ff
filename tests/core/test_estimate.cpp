// Step-time estimates against Megatron SC21 Table 1 (../shared/fidelity), and their invariants.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "core/estimate/step.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"
#include "core/workload/flops.hpp"
#include "gpt_style.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

struct Sc21Prediction {
  double tflops_per_gpu = 0;  // SC21 Eq. 3 FLOPs / (step time × GPUs)
  Layout layout;
  StepEstimate estimate;
};

// SC21 Table 1 rows: the paper gives TP, PP, GPUs and batch, not the micro-batch size nor the
// interleaving degree (§5.1: interleaved schedule for every row). We predict the best of the
// micro-batch sizes 1–8 and interleaving degrees that divide the stage, as the authors tuned.
Sc21Prediction predict_sc21(const test::CsvRow& row) {
  const int64_t layers = std::stoll(row.at("layers")), hidden = std::stoll(row.at("hidden"));
  const int64_t heads = std::stoll(row.at("heads")), seq = std::stoll(row.at("seq_len"));
  ModelSpec model = test::gpt_style(layers, hidden, heads, std::stoll(row.at("vocab")), seq);
  TrainingWorkload w = test::korthikanti_workload(seq, std::stoll(row.at("global_batch")), RecomputeMode::full);
  w.compute_dtype = DType::fp16;
  REQUIRE(apply_training_convention(w, "megatron"));
  w.zero_stage = 0;
  w.overlap_grad_reduce = false;  // 2021 Megatron-LM reduces gradients after the backward pass
  const int64_t gpus = std::stoll(row.at("num_gpus"));
  auto cluster = generate_cluster("dgx-a100:nodes=" + std::to_string(std::max<int64_t>(gpus / 8, 1)));
  REQUIRE(cluster);
  const Router router(*cluster);
  const EstimateOptions options;
  Layout base;
  base.tp = std::stoll(row.at("tp"));
  base.pp = std::stoll(row.at("pp"));
  base.dp = std::stoll(row.at("dp"));
  Sc21Prediction best;
  for (const int64_t mbs : {1, 2, 4, 8}) {
    for (int64_t vpp = 1; vpp <= 8; ++vpp) {
      Layout l = base;
      l.micro_batch = mbs;
      l.vpp = vpp;
      if (!validate_training_layout(model, w, l, gpus).empty()) continue;
      auto e = estimate_step(model, w, l, *cluster, router, options);
      if (!e || !e->fits_in_memory) continue;
      const double tflops =
          std::stod(row.at("derived_flops_per_iter_eq3")) / (e->step_time_s * static_cast<double>(gpus)) / 1e12;
      if (tflops > best.tflops_per_gpu) best = {tflops, l, *e};
    }
  }
  return best;
}

}  // namespace

TEST_CASE("estimate: Megatron SC21 Table 1 TFLOP/s per GPU (the paper's Eq. 3 convention)") {
  std::vector<double> errors;
  for (const auto& row : test::read_fidelity_csv("megatron_sc21_table1_weak_scaling.csv")) {
    INFO(row.at("id") << " " << row.at("model"));
    const Sc21Prediction p = predict_sc21(row);
    REQUIRE(p.tflops_per_gpu > 0);
    const double published = std::stod(row.at("tflops_per_gpu"));
    const double error = p.tflops_per_gpu / published - 1;
    errors.push_back(std::abs(error));
    std::printf(
        "[fidelity] %-12s TP%lld PP%lld DP%lld mbs %lld v %lld: predicted %6.1f, published %6.1f TFLOP/s/GPU, error "
        "%+6.1f %%\n",
        row.at("model").c_str(), static_cast<long long>(p.layout.tp), static_cast<long long>(p.layout.pp),
        static_cast<long long>(p.layout.dp), static_cast<long long>(p.layout.micro_batch),
        static_cast<long long>(p.layout.vpp), p.tflops_per_gpu, published, 100 * error);
  }
  REQUIRE(errors.size() == 10);
  std::sort(errors.begin(), errors.end());
  const double median = (errors[4] + errors[5]) / 2;
  std::printf("[fidelity] SC21 Table 1: median |error| %.1f %%, max %.1f %%\n", 100 * median, 100 * errors.back());
  CHECK(median <= 0.10);
  CHECK(errors.back() <= 0.20);
}

TEST_CASE("estimate: throughput, MFU and the breakdown are consistent") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 512;
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.vpp = 5;
  l.dp = 2;
  l.sp = true;
  auto e = estimate_step(m, w, l, *cluster, router);
  REQUIRE(e);
  CHECK_THAT(e->tokens_per_s, WithinRel(512.0 * 8192 / e->step_time_s, 1e-12));
  CHECK_THAT(e->tokens_per_s_per_gpu * 64, WithinRel(e->tokens_per_s, 1e-12));
  // MFU = model FLOPs per token × tokens/s per GPU / peak (PaLM Appendix B definition).
  const double flops = flops_per_token(m, 8192, true, RecomputeMode::none).model_training();
  CHECK_THAT(e->mfu, WithinRel(flops * e->tokens_per_s_per_gpu / 989.5e12, 1e-9));
  CHECK(e->hfu >= e->mfu);
  CHECK(e->mfu > 0.2);
  CHECK(e->mfu < 0.8);
  CHECK(e->bubble_fraction > 0);
  CHECK(e->fits_in_memory);
  CHECK_FALSE(e->assumptions.empty());
  // The embedding, the LM head and the optimizer step report the HBM traffic they are timed by:
  // none moves its bytes faster than the GPU's memory bandwidth.
  const double hbm = find_gpu("h100-sxm")->memory_bandwidth_bytes_per_s;
  REQUIRE(e->operations.size() >= 3);
  for (auto op = e->operations.end() - 3; op != e->operations.end(); ++op) {
    INFO(op->name);
    CHECK(op->bytes > 0);
    CHECK(op->bytes / op->forward_s <= hbm);
  }
}

TEST_CASE("estimate: the breakdown's parts are disjoint and add up to the step time") {
  // A user reads the breakdown as "where the step goes": compute, exposed communication per axis,
  // the busiest stage's idle time, DP and optimizer must not overlap and must sum to the step.
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const auto sum = [](const StepBreakdown& b) {
    return b.forward_s + b.backward_s + b.recompute_s + b.tp_exposed_s + b.cp_exposed_s + b.ep_exposed_s + b.pp_p2p_s +
           b.bubble_s + b.dp_exposed_s + b.optimizer_s;
  };
  struct Case {
    const char* model;
    Layout layout;
    RecomputeMode recompute;
    int zero;
    PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  };
  const auto layout = [](int64_t tp, int64_t pp, int64_t vpp, int64_t cp, int64_t ep, int64_t dp, bool sp) {
    Layout l;
    l.tp = tp;
    l.pp = pp;
    l.vpp = vpp;
    l.cp = cp;
    l.ep = ep;
    l.dp = dp;
    l.sp = sp;
    return l;
  };
  const Case cases[] = {
      {"llama3.1-70b", layout(8, 4, 5, 1, 1, 2, true), RecomputeMode::selective, 1},
      {"llama3.1-70b", layout(8, 1, 1, 1, 1, 8, false), RecomputeMode::full, 1},
      {"llama3.1-70b", layout(4, 2, 1, 2, 1, 4, true), RecomputeMode::selective, 1},
      {"llama3.1-8b", layout(1, 1, 1, 1, 1, 64, false), RecomputeMode::none, 3},
      {"mixtral-8x7b", layout(2, 2, 1, 1, 4, 16, true), RecomputeMode::full, 1},
      {"mixtral-8x7b", layout(1, 4, 1, 1, 8, 16, false), RecomputeMode::full, 1, PipelineSchedule::dualpipe},
      {"llama3.1-70b", layout(8, 4, 1, 1, 1, 2, true), RecomputeMode::selective, 1, PipelineSchedule::zb_h1},
  };
  for (const Case& c : cases) {
    INFO(c.model << " TP" << c.layout.tp << " PP" << c.layout.pp << " CP" << c.layout.cp << " EP" << c.layout.ep << " "
                 << enum_name(c.schedule));
    const ModelSpec m = *model_preset(c.model);
    TrainingWorkload w;
    w.seq_len = 8192;
    w.global_batch = 512;
    w.recompute = c.recompute;
    w.zero_stage = c.zero;
    w.schedule = c.schedule;
    auto e = estimate_step(m, w, c.layout, *cluster, router);
    REQUIRE(e);
    const StepBreakdown& b = e->breakdown;
    CHECK_THAT(sum(b), WithinRel(e->step_time_s, 1e-9));
    if (c.layout.tp > 1) CHECK(b.tp_exposed_s > 0);
    if (c.layout.pp > 1 && c.schedule != PipelineSchedule::dualpipe) CHECK(b.pp_p2p_s > 0);
    if (c.layout.ep > 1 && c.schedule != PipelineSchedule::dualpipe) CHECK(b.ep_exposed_s > 0);
    // Compute is compute: overlapping TP communication with the GEMMs (tp_comm_overlap, SP only)
    // shrinks the TP term, which also carries the GEMMs' slowdown on the SMs the communication
    // kernels take, and leaves the forward, backward and recompute times as they were.
    TrainingWorkload overlapped = w;
    overlapped.tp_comm_overlap = true;
    auto hidden = estimate_step(m, overlapped, c.layout, *cluster, router);
    REQUIRE(hidden);
    if (c.layout.tp > 1 && c.layout.sp) {
      CHECK(hidden->breakdown.tp_exposed_s < b.tp_exposed_s);
      CHECK(hidden->breakdown.tp_exposed_s > 0);
    } else {
      CHECK(hidden->breakdown.tp_exposed_s == b.tp_exposed_s);  // Megatron: --tp-comm-overlap needs SP
    }
    CHECK_THAT(hidden->breakdown.forward_s, WithinRel(b.forward_s, 1e-12));
    CHECK_THAT(hidden->breakdown.backward_s, WithinRel(b.backward_s, 1e-12));
    CHECK_THAT(hidden->breakdown.recompute_s, WithinRel(b.recompute_s, 1e-12));
    CHECK_THAT(sum(hidden->breakdown), WithinRel(hidden->step_time_s, 1e-9));
  }
}

TEST_CASE("estimate: DualPipe hides the EP all-to-alls and the sends, and holds both ends' parameters") {
  // DeepSeek-V3 report §3.2.1: DualPipe overlaps a forward and a backward chunk so that "both
  // all-to-all and PP communication can be fully hidden"; its README: "Parameter 2×".
  auto cluster = generate_cluster("dgx-h100:nodes=4");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("mixtral-8x7b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 128;
  w.recompute = RecomputeMode::full;
  Layout l;
  l.pp = 4;
  l.ep = 8;
  l.dp = 8;
  auto plain = estimate_step(m, w, l, *cluster, router);
  TrainingWorkload dual_workload = w;
  dual_workload.schedule = PipelineSchedule::dualpipe;
  auto dual = estimate_step(m, dual_workload, l, *cluster, router);
  REQUIRE(plain);
  REQUIRE(dual);
  CHECK(plain->breakdown.ep_exposed_s > 0);
  CHECK(plain->breakdown.pp_p2p_s > 0);
  CHECK(dual->breakdown.ep_exposed_s < 0.5 * plain->breakdown.ep_exposed_s);
  CHECK(dual->breakdown.pp_p2p_s == 0);
  CHECK(dual->peak_memory_bytes > plain->peak_memory_bytes);
  bool stated = false;
  for (const auto& a : dual->assumptions) stated = stated || a.find("DualPipe") != std::string::npos;
  CHECK(stated);
  // The same workload asking for DualPipe gets the same estimate.
  w.schedule = PipelineSchedule::dualpipe;
  auto asked = estimate_step(m, w, l, *cluster, router);
  REQUIRE(asked);
  CHECK(asked->step_time_s == dual->step_time_s);
  CHECK(asked->peak_memory_bytes == dual->peak_memory_bytes);
}

TEST_CASE("estimate: recomputing n layers per chunk counts their forward in the hardware FLOPs") {
  // HFU counts recomputation (Korthikanti et al. Eq. 8): recompute=n (Megatron
  // --recompute-num-layers) repeats the forward of the first n layers of each model chunk.
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 512;
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.vpp = 5;  // 20 chunks of 4 layers
  l.dp = 2;
  l.sp = true;
  w.recompute = RecomputeMode::layers;
  w.recompute_layers = 1;  // 20 of the 80 layers
  auto e = estimate_step(m, w, l, *cluster, router);
  REQUIRE(e);
  const FlopsPerToken f = flops_per_token(m, 8192, true, RecomputeMode::none);
  const double layer_forward = f.forward_gemm + f.forward_attention;
  CHECK_THAT(e->hfu / e->mfu, WithinRel((f.model_training() + 0.25 * layer_forward) / f.model_training(), 1e-9));
  CHECK(e->breakdown.recompute_s > 0);
}

TEST_CASE("estimate: more interleaving shrinks the bubble; more micro-batches too") {
  auto cluster = generate_cluster("dgx-h100:nodes=8");
  REQUIRE(cluster);
  const Router router(*cluster);
  const ModelSpec m = *model_preset("llama3.1-70b");
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 64;
  Layout l;
  l.tp = 8;
  l.pp = 8;
  auto plain = estimate_step(m, w, l, *cluster, router);
  l.vpp = 5;
  auto interleaved = estimate_step(m, w, l, *cluster, router);
  REQUIRE((plain && interleaved));
  CHECK(interleaved->bubble_fraction < plain->bubble_fraction);
  // Uniform-stage theory: (p−1)/(m+p−1) for 1F1B (SC21 §2.2.1) — the head and embedding make the
  // stages unequal, so only roughly (at the H100's measured GEMM rates the last stage, with the
  // LM head and the fp32 loss, is about 8 % heavier than the others: 0.149 against 0.099).
  CHECK(std::abs(plain->bubble_fraction - 7.0 / (64 + 7)) < 0.06);
}

// A pipeline layout's MTP layer (DeepSeek-V3 §2.2: a transformer block, a 2h → h projection and
// its own pass through the shared output head) is work and parameters of the rank that holds it.
// Megatron-Bridge's DeepSeek-V3 layout for PP 16 (recipes/deepseek/deepseek_v3.py, layout_map
// (16, 1)) with and without it.
TEST_CASE("estimate: a pipeline layout's MTP layer is one more block and LM head on its stage") {
  const ModelSpec m = *model_preset("deepseek-v3");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 256;
  w.compute_dtype = DType::bf16;
  Layout l;
  l.pp = 16;
  l.ep = 8;
  l.dp = 8;
  l.pipeline_layout = "Et*4|(t*4|)*14tL";
  Layout with_mtp = l;
  with_mtp.pipeline_layout = "Et*4|(t*4|)*14tmL";
  REQUIRE(validate_training_layout(m, w, with_mtp, 128).empty());
  auto cluster = generate_cluster("dgx-b200:nodes=16");
  REQUIRE(cluster);
  const Router router(*cluster);
  const auto without = estimate_step(m, w, l, *cluster, router);
  const auto with = estimate_step(m, w, with_mtp, *cluster, router);
  REQUIRE(without);
  REQUIRE(with);
  // The last stage (one layer and the head) is light either way; the MTP block and head add to it.
  const double last_without = without->schedule.busy_s.back(), last_with = with->schedule.busy_s.back();
  const double middle = without->schedule.busy_s[8];  // four MoE layers
  CHECK(last_with > last_without + 0.15 * middle);
  CHECK(last_with < middle * 1.5);
  CHECK(with->schedule.busy_s[8] == Approx(middle).epsilon(1e-9));  // other stages unchanged
  // Its parameters: one more MoE block (its routed experts over EP 8), the projection, two norms.
  const StageParams p0 = stage_params(m, l, 15), p1 = stage_params(m, with_mtp, 15);
  const LayerParams last = layer_params(m, m.num_layers - 1);
  const auto h = static_cast<double>(m.hidden_size);
  CHECK(p1.mtp_layers == 1);
  CHECK(p1.experts - p0.experts == Approx(last.routed_experts / 8));
  CHECK(p1.dense - p0.dense ==
        Approx(last.attention + last.mlp + last.shared_experts + last.norms + last.router + 2 * h * h + 2 * h));
  CHECK(stage_params(m, with_mtp, 8).total() == Approx(stage_params(m, l, 8).total()));
}
