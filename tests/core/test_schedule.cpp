// The pipeline-schedule simulator reproduces the published bubble and memory formulas of each
// schedule from its per-rank order alone (docs/schedules.md): Narayanan et al. SC21 §2.2 (GPipe,
// 1F1B, interleaved), Korthikanti et al. 2022 §4.2.3 (interleaved memory), Qi et al. 2024
// arXiv:2401.10241 §2 (ZB-H1, ZB-H2), and the DeepSeek-V3 report §3.2.1 / deepseek-ai/DualPipe
// README table (DualPipe). Formulas are asserted exactly where the paper's assumptions hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/schedule/schedule.hpp"

using namespace meshscope;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

ScheduleInput uniform(PipelineSchedule schedule, int64_t p, int64_t m, StageCosts costs, int64_t v = 1,
                      double p2p_s = 0) {
  ScheduleInput in;
  in.schedule = schedule;
  in.stages = p;
  in.micro_batches = m;
  in.virtual_stages = v;
  in.costs.assign(static_cast<size_t>(p), costs);
  in.p2p_s = p2p_s;
  return in;
}

ScheduleResult simulate(const ScheduleInput& in) {
  auto result = simulate_schedule(in);
  if (!result) FAIL(result.error().to_string());
  return *result;
}

// Idle time of one stage: the makespan less its busy time.
double idle_s(const ScheduleResult& r, size_t stage) {
  return r.makespan_s - r.busy_s[stage];
}

// A micro-batch at one virtual stage.
using Key = std::tuple<int64_t, int64_t>;  // (virtual stage, micro-batch)

// Checks a timeline against the dependency rules of docs/schedules.md, independently of the
// simulator: each event lasts its stage's cost, no stage runs two events at once, F follows the
// previous virtual stage's F, B (or fused B+W) follows the next virtual stage's B or its own F,
// W follows its own B, and a transfer between two ranks costs p2p_s.
void check_timeline(const ScheduleInput& in, const ScheduleResult& r) {
  const int64_t p = in.stages, m = in.micro_batches, v = in.virtual_stages;
  const bool dualpipe = in.schedule == PipelineSchedule::dualpipe;
  const int64_t path_length = p * v;
  const auto scale = 1.0 / static_cast<double>(v);
  std::map<Key, const ScheduleEvent*> forward, backward, weight;
  std::vector<double> stage_free(static_cast<size_t>(p), 0.0);
  int64_t last_stage = 0;
  for (const ScheduleEvent& e : r.events) {
    REQUIRE(e.stage >= 0);
    REQUIRE(e.stage < p);
    REQUIRE(e.stage >= last_stage);  // grouped by stage
    last_stage = e.stage;
    // The virtual stage is where the rank sits on the micro-batch's path.
    if (dualpipe) {
      REQUIRE(e.chunk == (e.micro_batch >= m / 2 ? 1 : 0));
      REQUIRE(e.virtual_stage == (e.chunk == 0 ? e.stage : p - 1 - e.stage));
    } else {
      REQUIRE(e.virtual_stage == e.chunk * p + e.stage);
    }
    const bool per_chunk = !in.chunk_costs.empty();
    const StageCosts& c = per_chunk ? in.chunk_costs[static_cast<size_t>(e.virtual_stage)]
                                    : in.costs[static_cast<size_t>(dualpipe ? e.virtual_stage : e.stage)];
    double expected = 0;
    auto* table = &forward;
    switch (e.kind) {
      case WorkKind::forward:
        expected = c.forward_s;
        break;
      case WorkKind::backward_input:
        expected = c.backward_input_s;
        table = &backward;
        break;
      case WorkKind::backward:
        expected = c.backward_input_s + c.backward_weight_s;
        table = &backward;
        break;
      case WorkKind::backward_weight:
        expected = c.backward_weight_s;
        table = &weight;
        break;
    }
    CHECK_THAT(e.end_s - e.start_s, WithinAbs(expected * (per_chunk ? 1.0 : scale), 1e-9));
    REQUIRE(e.start_s >= stage_free[static_cast<size_t>(e.stage)] - 1e-9);  // no overlap
    stage_free[static_cast<size_t>(e.stage)] = e.end_s;
    REQUIRE(table->emplace(Key{e.virtual_stage, e.micro_batch}, &e).second);  // exactly once
  }
  const auto hop = [&](const ScheduleEvent& from, const ScheduleEvent& to) {
    return from.stage == to.stage ? 0.0 : in.p2p_s;
  };
  for (int64_t u = 0; u < path_length; ++u) {
    for (int64_t i = 0; i < m; ++i) {
      const ScheduleEvent* f = forward.at({u, i});
      const ScheduleEvent* b = backward.at({u, i});
      if (u > 0) {
        const ScheduleEvent* before = forward.at({u - 1, i});
        CHECK(f->start_s >= before->end_s + hop(*before, *f) - 1e-9);
      }
      if (u + 1 < path_length) {
        const ScheduleEvent* after = backward.at({u + 1, i});
        CHECK(b->start_s >= after->end_s + hop(*after, *b) - 1e-9);
      } else {
        CHECK(b->start_s >= f->end_s - 1e-9);
      }
      const auto w = weight.find({u, i});
      CHECK((w != weight.end()) == (b->kind == WorkKind::backward_input));  // a split B has its W
      if (w != weight.end()) CHECK(w->second->start_s >= b->end_s - 1e-9);
    }
  }
}

