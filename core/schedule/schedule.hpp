#pragma once
// Pipeline-schedule event simulator. Each pipeline rank executes its work items (forward,
// backward-for-inputs, backward-for-weights) in the order a schedule prescribes; an item starts
// when the rank is free and the items it depends on have finished (plus the point-to-point
// transfer time when they ran on another rank). Nothing about the bubble is assumed: it is read
// off the simulated timeline. docs/schedules.md explains each schedule and its sources.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/workload/pipeline_schedule.hpp"

namespace meshscope {

enum class WorkKind {
  forward,          // F
  backward_input,   // B: gradient with respect to the stage's input (what the previous stage waits for)
  backward_weight,  // W: gradient with respect to the stage's weights (nobody waits for it)
  backward,         // B and W fused, for schedules that do not split the backward (duration B + W)
};

// The cost of one micro-batch on one pipeline stage (a 1/p slice of the model).
struct StageCosts {
  double forward_s = 0;          // F
  double backward_input_s = 0;   // B
  double backward_weight_s = 0;  // W
};

struct ScheduleInput {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int64_t stages = 1;          // p: pipeline ranks
  int64_t micro_batches = 1;   // m: per optimizer step (DualPipe: both directions together)
  int64_t virtual_stages = 1;  // v: model chunks per rank; interleaved only, 1 otherwise
  // Size p. Interleaved: costs[r] is everything rank r holds; each of its v chunks costs 1/v of
  // it. DualPipe: costs[k] is model stage k; rank r runs stage r of the direction that enters
  // at rank 0 and stage p−1−r of the direction that enters at rank p−1. Stages may differ
  // (embedding on the first, LM head on the last, uneven layer counts) and are simulated as given.
  std::vector<StageCosts> costs;
  // Interleaved only, optional: the cost of each virtual stage u = chunk·p + rank (p·v entries),
  // for chunks that differ (uneven layer counts, the embedding on the first chunk, the LM head on
  // the last); when given it replaces costs[r] / v. costs stays the per-rank total.
  std::vector<StageCosts> chunk_costs;
  double p2p_s = 0;  // activation (forward) or gradient (backward) transfer between two ranks
  // Interleaved only: asynchronous sends (Megatron-Core's overlap_p2p_comm). The costs above then
  // hold no sends; each item that sends synchronously — a forward of the warm-up or a backward of
  // the cool-down, unless async_warmup_flush — keeps its rank busy p2p_s longer. The steady
  // state's sends cost the sender nothing; every transfer still delays its receiver by p2p_s.
  bool async_sends = false;
  bool async_warmup_flush = false;
};

struct ScheduleEvent {
  int64_t stage = 0;  // pipeline rank that ran it
  WorkKind kind = WorkKind::forward;
  int64_t micro_batch = 0;  // DualPipe: 0..m/2−1 enter at rank 0, m/2..m−1 at rank p−1
  int64_t chunk = 0;        // interleaved: model chunk on the rank; DualPipe: direction (0 or 1)
  // Position on the micro-batch's path through the model, 0 where it enters: interleaved
  // chunk·p + stage; DualPipe direction 0: stage, direction 1: p−1−stage; otherwise stage.
  int64_t virtual_stage = 0;
  double start_s = 0, end_s = 0;
};

struct ScheduleResult {
  std::vector<ScheduleEvent> events;  // every event, grouped by stage (stage 0 first), each in execution order
  double makespan_s = 0;              // from the first start to the last end (all stages synchronised)
  double bubble_fraction = 0;         // 1 − Σ busy / (p · makespan)
  // Idle time between a stage's first start and its last end, over the sum of those spans: the
  // bubble left when consecutive iterations overlap because the optimizer step does not
  // synchronise the stages (Qi et al. 2024 §4, optimizer post-validation). ZB-H2 brings it to 0.
  double unsynchronised_bubble_fraction = 0;
  std::vector<double> busy_s;       // per stage
  std::vector<double> send_busy_s;  // per stage: the part of busy_s spent in synchronous sends (async_sends only)
  // Per stage: the most micro-batches whose forward has run and whose backward (B and W) has not
  // finished, in units of one stage's activations for one micro-batch. An interleaved chunk
  // counts 1/v; a DualPipe chunk is a whole model stage and counts 1.
  std::vector<double> peak_in_flight;
  // What one (micro-batch, chunk) item counts in peak_in_flight: 1/v interleaved, 1 otherwise.
  double in_flight_unit = 1;
};

// Errors (invalid_argument): p, m or v below 1; v ≠ 1 outside interleaved; interleaved with m not
// a multiple of p (Megatron-LM's requirement); costs.size() ≠ p; negative or non-finite costs or
// p2p; DualPipe with an odd p, an odd m or m < 2p (deepseek-ai/DualPipe dualpipe.py asserts
// these); more than 2^24 work items.
[[nodiscard]] Result<ScheduleResult> simulate_schedule(const ScheduleInput& input);

// Megatron's pipeline send/recv is synchronous: a stage is busy while it sends its activations
// (after each forward) and its input gradients (after each backward) — once per model chunk it
// holds, so the interleaved schedule sends v times as much (Narayanan et al. SC21 §2.2.2); only
// the last virtual stage sends no activations and the first no gradients. Sends per micro-batch
// of stage `stage` (0-based) of `stages` holding `chunks` model chunks.
struct StageSends {
  double forward = 0;
  double backward = 0;
};
[[nodiscard]] inline StageSends stage_sends(int64_t stage, int64_t stages, int64_t chunks) {
  if (stages <= 1) return {};
  const auto v = static_cast<double>(chunks);
  return {stage + 1 < stages ? v : v - 1, stage > 0 ? v : v - 1};
}

// Megatron-Core's interleaved 1F1B: the forwards rank `rank` of `stages` runs before its first
// backward, of its micro_batches · chunks items — 2(p − r − 1) + (v − 1)p with the micro-batch group
// of p (schedules.py get_pp_rank_microbatches), and all of them when m = p (all_warmup_microbatches).
[[nodiscard]] inline int64_t interleaved_warmup_items(int64_t rank, int64_t stages, int64_t micro_batches,
                                                      int64_t chunks) {
  const int64_t total = micro_batches * chunks;
  return micro_batches == stages ? total : std::min(2 * (stages - rank - 1) + (chunks - 1) * stages, total);
}

}  // namespace meshscope
