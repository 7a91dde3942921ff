// Zero-bubble and DualPipe schedules cost what their papers measured: the bubbles of Qi et al.
// 2024 from their own profiled pass times, the measured throughput gain over 1F1B, the memory the
// deferred W passes hold (Table 1, Table 2), and the TP overlap a split backward forfeits.
#include <catch2/catch.hpp>
#include <cstdio>

#include "core/estimate/overlap.hpp"
#include "core/estimate/step.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/schedule/schedule.hpp"
#include "core/topology/generators.hpp"
#include "core/topology/routing.hpp"

using namespace meshscope;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// Qi, Wan, Huang, Lin, "Zero Bubble Pipeline Parallelism", ICLR 2024 (arXiv:2401.10241; the
// paper.pdf of sail-sg/zero-bubble-pipeline-parallelism @ 3a91d0c): Table 9's profiled pass times
// (T_F, T_B, T_W, T_comm), Table 5's bubble rates computed from them, and Table 4's measured
// samples per GPU per second (1F1B and ZB-1p, whose bubble Table 5 gives as ZB-H1's).
struct QiRow {
  const char* model;
  int64_t p, m;
  double f, b, w, comm;
  double bubble_1f1b, bubble_zb_h1, bubble_zb_h2;
  double measured_1f1b, measured_zb_1p;
};
constexpr QiRow kQi[] = {
    {"1.5B", 8, 24, 18.522, 18.086, 9.337, 0.601, 0.2431, 0.1585, 0.1083, 11.8, 12.9},
    {"1.5B", 8, 32, 18.513, 18.086, 9.331, 0.626, 0.1985, 0.1242, 0.0837, 12.5, 13.4},
    {"1.5B", 8, 64, 18.546, 18.097, 9.321, 0.762, 0.1240, 0.0674, 0.0444, 13.6, 14.2},
    {"6.2B", 8, 24, 29.718, 29.444, 19.927, 0.527, 0.2347, 0.1323, 0.0698, 3.50, 3.88},
    {"6.2B", 8, 32, 29.802, 29.428, 19.530, 0.577, 0.1898, 0.1045, 0.0559, 3.70, 4.00},
    {"6.2B", 8, 64, 29.935, 29.621, 19.388, 0.535, 0.1091, 0.0554, 0.0294, 4.03, 4.20},
    {"14.6B", 16, 48, 11.347, 11.248, 8.132, 0.377, 0.2552, 0.1397, 0.0672, 1.40, 1.61},
    {"14.6B", 16, 64, 11.307, 11.254, 8.101, 0.379, 0.2082, 0.1088, 0.0516, 1.49, 1.67},
    {"14.6B", 16, 128, 11.325, 11.308, 8.109, 0.378, 0.1251, 0.0576, 0.0266, 1.64, 1.76},
    {"28.3B", 32, 96, 10.419, 10.207, 7.715, 0.408, 0.2646, 0.1421, 0.0641, 0.76, 0.87},
    {"28.3B", 32, 128, 10.408, 10.204, 7.703, 0.408, 0.2168, 0.1106, 0.0490, 0.80, 0.90},
    {"28.3B", 32, 256, 10.402, 10.248, 7.698, 0.460, 0.1352, 0.0594, 0.0257, 0.88, 0.96},
};

ScheduleResult simulate(const QiRow& row, PipelineSchedule schedule) {
  ScheduleInput input;
  input.schedule = schedule;
  input.stages = row.p;
  input.micro_batches = row.m;
  input.costs.assign(static_cast<size_t>(row.p), StageCosts{row.f, row.b, row.w});
  input.p2p_s = row.comm;
  auto result = simulate_schedule(input);
  REQUIRE(result);
  return *result;
}

// The paper's bubble rate (§5.3): (cost − m(T_F + T_B + T_W)) / cost, cost the longest stage's time.
double bubble_rate(const QiRow& row, const ScheduleResult& result) {
  return (result.makespan_s - static_cast<double>(row.m) * (row.f + row.b + row.w)) / result.makespan_s;
}

}  // namespace

TEST_CASE("zero bubble: the simulator reproduces Qi et al.'s bubble rates from their profiled pass times") {
  for (const QiRow& row : kQi) {
    INFO(row.model << " p " << row.p << " m " << row.m);
    CHECK_THAT(bubble_rate(row, simulate(row, PipelineSchedule::one_f_one_b)), WithinAbs(row.bubble_1f1b, 5e-4));
    CHECK_THAT(bubble_rate(row, simulate(row, PipelineSchedule::zb_h1)), WithinAbs(row.bubble_zb_h1, 5e-4));
    // ZB-H2's order is Figure 3's, generalised (docs/schedules.md): it piles the late stages' Ws at
    // the end, which costs (p − 1)·T_F at the synchronised step. Where T_W ≤ T_F / 2 (the 1.5B
    // rows) that is Table 5's bubble; with the larger models' heavier Ws (T_W 0.66–0.74 T_F) the
    // paper's own ZB-H2 places them in the warm-up gaps and reaches (p − 1)(T_F + T_B − 2T_W):
    // the simulator is then slower than the paper, never faster (a known gap, not a gain).
    const double zb_h2 = bubble_rate(row, simulate(row, PipelineSchedule::zb_h2));
    if (row.w < 0.55 * row.f) CHECK_THAT(zb_h2, WithinAbs(row.bubble_zb_h2, 5e-4));
    CHECK(zb_h2 > row.bubble_zb_h2 - 5e-4);
  }
}