const std::vector<StageCosts>& equal_and_unequal_fbw() {
  // F = B = W; a backward twice the forward (the usual rule of thumb); a forward-heavy stage.
  static const std::vector<StageCosts> costs{{1, 1, 1}, {1, 1.5, 0.5}, {2, 1, 1}};
  return costs;
}

}  // namespace

TEST_CASE("schedule: names round-trip, in any letter case, and unknown names are rejected") {
  for (const auto s : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
                       PipelineSchedule::zb_h1, PipelineSchedule::zb_h2, PipelineSchedule::dualpipe}) {
    CHECK(parse_enum_ignoring_case<PipelineSchedule>(enum_name(s)) == s);
  }
  CHECK(enum_name(PipelineSchedule::one_f_one_b) == "1f1b");
  CHECK(enum_name(PipelineSchedule::zb_h2) == "zb-h2");
  CHECK(parse_enum_ignoring_case<PipelineSchedule>("ZB-H1") == PipelineSchedule::zb_h1);
  CHECK(parse_enum_ignoring_case<PipelineSchedule>("DualPipe") == PipelineSchedule::dualpipe);
  CHECK_FALSE(parse_enum_ignoring_case<PipelineSchedule>("zbh1").has_value());
  CHECK_FALSE(parse_enum_ignoring_case<PipelineSchedule>("").has_value());
}

TEST_CASE("schedule: GPipe and 1F1B idle (p−1)/(m+p−1) of the step on uniform stages") {
  // SC21 §2.2.1: bubble time (p−1)(t_f + t_b) against ideal m(t_f + t_b), i.e. (p−1)/m of the
  // ideal, or (p−1)/(m+p−1) of the makespan. Holds for any F:B:W split (the backward is fused).
  const auto schedule = GENERATE(PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b);
  const auto [p, m] = GENERATE(table<int64_t, int64_t>({{1, 4}, {2, 1}, {4, 8}, {4, 3}, {8, 32}, {16, 17}}));
  const StageCosts costs = GENERATE(from_range(equal_and_unequal_fbw()));
  const ScheduleResult r = simulate(uniform(schedule, p, m, costs));
  const double expected = static_cast<double>(p - 1) / static_cast<double>(m + p - 1);
  CHECK_THAT(r.bubble_fraction, WithinAbs(expected, 1e-12));
  const double f_plus_b = costs.forward_s + costs.backward_input_s + costs.backward_weight_s;
  CHECK_THAT(r.makespan_s, WithinRel(static_cast<double>(m + p - 1) * f_plus_b, 1e-12));
}

