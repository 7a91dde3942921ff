// GPipe, 1F1B and interleaved 1F1B: the backward is not split, so every backward is one fused
// B+W item.
#include <algorithm>

#include "core/schedule/orders.hpp"

namespace meshscope::schedule_detail {

// Huang et al. 2019 (GPipe): every forward, then every backward, in micro-batch order.
PlannedOrder gpipe_order(int64_t p, int64_t m) {
  OrderWriter out(p, 2 * p * m);
  for (int64_t rank = 0; rank < p; ++rank) {
    out.begin_rank(rank);
    for (int64_t i = 0; i < m; ++i) out.add(WorkKind::forward, i, 0, rank);
    for (int64_t i = 0; i < m; ++i) out.add(WorkKind::backward, i, 0, rank);
  }
  return out.finish();
}

// Narayanan et al. SC21 §2.2.1 (PipeDream-Flush), as Megatron-LM's
// forward_backward_pipelining_without_interleaving runs it: min(p − rank − 1, m) warm-up
// forwards, then one forward and one backward at a time, then the remaining backwards.
PlannedOrder one_f_one_b_order(int64_t p, int64_t m) {
  OrderWriter out(p, 2 * p * m);
  for (int64_t rank = 0; rank < p; ++rank) {
    out.begin_rank(rank);
    const int64_t warmup = std::min(p - rank - 1, m);
    for (int64_t i = 0; i < warmup; ++i) out.add(WorkKind::forward, i, 0, rank);
    for (int64_t i = 0; i < m - warmup; ++i) {
      out.add(WorkKind::forward, warmup + i, 0, rank);
      out.add(WorkKind::backward, i, 0, rank);
    }
    for (int64_t i = m - warmup; i < m; ++i) out.add(WorkKind::backward, i, 0, rank);
  }
  return out.finish();
}

// Narayanan et al. SC21 §2.2.2, in the order of Megatron-LM's
// forward_backward_pipelining_with_interleaving (megatron/core/pipeline_parallel/schedules.py):
// a rank's k-th chunk-step works on model chunk (k mod pv) / p (reversed for backwards) and
// micro-batch ⌊k / pv⌋·p + k mod p, so chunks advance in groups of p micro-batches. Warm-up:
// 2(p − rank − 1) + (v − 1)·p chunk-forwards, or all of them when m = p.
PlannedOrder interleaved_order(int64_t p, int64_t m, int64_t v) {
  const int64_t total = m * v;
  const int64_t group = p * v;
  OrderWriter out(p, 2 * p * total);
  for (int64_t rank = 0; rank < p; ++rank) {
    out.begin_rank(rank);
    const auto add = [&](WorkKind kind, int64_t k) {
      const int64_t micro_batch = (k / group) * p + k % p;
      const int64_t in_group = (k % group) / p;
      const int64_t chunk = kind == WorkKind::forward ? in_group : v - 1 - in_group;
      out.add(kind, micro_batch, chunk, chunk * p + rank);
    };
    const int64_t warmup = interleaved_warmup_items(rank, p, m, v);
    for (int64_t k = 0; k < warmup; ++k) add(WorkKind::forward, k);
    for (int64_t k = 0; k < total - warmup; ++k) {
      add(WorkKind::forward, warmup + k);
      add(WorkKind::backward, k);
    }
    for (int64_t k = total - warmup; k < total; ++k) add(WorkKind::backward, k);
  }
  return out.finish();
}

}  // namespace meshscope::schedule_detail