TEST_CASE("zero bubble: ZB-H1's simulated gain over 1F1B is the measured one within 3 %") {
  // Table 4 measures ZB-1p at 1.04–1.15× 1F1B's throughput; the simulated makespans give the same
  // gain about 1.7 % higher (median), the part of the paper's own gap between its bubble rates and
  // its measurements (the profiled run "has slightly more bubbles", §5.3) that no pass time shows.
  for (const QiRow& row : kQi) {
    INFO(row.model << " p " << row.p << " m " << row.m);
    const double simulated =
        simulate(row, PipelineSchedule::one_f_one_b).makespan_s / simulate(row, PipelineSchedule::zb_h1).makespan_s;
    const double measured = row.measured_zb_1p / row.measured_1f1b;
    CHECK(simulated / measured - 1 < 0.03);
    CHECK(simulated / measured - 1 > -0.01);
  }
}

TEST_CASE("zero bubble: a deferred W holds 32sbh bytes of a GPT-3 layer's inputs and output gradients") {
  // Qi et al. 2024 Table 1: W needs 32sbh (16-bit, a GPT-3-style layer of hidden h, FFN 4h, no TP).
  ModelSpec m;
  m.hidden_size = 4096;
  m.num_heads = 32;
  m.num_kv_heads = 32;
  m.head_dim = 128;
  m.ffn_hidden_size = 4 * 4096;
  m.mlp = MlpKind::plain;
  m.num_layers = 4;
  m.vocab_size = 51200;
  ActivationConfig c;
  c.seq_len = 1024;
  c.micro_batch = 3;
  c.element_bytes = 2;
  const double sbh = 1024.0 * 3 * 4096;
  CHECK_THAT(weight_gradient_held_bytes(m, 0, c), WithinRel(32 * sbh, 1e-12));
  // Under TP t the split halves (QKV and FC1 outputs, projection and FC2 inputs: 12h of the 16h
  // per token) divide by t; the gathered inputs and the full output gradients do not.
  c.tp = 4;
  CHECK_THAT(weight_gradient_held_bytes(m, 0, c), WithinRel(2 * (4 + 12.0 / 4) * sbh, 1e-12));
}

TEST_CASE("zero bubble: ZB-H1's later stages hold the deferred Ws' tensors, (i − 1)·M_W (Qi et al. Table 2)") {
  const ModelSpec m = *model_preset("llama3.1-8b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.recompute = RecomputeMode::none;
  Layout l;
  l.pp = 4;
  l.dp = 2;
  l.micro_batch = 1;
  const GpuSpec gpu = *find_gpu("h100-sxm");
  w.schedule = PipelineSchedule::one_f_one_b;
  const MemoryBudget one_f_one_b = training_memory(m, w, l, gpu);
  w.schedule = PipelineSchedule::zb_h1;
  const MemoryBudget zb_h1 = training_memory(m, w, l, gpu);
  const ActivationConfig act = ActivationConfig::from(w, m, l);
  const double per_layer = weight_gradient_held_bytes(m, 0, act);
  const auto activations = [](const RankMemory& rank) {
    double bytes = 0;
    for (const auto& item : rank.items)
      if (item.category == MemoryCategory::activations) bytes += item.bytes;
    return bytes;
  };
  for (int64_t stage = 0; stage < l.pp; ++stage) {
    INFO("stage " << stage);
    const double layers = static_cast<double>(m.num_layers / l.pp);
    CHECK_THAT(activations(zb_h1.ranks[static_cast<size_t>(stage)]) -
                   activations(one_f_one_b.ranks[static_cast<size_t>(stage)]),
               WithinAbs(static_cast<double>(stage) * layers * per_layer, 1.0));
  }
}

TEST_CASE("zero bubble: a split backward exposes the TP reduce-scatter that TE hides under the wgrad GEMM") {
  // With --tp-comm-overlap the backward's reduce-scatter runs beside the same layer's wgrad GEMM
  // (TE ub_bulk_wgrad); zero bubble defers W, so the reduce-scatter is exposed in B.
  TpOverlapGemms g;
  g.qkv_wgrad_s = 1e-3;
  g.fc1_wgrad_s = 2e-3;
  g.proj_dgrad_s = 1e-3;
  g.fc2_dgrad_s = 1e-3;
  const double rs = 0.5e-3, ag = 0.5e-3;
  const TpLayerCost together = tp_overlapped_layer(g, ag, rs, 8, 132);
  const TpLayerCost split = tp_overlapped_layer(without_deferred_wgrad(g), ag, rs, 8, 132);
  const double hidden_qkv = tp_overlap_exposed_s(TpOverlapMethod::bulk, rs, g.qkv_wgrad_s, 8, 132);
  const double hidden_fc1 = tp_overlap_exposed_s(TpOverlapMethod::bulk, rs, g.fc1_wgrad_s, 8, 132);
  CHECK_THAT(split.backward_s, WithinRel(together.backward_s - hidden_qkv - hidden_fc1 + 2 * rs, 1e-12));
  CHECK(split.backward_s > together.backward_s);
  CHECK_THAT(split.forward_s, WithinRel(together.forward_s, 1e-12));
  CHECK(splits_backward(PipelineSchedule::zb_h1, 4));
  CHECK(splits_backward(PipelineSchedule::dualpipe, 4));
  CHECK_FALSE(splits_backward(PipelineSchedule::zb_h1, 1));
  CHECK_FALSE(splits_backward(PipelineSchedule::interleaved, 4));
}