TEST_CASE("schedule: interleaved 1F1B idles (p−1)/(v·m+p−1) of the step on uniform stages") {
  // SC21 §2.2.2: the bubble shrinks by v, (p−1)(t_f + t_b)/v against ideal m(t_f + t_b), i.e.
  // (p−1)/(v·m + p−1) of the makespan; Megatron-LM's order achieves it exactly for m % p == 0,
  // including m = p (all forwards first).
  const auto [p, m, v] = GENERATE(table<int64_t, int64_t, int64_t>(
      {{2, 4, 2}, {4, 8, 2}, {4, 4, 3}, {3, 6, 2}, {8, 16, 4}, {4, 16, 4}, {4, 8, 1}}));
  const StageCosts costs = GENERATE(from_range(equal_and_unequal_fbw()));
  const ScheduleResult r = simulate(uniform(PipelineSchedule::interleaved, p, m, costs, v));
  const double expected = static_cast<double>(p - 1) / static_cast<double>(v * m + p - 1);
  CHECK_THAT(r.bubble_fraction, WithinAbs(expected, 1e-12));
}

TEST_CASE("schedule: ZB-H1 idles (p−1)(F+B−W) per stage, a third of 1F1B's when F = B = W") {
  // Qi et al. 2024 §2.1: "the bubble size is reduced to (p−1)(T_F + T_B − T_W)", against 1F1B's
  // (p−1)(T_F + T_B + T_W). The W passes can only fill the cool-down when there are enough of
  // them and each fits in a gap: the formula holds for m ≥ p and W ≤ min(F, B) (the paper's
  // transformer analysis has T_W below T_F and T_B).
  const int64_t p = GENERATE(2, 4, 8);
  const int64_t m = GENERATE_COPY(as<int64_t>{}, p, p + 1, 3 * p);
  const StageCosts c = GENERATE(StageCosts{1, 1, 1}, StageCosts{1, 2, 1}, StageCosts{1, 1.5, 0.5}, StageCosts{2, 1, 1},
                                StageCosts{1, 0.5, 0.5});
  const ScheduleResult zb = simulate(uniform(PipelineSchedule::zb_h1, p, m, c));
  const double expected_idle = static_cast<double>(p - 1) * (c.forward_s + c.backward_input_s - c.backward_weight_s);
  for (size_t s = 0; s < static_cast<size_t>(p); ++s) CHECK_THAT(idle_s(zb, s), WithinAbs(expected_idle, 1e-9));

  if (c.forward_s == c.backward_input_s && c.backward_input_s == c.backward_weight_s) {
    const ScheduleResult one_f_one_b = simulate(uniform(PipelineSchedule::one_f_one_b, p, m, c));
    CHECK_THAT(idle_s(zb, 0), WithinRel(idle_s(one_f_one_b, 0) / 3, 1e-12));
  }
}

TEST_CASE("schedule: ZB-H2 leaves no bubble inside its parallelogram when F = B = W and m ≥ 2p − 1") {
  // Qi et al. 2024 §2.2: with T_F = T_B = T_W, 2p−1 warm-up forwards on the first stage fill the
  // bubble before the first B, and reordering the tail's Ws makes the schedule a parallelogram.
  // The ramps at its two ends are the only idle time, and they vanish once the optimizer step
  // no longer synchronises the stages (§4, post-validation): unsynchronised_bubble_fraction = 0.
  // It needs the 2p−1 warm-up forwards to exist, i.e. m ≥ 2p − 1.
  const int64_t p = GENERATE(2, 4, 8);
  const int64_t m = GENERATE_COPY(2 * p - 1, 2 * p, 4 * p + 3);
  const double f = 0.25;
  const ScheduleResult r = simulate(uniform(PipelineSchedule::zb_h2, p, m, {f, f, f}));
  CHECK_THAT(r.unsynchronised_bubble_fraction, WithinAbs(0, 1e-12));
  // The last stage cannot start before p−1 forwards: makespan = 3mF + (p−1)F, as ZB-H1's.
  CHECK_THAT(r.makespan_s, WithinRel(static_cast<double>(3 * m + p - 1) * f, 1e-12));
  const ScheduleResult h1 = simulate(uniform(PipelineSchedule::zb_h1, p, m, {f, f, f}));
  CHECK_THAT(r.makespan_s, WithinRel(h1.makespan_s, 1e-12));
  CHECK(h1.unsynchronised_bubble_fraction > 0.01);
}

TEST_CASE("schedule: ZB-H2 keeps a bubble when m < 2p − 1") {
  const ScheduleResult r = simulate(uniform(PipelineSchedule::zb_h2, 4, 6, {1, 1, 1}));
  CHECK(r.unsynchronised_bubble_fraction > 0.01);
}

