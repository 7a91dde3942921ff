#pragma once
// Internal to core/schedule: the order in which each pipeline rank runs its work items, one
// builder per schedule family. The builders lay the items out as the result's events (times not
// yet set), so that simulate_schedule() only fills in start and end; nothing here knows costs.
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/schedule/schedule.hpp"

namespace meshscope::schedule_detail {

struct PlannedOrder {
  std::vector<ScheduleEvent> events;  // grouped by rank, each rank's in execution order
  std::vector<size_t> rank_begin;     // size p + 1: rank r's events are [rank_begin[r], rank_begin[r + 1])
  // Per event, or empty when no schedule pairs items: DualPipe's overlapped F&B step receives
  // all its inputs before either half runs (dualpipe.py _forward_backward_chunk), so the forward
  // marked here also waits for the input of the backward that follows it.
  std::vector<char> waits_for_next;
};

// Appends items rank by rank into storage sized up front (the simulator's hot path is this
// layout; a Debug build pays for every push_back).
class OrderWriter {
 public:
  OrderWriter(int64_t ranks, int64_t capacity, bool pairs = false) {
    order_.events.resize(static_cast<size_t>(capacity));
    order_.rank_begin.reserve(static_cast<size_t>(ranks + 1));
    if (pairs) order_.waits_for_next.resize(static_cast<size_t>(capacity), 0);
  }
  void begin_rank(int64_t rank) {
    assert(static_cast<int64_t>(order_.rank_begin.size()) == rank);
    rank_ = rank;
    order_.rank_begin.push_back(size_);
  }
  void add(WorkKind kind, int64_t micro_batch, int64_t chunk, int64_t virtual_stage, bool waits_for_next = false) {
    assert(size_ < order_.events.size());
    if (waits_for_next) order_.waits_for_next[size_] = 1;
    ScheduleEvent& event = order_.events[size_++];
    event.stage = rank_;
    event.kind = kind;
    event.micro_batch = micro_batch;
    event.chunk = chunk;
    event.virtual_stage = virtual_stage;
  }
  [[nodiscard]] PlannedOrder finish() {
    order_.rank_begin.push_back(size_);
    order_.events.resize(size_);
    if (!order_.waits_for_next.empty()) order_.waits_for_next.resize(size_);
    return std::move(order_);
  }

 private:
  PlannedOrder order_;
  size_t size_ = 0;
  int64_t rank_ = 0;
};

// Preconditions (p, m, v ≥ 1 and each schedule's own) are checked by simulate_schedule().
[[nodiscard]] PlannedOrder gpipe_order(int64_t p, int64_t m);
[[nodiscard]] PlannedOrder one_f_one_b_order(int64_t p, int64_t m);
[[nodiscard]] PlannedOrder interleaved_order(int64_t p, int64_t m, int64_t v);
[[nodiscard]] PlannedOrder zb_h1_order(int64_t p, int64_t m);
[[nodiscard]] PlannedOrder zb_h2_order(int64_t p, int64_t m);
[[nodiscard]] PlannedOrder dualpipe_order(int64_t p, int64_t m);

}  // namespace meshscope::schedule_detail
