// DualPipe (DeepSeek-V3 technical report §3.2.1; deepseek-ai/DualPipe, dualpipe/dualpipe.py
// DualPipe.step): the compute order of each rank, step by step as the reference implementation
// issues it. Half the micro-batches enter at rank 0 (direction 0), half at rank p−1 (direction
// 1); rank r holds model stage r of direction 0 and stage p−1−r of direction 1.
#include <algorithm>
#include <array>
#include <deque>
#include <utility>

#include "core/schedule/orders.hpp"

namespace meshscope::schedule_detail {

namespace {

// dualpipe.py speaks of "phases": on the first half of the ranks phase 0 is direction 0, on the
// second half it is direction 1 (phase ^= is_in_second_half), so phase 0 is always the direction
// that enters nearer to the rank.
class DualPipeRank {
 public:
  DualPipeRank(OrderWriter& out, int64_t p, int64_t m, int64_t rank)
      : out_(out), p_(p), half_m_(m / 2), rank_(rank), second_half_(rank >= p / 2) {}

  void forward(int phase, bool paired_with_backward = false) {
    const size_t direction = direction_of(phase);
    add(WorkKind::forward, direction, next_forward_[direction]++, paired_with_backward);
  }

  // enable_zb in dualpipe.py: the weight gradient goes to a queue (WeightGradStore) and runs
  // later in weight(); otherwise B and W run fused.
  void backward(int phase, bool zero_bubble = false) {
    const size_t direction = direction_of(phase);
    const int64_t index = next_backward_[direction]++;
    if (!zero_bubble) {
      add(WorkKind::backward, direction, index);
      return;
    }
    add(WorkKind::backward_input, direction, index);
    weight_queue_.emplace_back(direction, index);
  }

  void weight() {  // WeightGradStore.pop(): first in, first out
    const auto [direction, index] = weight_queue_.front();
    weight_queue_.pop_front();
    add(WorkKind::backward_weight, direction, index);
  }

  // _forward_backward_chunk: a forward of one direction overlapped with a backward of the other.
  void forward_backward(int forward_phase, int backward_phase) {
    forward(forward_phase, true);
    backward(backward_phase);
  }

 private:
  [[nodiscard]] size_t direction_of(int phase) const { return static_cast<size_t>(phase ^ (second_half_ ? 1 : 0)); }
  void add(WorkKind kind, size_t direction, int64_t index, bool waits_for_next = false) {
    const auto chunk = static_cast<int64_t>(direction);
    const int64_t virtual_stage = direction == 0 ? rank_ : p_ - 1 - rank_;
    out_.add(kind, chunk * half_m_ + index, chunk, virtual_stage, waits_for_next);
  }

  OrderWriter& out_;
  int64_t p_, half_m_, rank_;
  bool second_half_;
  std::array<int64_t, 2> next_forward_{0, 0}, next_backward_{0, 0};
  std::deque<std::pair<size_t, int64_t>> weight_queue_;  // (direction, micro-batch index in it)
};

void add_rank(OrderWriter& out, int64_t p, int64_t m, int64_t rank) {
  const int64_t half_ranks = p / 2;
  const int64_t half_rank = std::min(rank, p - 1 - rank);
  const bool middle = rank == half_ranks - 1 || rank == half_ranks;
  out.begin_rank(rank);
  DualPipeRank r(out, p, m, rank);

  // Step 1: nF0.
  for (int64_t i = 0; i < (half_ranks - half_rank - 1) * 2; ++i) r.forward(0);
  // Step 2: nF0F1.
  for (int64_t i = 0; i < half_rank + 1; ++i) {
    r.forward(0);
    r.forward(1);
  }
  // Step 3: nB1W1F1, zero bubble (the W is the one just queued).
  for (int64_t i = 0; i < half_ranks - half_rank - 1; ++i) {
    r.backward(1, true);
    r.weight();
    r.forward(1);
  }
  // Step 4, the main step: nF0B1F1B0. The middle ranks do not overlap their first pair.
  for (int64_t i = 0; i < m / 2 - p + half_rank + 1; ++i) {
    if (i == 0 && middle) {
      r.forward(0);
      r.backward(1);
    } else {
      r.forward_backward(0, 1);
    }
    r.forward_backward(1, 0);
  }
  // Step 5: nB1F1B0.
  for (int64_t i = 0; i < half_ranks - half_rank - 1; ++i) {
    r.backward(1);
    r.forward_backward(1, 0);
  }
  // Step 6: nB1B0; the second half of these backwards defer their W.
  bool zero_bubble = false;
  const int64_t step_6 = half_rank + 1;
  for (int64_t i = 0; i < step_6; ++i) {
    if (i == step_6 / 2 && half_rank % 2 == 1) zero_bubble = true;
    r.backward(1, zero_bubble);
    if (i == step_6 / 2 && half_rank % 2 == 0) zero_bubble = true;
    r.backward(0, zero_bubble);
  }
  // Step 7: nWB0, zero bubble.
  for (int64_t i = 0; i < half_ranks - half_rank - 1; ++i) {
    r.weight();
    r.backward(0, true);
  }
  // Step 8: nW.
  for (int64_t i = 0; i < half_rank + 1; ++i) r.weight();
}

}  // namespace

// Each rank runs m forwards, m backwards and at most p Ws split off them.
PlannedOrder dualpipe_order(int64_t p, int64_t m) {
  OrderWriter out(p, p * (2 * m + p), true);
  for (int64_t rank = 0; rank < p; ++rank) add_rank(out, p, m, rank);
  return out.finish();
}

}  // namespace meshscope::schedule_detail