TEST_CASE("schedule: ZB-H1 and ZB-H2 run the orders of Qi et al. Figure 3") {
  // Figure 3 (p = 4, m = 8, micro-batches numbered from 1). ZB-H1, device 1:
  // F1–F4, B1 W1 F5, B2 W2 F6, B3 W3 F7, B4 W4 F8, B5 W5 … B8 W8; device 4: F1 B1 … F4 B4,
  // W1 F5 B5, W2 F6 B6, W3 F7 B7, W4 F8 B8, W5 W6 W7 W8. ZB-H2, device 1: F1–F7 B1 W1 F8,
  // B2 W2 … B8 W8; device 4: F1 B1 … F7 B7 W1 F8 B8 W2 … W8.
  const auto order = [](PipelineSchedule s, int64_t stage) {
    const ScheduleResult r = simulate(uniform(s, 4, 8, {1, 1, 1}));
    std::string text;
    for (const ScheduleEvent& e : r.events) {
      if (e.stage != stage) continue;
      text += e.kind == WorkKind::forward ? 'F' : e.kind == WorkKind::backward_input ? 'B' : 'W';
      text += std::to_string(e.micro_batch + 1);
    }
    return text;
  };
  CHECK(order(PipelineSchedule::zb_h1, 0) == "F1F2F3F4B1W1F5B2W2F6B3W3F7B4W4F8B5W5B6W6B7W7B8W8");
  CHECK(order(PipelineSchedule::zb_h1, 3) == "F1B1F2B2F3B3F4B4W1F5B5W2F6B6W3F7B7W4F8B8W5W6W7W8");
  CHECK(order(PipelineSchedule::zb_h2, 0) == "F1F2F3F4F5F6F7B1W1F8B2W2B3W3B4W4B5W5B6W6B7W7B8W8");
  CHECK(order(PipelineSchedule::zb_h2, 3) == "F1B1F2B2F3B3F4B4F5B5F6B6F7B7W1F8B8W2W3W4W5W6W7W8");
}

TEST_CASE("schedule: DualPipe matches the bubble (PP/2−1)(F&B+B−3W) and activation PP+1 of its README") {
  // deepseek-ai/DualPipe README (and DeepSeek-V3 report Table 2): bubble (PP/2−1)(F&B + B − 3W),
  // parameters 2×, activation PP+1, where B is a full backward (input + weight) and F&B an
  // overlapped forward+backward pair. The simulator does not model the overlap (F&B = F + B) and
  // the formula is exact in the case its authors illustrate, F = B_input = W: with
  // F = B_input = W = 1 it is (PP/2−1)(3 + 2 − 3) = PP − 2.
  const int64_t p = GENERATE(2, 4, 6, 8, 16);
  const int64_t m = GENERATE_COPY(2 * p, 2 * p + 2, 4 * p, 6 * p + 4);
  const double w = 0.5;
  const ScheduleResult r = simulate(uniform(PipelineSchedule::dualpipe, p, m, {w, w, w}));
  const double f = w, full_b = 2 * w, f_and_b = f + full_b;
  const double expected = (static_cast<double>(p) / 2 - 1) * (f_and_b + full_b - 3 * w);
  for (size_t s = 0; s < static_cast<size_t>(p); ++s) {
    CHECK_THAT(idle_s(r, s), WithinAbs(expected, 1e-9));
    // Activation PP+1 per device, in units of one stage's activations for one micro-batch:
    // each of a rank's two chunks is a whole stage of its direction's copy of the model.
    CHECK_THAT(r.peak_in_flight[s], WithinAbs(static_cast<double>(p + 1), 1e-12));
  }
  // Each rank runs m forwards (m/2 per direction, on two copies of the parameters).
  CHECK(std::count_if(r.events.begin(), r.events.end(),
                      [](const ScheduleEvent& e) { return e.stage == 0 && e.kind == WorkKind::forward; }) == m);
}

