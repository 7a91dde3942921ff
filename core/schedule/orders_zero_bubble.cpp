// The handcrafted zero-bubble schedules of Qi et al. 2024 ("Zero Bubble Pipeline Parallelism",
// arXiv:2401.10241, §2 and Figure 3). The backward is split into B (input gradient, on the
// critical path) and W (weight gradient, which nothing waits for and which fills idle time).
#include <algorithm>

#include "core/schedule/orders.hpp"

namespace meshscope::schedule_detail {

namespace {

// Every rank in the shape of ZeroBubbleH1Pipeline.steps() (the ZB-H1 schedule the paper's
// authors contributed to Megatron-DeepSpeed, with --enable-zbh1-exact-semantics so that W runs
// as its own item): `warmup(rank)` forwards; then forward, B, and a W whenever more than
// `w_lag(rank)` micro-batches wait for theirs; once the forwards are done, B then W; then the
// remaining Ws.
template <typename Warmup, typename Lag>
PlannedOrder zero_bubble_order(int64_t p, int64_t m, Warmup warmup, Lag w_lag) {
  OrderWriter out(p, 3 * p * m);
  for (int64_t rank = 0; rank < p; ++rank) {
    out.begin_rank(rank);
    int64_t f = 0, b = 0, w = 0;
    const int64_t warmup_forwards = std::min(warmup(rank), m);
    const int64_t lag = w_lag(rank);
    while (f < warmup_forwards) out.add(WorkKind::forward, f++, 0, rank);
    while (f < m) {
      out.add(WorkKind::forward, f++, 0, rank);
      out.add(WorkKind::backward_input, b++, 0, rank);
      if (b - w > lag) out.add(WorkKind::backward_weight, w++, 0, rank);
    }
    while (b < m) {
      out.add(WorkKind::backward_input, b++, 0, rank);
      out.add(WorkKind::backward_weight, w++, 0, rank);
    }
    while (w < m) out.add(WorkKind::backward_weight, w++, 0, rank);
  }
  return out.finish();
}

}  // namespace

// ZB-H1 (§2.1, Figure 3 top): 1F1B's warm-up (p − rank − 1 forwards before the first
// forward/B pair), with rank r deferring its Ws by r micro-batches so that they fill the
// cool-down. Every rank then holds at most p micro-batches, as 1F1B's first rank does.
PlannedOrder zb_h1_order(int64_t p, int64_t m) {
  return zero_bubble_order(
      p, m, [p](int64_t rank) { return p - rank - 1; }, [](int64_t rank) { return rank; });
}

// ZB-H2 (§2.2, Figure 3 bottom): 2p − 2r − 1 forwards before rank r's first B (twice 1F1B's
// warm-up: it fills the bubble before the first B) and Ws deferred by 2r micro-batches (which
// turns the tail into a parallelogram). Every rank holds up to 2p − 1 micro-batches. For p = 4,
// m = 8 the figure shows rank 0 running F1–F7 B1 W1 F8 B2 W2 … B8 W8 and rank 3 running
// F1 B1 … F7 B7 W1 F8 B8 W2 … W8; this builder gives both.
PlannedOrder zb_h2_order(int64_t p, int64_t m) {
  return zero_bubble_order(
      p, m, [p](int64_t rank) { return 2 * (p - rank - 1); }, [](int64_t rank) { return 2 * rank; });
}

}  // namespace meshscope::schedule_detail
