// estimate_step's phases (core/estimate/step_phases.hpp), each on its own: what the layer's
// collectives read from the plan, what overlap leaves exposed, the stages' costs and sends, the
// schedule, the data-parallel tail, and that estimate_step is their composition.
#include <algorithm>
#include <catch2/catch.hpp>

#include "core/estimate/step_phases.hpp"
#include "core/model/catalogue.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;
using namespace meshscope::step_detail;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

TrainingWorkload workload() {
  TrainingWorkload w;
  w.seq_len = 8192;
  w.global_batch = 64;
  return w;
}

Layout layout(int64_t tp, int64_t pp, int64_t dp, bool sp = true) {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.sp = sp && tp > 1;
  return l;
}

// The phases' inputs for one layout of Llama 3.1 8B on one DGX H100 node.
struct Phases {
  ModelSpec m = *model_preset("llama3.1-8b");
  Cluster cluster = *generate_cluster("dgx-h100");
  Router router{cluster};
  EstimateOptions options;
};

}  // namespace

TEST_CASE("step phases: a layer's TP collectives are the plan's, two per pass (SC21 §3.2)") {
  Phases p;
  const TrainingWorkload w = workload();
  for (const bool sp : {true, false}) {
    const Layout l = layout(8, 1, 1, sp);
    auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
    REQUIRE(comm);
    auto setup = step_setup(p.m, w, l, p.cluster, p.options);
    REQUIRE(setup);
    const LayerCollectives c = layer_collectives(*setup, *comm);
    CHECK(c.tp_planned);
    const auto tp =
        std::find_if(comm->axes.begin(), comm->axes.end(), [](const AxisComm& a) { return a.axis == MeshAxis::tp; });
    REQUIRE(tp != comm->axes.end());
    const auto call = [&](CollectiveOp op) {
      for (const auto& collective : tp->collectives)
        if (collective.op == op) return collective.time_s;
      return 0.0;
    };
    if (sp) {
      CHECK(c.tp_all_gather_s == call(CollectiveOp::all_gather));
      CHECK(c.tp_reduce_scatter_s == call(CollectiveOp::reduce_scatter));
      CHECK(c.tp_s == 2 * (c.tp_all_gather_s + c.tp_reduce_scatter_s));
    } else {
      CHECK(c.tp_s == 2 * call(CollectiveOp::all_reduce));
    }
    CHECK(c.tp_s > 0);
    CHECK(c.p2p_s == 0);  // no pipeline
  }
}

TEST_CASE("step phases: without tp_comm_overlap a layer's TP is all exposed; with it, less") {
  Phases p;
  TrainingWorkload w = workload();
  const Layout l = layout(8, 1, 1);
  auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(comm);
  auto exposed = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(exposed);
  const LayerCollectives c = layer_collectives(*exposed, *comm);
  const LayerOverlap none = layer_overlap(*exposed, c);
  CHECK_FALSE(none.tp_overlap);
  CHECK(none.tp_dense.forward_s == c.tp_s);
  CHECK(none.tp_dense.backward_s == c.tp_s);
  w.tp_comm_overlap = true;
  auto overlapped = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(overlapped);
  const LayerOverlap te = layer_overlap(*overlapped, c);
  CHECK(te.tp_overlap);
  CHECK(te.tp_dense.forward_s < c.tp_s);
  CHECK(te.tp_dense.backward_s < c.tp_s);
}

TEST_CASE("step phases: a layer recomputed in full repeats its forward's exposed communication") {
  Phases p;
  const TrainingWorkload w = workload();
  Layout l = layout(4, 1, 1);
  l.cp = 2;
  auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(comm);
  auto setup = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(setup);
  const LayerCollectives c = layer_collectives(*setup, *comm);
  const LayerOverlap o = layer_overlap(*setup, c);
  const WorkTime compute = layer_compute(setup->context(), 0, false);
  const LayerExposed kept = exposed_communication(*setup, c, o, 0, compute, false);
  const LayerExposed recomputed = exposed_communication(*setup, c, o, 0, compute, true);
  CHECK(kept.tp.recompute_s == 0);  // selective recompute of the attention core repeats no TP
  CHECK(recomputed.tp.recompute_s == recomputed.tp.forward_s);
  CHECK(recomputed.cp.recompute_s == recomputed.cp.forward_s);
  CHECK(recomputed.tp.total_s() == recomputed.tp.forward_s + recomputed.tp.backward_s + recomputed.tp.recompute_s);
  CHECK(kept.tp.forward_s == o.tp_dense.forward_s);
  CHECK(kept.ep.total_s() == 0);  // a dense layer
}

TEST_CASE("step phases: 1F1B stages send activations onwards and gradients back, one each per micro-batch") {
  Phases p;
  const TrainingWorkload w = workload();
  const Layout l = layout(4, 2, 1);
  auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(comm);
  auto setup = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(setup);
  const LayerCollectives c = layer_collectives(*setup, *comm);
  REQUIRE(c.p2p_s > 0);
  const StageCompute stages = stage_compute(*setup, c, layer_overlap(*setup, c));
  REQUIRE(stages.costs.size() == 2);
  REQUIRE(stages.chunk_costs.size() == 2);
  // The first rank sends its activations forward, the last its input gradients back.
  CHECK_THAT(stages.with_sends[0].forward_s - stages.costs[0].forward_s, WithinRel(c.p2p_s, 1e-9));
  CHECK(stages.with_sends[0].backward_input_s == stages.costs[0].backward_input_s);
  CHECK(stages.with_sends[1].forward_s == stages.costs[1].forward_s);
  CHECK_THAT(stages.with_sends[1].backward_input_s - stages.costs[1].backward_input_s, WithinRel(c.p2p_s, 1e-9));
  CHECK(stages.work[0].p2p_s == c.p2p_s);
  CHECK(stages.work[1].p2p_s == c.p2p_s);
  // The embedding is the first rank's, the LM head the last's.
  CHECK(stages.costs[1].forward_s > stages.costs[0].forward_s - stages.embedding.forward_s);
}