TEST_CASE("schedule: in-flight micro-batches are m for GPipe and min(m, p−s) for 1F1B") {
  // GPipe holds every micro-batch until the backwards start; 1F1B limits stage s to p − s
  // (SC21 §2.2.1). Qi et al. §2.1 / §2.2: ZB-H1 gives every stage 1F1B's first-stage budget of
  // p micro-batches, ZB-H2 2p − 1.
  const int64_t p = GENERATE(1, 2, 4, 8);
  const int64_t m = GENERATE_COPY(1, p, 2 * p + 3);
  const StageCosts c{1, 1.5, 0.5};
  const ScheduleResult gpipe = simulate(uniform(PipelineSchedule::gpipe, p, m, c));
  const ScheduleResult one_f_one_b = simulate(uniform(PipelineSchedule::one_f_one_b, p, m, c));
  const ScheduleResult zb_h1 = simulate(uniform(PipelineSchedule::zb_h1, p, m, c));
  const ScheduleResult zb_h2 = simulate(uniform(PipelineSchedule::zb_h2, p, m, c));
  for (int64_t s = 0; s < p; ++s) {
    const auto at = static_cast<size_t>(s);
    CHECK(gpipe.peak_in_flight[at] == static_cast<double>(m));
    CHECK(one_f_one_b.peak_in_flight[at] == static_cast<double>(std::min(m, p - s)));
    CHECK(zb_h1.peak_in_flight[at] == static_cast<double>(std::min(m, p)));
    CHECK(zb_h2.peak_in_flight[at] == static_cast<double>(std::min(m, 2 * p - 1)));
  }
}

TEST_CASE("schedule: the first interleaved stage holds p(1 + (p−1)/(pv)) stages of activations") {
  // Korthikanti et al. 2022 §4.2.3 (the note to Eq. 5): with interleaving the first stage keeps
  // p(1 + (p−1)/(pv)) micro-batches' worth of one stage's activations: Megatron-LM's warm-up of
  // 2(p−1) + (v−1)p chunk-forwards plus one, each chunk 1/v of the stage (needs m ≥ 2p).
  const int64_t p = GENERATE(2, 4, 8);
  const int64_t m = GENERATE_COPY(2 * p, 5 * p);
  const int64_t v = GENERATE(2, 3, 4);
  const ScheduleResult r = simulate(uniform(PipelineSchedule::interleaved, p, m, {1, 1.5, 0.5}, v));
  const double expected = static_cast<double>(p) * (1 + static_cast<double>(p - 1) / static_cast<double>(p * v));
  CHECK_THAT(r.peak_in_flight[0], WithinRel(expected, 1e-12));
}

TEST_CASE("schedule: a slower last stage lengthens 1F1B by m times its extra time") {
  // From first principles, p2p = 0, F' and B' the last stage's times, F and B the others'. The
  // last stage runs F_i B_i back to back from (p−1)F on: stage p−2 runs F_{i+1} right after its
  // own B_{i−1}, so F_{i+1} is ready B + F after the last stage finished B_{i−1}, and the last
  // stage needs it F' + B' after, which is later. Then the final backward walks back through p−1
  // stages. So makespan = (p−1)F + m(F' + B') + (p−1)B = (m+p−1)(F+B) + m(F'−F + B'−B).
  const int64_t p = GENERATE(2, 4, 8);
  const int64_t m = GENERATE_COPY(as<int64_t>{}, p, 3 * p);
  const StageCosts normal{1, 1.2, 0.8};
  const StageCosts slow{1.5, 2, 1};  // the LM head: +0.5 forward, +1 backward
  ScheduleInput in = uniform(PipelineSchedule::one_f_one_b, p, m, normal);
  in.costs.back() = slow;
  const ScheduleResult r = simulate(in);
  const double f_plus_b = 3, extra = 1.5;
  CHECK_THAT(r.makespan_s,
             WithinRel(static_cast<double>(m + p - 1) * f_plus_b + static_cast<double>(m) * extra, 1e-12));
  check_timeline(in, r);
}

TEST_CASE("schedule: interleaved chunks may differ; equal ones reproduce the per-rank split") {
  const int64_t p = 4, m = 8, v = 2;
  const StageCosts rank{2, 3, 1};
  const ScheduleInput even = uniform(PipelineSchedule::interleaved, p, m, rank, v, 0.05);
  ScheduleInput chunks = even;
  chunks.chunk_costs.assign(static_cast<size_t>(p * v), {1, 1.5, 0.5});
  const ScheduleResult a = simulate(even), b = simulate(chunks);
  CHECK_THAT(b.makespan_s, WithinRel(a.makespan_s, 1e-12));
  CHECK_THAT(b.bubble_fraction, WithinRel(a.bubble_fraction, 1e-12));
  check_timeline(chunks, b);
  // Llama 3's split (Dubey et al. 2024 §3.3.2): the model's first and last chunks hold one layer
  // fewer. Lighter end chunks finish the step sooner than the evenly split per-rank totals
  // would, and every event still lasts its own chunk's time.
  ScheduleInput uneven = chunks;
  uneven.chunk_costs.front() = {0.5, 0.75, 0.25};
  uneven.chunk_costs.back() = {0.5, 0.75, 0.25};
  uneven.costs.front() = {1.5, 2.25, 0.75};
  uneven.costs.back() = {1.5, 2.25, 0.75};
  const ScheduleResult c = simulate(uneven);
  check_timeline(uneven, c);
  CHECK(c.makespan_s < a.makespan_s);
  CHECK_THAT(c.busy_s.front(), WithinRel(static_cast<double>(m) * (1.5 + 2.25 + 0.75), 1e-12));
}

TEST_CASE("schedule: a transfer time lengthens GPipe's fill and drain and 1F1B's every round trip") {
  // From first principles, transfer time c per hop, uniform stages. GPipe never waits for a
  // backward before a forward, so only the first forward and the last backward cross p − 1 hops:
  // makespan = (m+p−1)(F+B) + 2(p−1)c. 1F1B's stage 0 starts forward i+p only after backward i
  // has come back (p micro-batches in flight), so each p micro-batches take a full round trip,
  // p(F+B) + 2(p−1)c: the steady state is latency-bound.
  const int64_t p = GENERATE(2, 4, 8);
  const int64_t m = GENERATE_COPY(2 * p, 3 * p + 1);
  const StageCosts c{1, 1.2, 0.8};
  const double f_plus_b = 3, hop = 0.25;
  const ScheduleResult gpipe = simulate(uniform(PipelineSchedule::gpipe, p, m, c, 1, hop));
  CHECK_THAT(gpipe.makespan_s,
             WithinRel(static_cast<double>(m + p - 1) * f_plus_b + 2 * static_cast<double>(p - 1) * hop, 1e-12));
  const ScheduleResult shorter = simulate(uniform(PipelineSchedule::one_f_one_b, p, m, c, 1, hop));
  const ScheduleResult longer = simulate(uniform(PipelineSchedule::one_f_one_b, p, m + p, c, 1, hop));
  CHECK_THAT(longer.makespan_s - shorter.makespan_s,
             WithinRel(static_cast<double>(p) * f_plus_b + 2 * static_cast<double>(p - 1) * hop, 1e-9));
}