TEST_CASE("step phases: one pipeline stage runs its micro-batches back to back") {
  Phases p;
  const TrainingWorkload w = workload();
  const Layout l = layout(8, 1, 1);
  auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(comm);
  auto setup = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(setup);
  const LayerCollectives c = layer_collectives(*setup, *comm);
  StageCompute stages = stage_compute(*setup, c, layer_overlap(*setup, c));
  const StageCosts one = stages.with_sends.front();
  auto schedule = simulate_step_schedule(*setup, c.p2p_s, std::move(stages.with_sends), std::move(stages.chunk_costs));
  REQUIRE(schedule);
  CHECK(setup->micro_batches == 64);
  CHECK_THAT(schedule->makespan_s, WithinRel(static_cast<double>(setup->micro_batches) *
                                                 (one.forward_s + one.backward_input_s + one.backward_weight_s),
                                             1e-9));
  CHECK_THAT(schedule->bubble_fraction, WithinAbs(0, 1e-9));
}

TEST_CASE("step phases: data parallelism's reduction is all exposed without overlap_grad_reduce, less with it") {
  Phases p;
  TrainingWorkload w = workload();
  w.zero_stage = 1;
  const Layout single = layout(8, 1, 1);
  {
    auto comm = step_communication(p.m, w, single, p.cluster, p.router, p.options);
    REQUIRE(comm);
    auto setup = step_setup(p.m, w, single, p.cluster, p.options);
    REQUIRE(setup);
    const DataParallelCost d = data_parallel_cost(*setup, *comm, StageCosts{1, 1, 1});
    CHECK_FALSE(d.has_dp);
    CHECK(d.exposed_s == 0);
  }
  const Layout l = layout(1, 1, 8);
  double exposed[2] = {0, 0};
  for (const bool overlap : {false, true}) {
    w.overlap_grad_reduce = overlap;
    auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
    REQUIRE(comm);
    auto setup = step_setup(p.m, w, l, p.cluster, p.options);
    REQUIRE(setup);
    const LayerCollectives c = layer_collectives(*setup, *comm);
    const StageCompute stages = stage_compute(*setup, c, layer_overlap(*setup, c));
    const DataParallelCost d = data_parallel_cost(*setup, *comm, stages.costs.front());
    CHECK(d.has_dp);
    CHECK(d.distributed_optimizer);
    CHECK(d.grad_overlap == overlap);
    CHECK(d.exposed_s > 0);
    exposed[overlap ? 1 : 0] = d.exposed_s;
  }
  CHECK(exposed[1] < exposed[0]);
}

TEST_CASE("step phases: estimate_step is its phases composed") {
  Phases p;
  TrainingWorkload w = workload();
  w.zero_stage = 1;
  w.overlap_grad_reduce = true;
  const Layout l = layout(2, 2, 2);
  auto estimate = estimate_step(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(estimate);
  auto comm = step_communication(p.m, w, l, p.cluster, p.router, p.options);
  REQUIRE(comm);
  auto setup = step_setup(p.m, w, l, p.cluster, p.options);
  REQUIRE(setup);
  const LayerCollectives c = layer_collectives(*setup, *comm);
  const LayerOverlap o = layer_overlap(*setup, c);
  StageCompute stages = stage_compute(*setup, c, o);
  auto schedule = simulate_step_schedule(*setup, c.p2p_s, std::move(stages.with_sends), std::move(stages.chunk_costs));
  REQUIRE(schedule);
  const DataParallelCost d = data_parallel_cost(*setup, *comm, stages.costs.front());
  const OptimizerCost optimizer = optimizer_cost(*setup);
  CHECK(estimate->step_time_s == schedule->makespan_s + d.exposed_s + optimizer.time_s);
  const StepBreakdown b = step_breakdown(*setup, stages, *schedule, busiest_stage(*schedule), d, optimizer);
  CHECK(estimate->breakdown.forward_s == b.forward_s);
  CHECK(estimate->breakdown.bubble_s == b.bubble_s);
  CHECK(estimate->breakdown.dp_exposed_s == d.exposed_s);
  CHECK(estimate->breakdown.optimizer_s == optimizer.time_s);
  CHECK(estimate->assumptions == step_assumptions(*setup, o, d));
  CHECK(estimate->operations.size() == step_operations(*setup, stages, busiest_stage(*schedule), optimizer).size());
}

TEST_CASE("step phases: the setup refuses a precision the GPU has no tensor cores for") {
  Phases p;
  auto cluster = generate_cluster("dgx-a100");
  REQUIRE(cluster);
  TrainingWorkload w = workload();
  const Layout l = layout(8, 1, 1);  // the setup refers to it
  w.compute_dtype = DType::fp8;
  CHECK_FALSE(step_setup(p.m, w, l, *cluster, p.options));
  w.compute_dtype = DType::bf16;
  CHECK(step_setup(p.m, w, l, *cluster, p.options));
}