TEST_CASE("schedule: interleaved asynchronous sends charge only the warm-up and cool-down senders") {
  // Megatron-Core's interleaved schedule with overlap_p2p_comm (schedules.py): the warm-up forwards
  // (2(p − r − 1) + (v − 1)p on rank r) and the cool-down backwards send synchronously, the steady
  // state's asynchronously. p = 2, v = 2, m = 4 (8 chunk items per rank), counted by hand:
  // rank 0 warms up with 4 forwards, all on virtual stages 0 and 2, which send onwards; its last 4
  // backwards run chunk 1 (virtual stage 2, sends back) twice and chunk 0 (stage 0, the model's
  // first: nothing to send) twice — 6 sends. Rank 1 warms up with 2 forwards of chunk 0 (stage 1,
  // sends) and cools down with 2 backwards of chunk 0 (stage 1, sends) — 4 sends.
  const StageCosts c{2, 4, 0};  // per rank: each chunk item costs F/v = 1, B/v = 2
  const double send = 0.25;
  ScheduleInput in = uniform(PipelineSchedule::interleaved, 2, 4, c, 2, send);
  in.async_sends = true;
  const ScheduleResult async = simulate(in);
  REQUIRE(async.send_busy_s.size() == 2);
  CHECK_THAT(async.send_busy_s[0], WithinAbs(6 * send, 1e-12));
  CHECK_THAT(async.send_busy_s[1], WithinAbs(4 * send, 1e-12));
  const double compute = 4 * (c.forward_s + c.backward_input_s);  // m·(F + B) per rank
  CHECK_THAT(async.busy_s[0], WithinAbs(compute + 6 * send, 1e-12));
  CHECK_THAT(async.busy_s[1], WithinAbs(compute + 4 * send, 1e-12));

  // With overlap_p2p_comm_warmup_flush no send keeps a rank busy.
  in.async_warmup_flush = true;
  const ScheduleResult all_async = simulate(in);
  CHECK_THAT(all_async.send_busy_s[0], WithinAbs(0.0, 1e-12));
  CHECK_THAT(all_async.busy_s[0], WithinAbs(compute, 1e-12));
  CHECK(all_async.makespan_s <= async.makespan_s + 1e-12);

  // Synchronous sends (every chunk's send in its cost: v sends onwards and back per micro-batch,
  // less the model's last and first) take longer than the asynchronous steady state.
  ScheduleInput sync = uniform(PipelineSchedule::interleaved, 2, 4, c, 2, send);
  sync.costs[0] = {c.forward_s + 2 * send, c.backward_input_s + send, 0};
  sync.costs[1] = {c.forward_s + send, c.backward_input_s + 2 * send, 0};
  CHECK(simulate(sync).makespan_s > async.makespan_s);

  // m = p: every forward is warm-up and every backward cool-down (Megatron's
  // all_warmup_microbatches). Rank 0 sends after its 4 forwards (stages 0 and 2) and after the
  // 2 backwards of stage 2; rank 1 after its 2 forwards of stage 1 (stage 3 is the model's last)
  // and all 4 backwards (stages 3 and 1).
  ScheduleInput all_warmup = uniform(PipelineSchedule::interleaved, 2, 2, c, 2, send);
  all_warmup.async_sends = true;
  const ScheduleResult flush = simulate(all_warmup);
  CHECK_THAT(flush.send_busy_s[0], WithinAbs(6 * send, 1e-12));
  CHECK_THAT(flush.send_busy_s[1], WithinAbs(6 * send, 1e-12));

  // Only the interleaved schedule has them.
  ScheduleInput one_f_one_b = uniform(PipelineSchedule::one_f_one_b, 2, 4, c);
  one_f_one_b.async_sends = true;
  CHECK_FALSE(simulate_schedule(one_f_one_b));
}

TEST_CASE("schedule: every event respects its dependencies and no stage runs two at once") {
  // Unequal stages (an embedding-heavy first stage, an LM-head-heavy last stage, one uneven
  // middle stage) and a transfer time between ranks.
  const auto schedule = GENERATE(PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
                                 PipelineSchedule::zb_h1, PipelineSchedule::zb_h2, PipelineSchedule::dualpipe);
  const int64_t p = GENERATE(2, 4, 6);
  const int64_t m = GENERATE_COPY(2 * p, 3 * p);
  const int64_t v = schedule == PipelineSchedule::interleaved ? 3 : 1;
  ScheduleInput in = uniform(schedule, p, m, {1, 1.1, 0.9}, v, 0.07);
  in.costs.front() = {1.3, 1.2, 1.0};
  in.costs.back() = {1.6, 2.1, 0.6};
  in.costs[1] = {0.7, 0.8, 0.5};
  const ScheduleResult r = simulate(in);
  check_timeline(in, r);

  // As many events as the schedule implies: F and B for each micro-batch on each virtual stage,
  // plus a W wherever B is split off — everywhere for ZB-H1/H2; for DualPipe, dualpipe.py splits
  // the backwards of steps 3 and 7 (p/2 − h − 1 each) and h + 1 of step 6's, h = min(r, p−1−r).
  int64_t weights = 0;
  if (schedule == PipelineSchedule::zb_h1 || schedule == PipelineSchedule::zb_h2) weights = p * m;
  if (schedule == PipelineSchedule::dualpipe) {
    for (int64_t rank = 0; rank < p; ++rank) {
      const int64_t h = std::min(rank, p - 1 - rank);
      weights += 2 * (p / 2 - h - 1) + h + 1;
    }
  }
  CHECK(static_cast<int64_t>(r.events.size()) == 2 * p * m * v + weights);
  double busy = 0;
  for (double b : r.busy_s) busy += b;
  CHECK_THAT(r.bubble_fraction, WithinAbs(1 - busy / (static_cast<double>(p) * r.makespan_s), 1e-12));
}

TEST_CASE("schedule: one stage has no bubble whatever the schedule") {
  const auto schedule = GENERATE(PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
                                 PipelineSchedule::zb_h1, PipelineSchedule::zb_h2);
  const ScheduleResult r = simulate(uniform(schedule, 1, 5, {1, 2, 3}, 1, 0.5));
  CHECK(r.bubble_fraction == 0);
  CHECK_THAT(r.makespan_s, WithinRel(30, 1e-12));
}

TEST_CASE("schedule: bad input gives an error, never a crash") {
  const ScheduleInput good = uniform(PipelineSchedule::one_f_one_b, 4, 8, {1, 1, 1});
  auto bad = good;
  std::string field;
  SECTION("no stages") {
    bad.stages = 0;
    field = "stages";
  }
  SECTION("no micro-batches") {
    bad.micro_batches = 0;
    field = "micro_batches";
  }
  SECTION("negative micro-batches") {
    bad.micro_batches = -3;
    field = "micro_batches";
  }
  SECTION("no chunks") {
    bad.virtual_stages = 0;
    field = "virtual_stages";
  }
  SECTION("chunks outside interleaved") {
    bad.virtual_stages = 2;
    field = "virtual_stages";
  }
  SECTION("interleaved with m not a multiple of p") {
    bad.schedule = PipelineSchedule::interleaved;
    bad.virtual_stages = 2;
    bad.micro_batches = 6;
    field = "micro_batches";
  }
  SECTION("a cost missing") {
    bad.costs.pop_back();
    field = "costs";
  }
  SECTION("a negative cost") {
    bad.costs[2].backward_weight_s = -1;
    field = "costs[2].backward_weight_s";
  }
  SECTION("a NaN cost") {
    bad.costs[0].forward_s = std::nan("");
    field = "costs[0].forward_s";
  }
  SECTION("chunk costs outside interleaved") {
    bad.chunk_costs.assign(4, {1, 1, 1});
    field = "chunk_costs";
  }
  SECTION("chunk costs of the wrong count") {
    bad = uniform(PipelineSchedule::interleaved, 4, 8, {1, 1, 1}, 2);
    bad.chunk_costs.assign(4, {1, 1, 1});
    field = "chunk_costs";
  }
  SECTION("a negative chunk cost") {
    bad = uniform(PipelineSchedule::interleaved, 4, 8, {1, 1, 1}, 2);
    bad.chunk_costs.assign(8, {1, 1, 1});
    bad.chunk_costs[5].forward_s = -1;
    field = "chunk_costs[5].forward_s";
  }
  SECTION("a negative transfer time") {
    bad.p2p_s = -0.1;
    field = "p2p_s";
  }
  SECTION("DualPipe with odd p") {
    bad = uniform(PipelineSchedule::dualpipe, 3, 12, {1, 1, 1});
    field = "stages";
  }
  SECTION("DualPipe with odd m") {
    bad = uniform(PipelineSchedule::dualpipe, 4, 9, {1, 1, 1});
    field = "micro_batches";
  }
  SECTION("DualPipe with m < 2p") {
    bad = uniform(PipelineSchedule::dualpipe, 4, 6, {1, 1, 1});
    field = "micro_batches";
  }
  SECTION("too many events") {
    bad = uniform(PipelineSchedule::interleaved, 64, 1 << 16, {1, 1, 1}, 64);
    field = "micro_batches";
  }
  SECTION("counts so large that their product would overflow") {
    bad.stages = int64_t{1} << 40;
    bad.micro_batches = int64_t{1} << 40;
    field = "stages";
  }
  const auto result = simulate_schedule(bad);
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ErrorCode::invalid_argument);
  CHECK(result.error().location == field);
  CHECK_FALSE(result.error().message.empty());
  CHECK(simulate_schedule(good).has_value());
}

TEST_CASE("schedule: p = 64, m = 512, v = 4 interleaved simulates in one pass over its events") {
  // 2·p·m·v = 262,144 events. The target is well under 50 ms in a Debug build (about 25 ms
  // measured); the bound here only catches an accidental quadratic loop on a loaded machine.
  const auto start = std::chrono::steady_clock::now();
  const ScheduleResult r = simulate(uniform(PipelineSchedule::interleaved, 64, 512, {1, 2, 1}, 4, 0.01));
  const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.events.size() == size_t{2} * 64 * 512 * 4);
  CHECK(elapsed < 0.5);
}
