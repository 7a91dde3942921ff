// The layout search's fast model (core/search/fast_model_phases.hpp) phase by phase: the layer's
// communication against the detailed model's plan, the closed-form makespan of one stage, the
// data-parallel tail, the memory phase against the memory budget, and score() as their composition.
#include <catch2/catch.hpp>
#include <tuple>

#include "core/estimate/step_phases.hpp"
#include "core/model/catalogue.hpp"
#include "core/search/fast_model_phases.hpp"
#include "core/topology/generators.hpp"

using namespace meshscope;
using namespace meshscope::search_detail;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// One evaluator over Llama 3.1 8B on one DGX H100 node, and a candidate to rewrite.
struct FastModel {
  ModelSpec m = *model_preset("llama3.1-8b");
  Cluster cluster = *generate_cluster("dgx-h100");
  Router router{cluster};
  SearchOptions options;
  SharedCaches shared;
  Evaluator ev{m, cluster, options, router, shared};
  Candidate c;

  FastModel() {
    c.workload.seq_len = 8192;
    c.workload.global_batch = 64;
  }
  void set(int64_t tp, int64_t pp, int64_t dp) {
    c.layout.tp = tp;
    c.layout.pp = pp;
    c.layout.dp = dp;
    c.layout.sp = tp > 1;
  }
};

}  // namespace

TEST_CASE("fast model: a layer's TP collectives cost what the detailed model's plan gives them") {
  FastModel f;
  f.set(8, 1, 1);
  const CandidateShape shape = candidate_shape(f.m, f.c);
  const LayerComm comm = layer_communication(f.ev, f.m, f.c, shape);
  auto plan = step_detail::step_communication(f.m, f.c.workload, f.c.layout, f.cluster, f.router, {});
  REQUIRE(plan);
  auto setup = step_detail::step_setup(f.m, f.c.workload, f.c.layout, f.cluster, {});
  REQUIRE(setup);
  const step_detail::LayerCollectives detailed = step_detail::layer_collectives(*setup, *plan);
  CHECK_THAT(comm.tp_dense.forward_s, WithinRel(detailed.tp_s, 1e-9));
  CHECK(comm.tp_dense.forward_s == comm.tp_dense.backward_s);
  CHECK(comm.ep_s == 0);   // a dense model
  CHECK(comm.p2p_s == 0);  // no pipeline
  CHECK(comm.cp_forward_s == 0);
}

TEST_CASE("fast model: one pipeline stage runs its micro-batches back to back") {
  FastModel f;
  f.set(8, 1, 1);
  const CandidateShape shape = candidate_shape(f.m, f.c);
  CHECK(shape.micro_batches == 64);
  const LayerComm comm = layer_communication(f.ev, f.m, f.c, shape);
  const LayerWork work = layer_work(f.ev, f.m, f.c, shape, comm);
  const StageTimes times = stage_times(f.ev, f.m, f.c, shape, comm, work);
  CHECK(times.max_s == times.sum_s);
  CHECK_THAT(times.first_forward_s + times.first_backward_s, WithinRel(times.sum_s, 1e-12));
  CHECK_THAT(pipeline_makespan_s(f.ev, f.c, shape, times, comm.p2p_s), WithinRel(64 * times.sum_s, 1e-12));
}

TEST_CASE("fast model: more pipeline stages fill and drain the pipeline; sends cost each stage") {
  FastModel f;
  f.set(2, 4, 1);
  const CandidateShape shape = candidate_shape(f.m, f.c);
  const LayerComm comm = layer_communication(f.ev, f.m, f.c, shape);
  REQUIRE(comm.p2p_s > 0);
  const StageTimes times = stage_times(f.ev, f.m, f.c, shape, comm, layer_work(f.ev, f.m, f.c, shape, comm));
  CHECK(times.max_s < times.sum_s);
  const double makespan = pipeline_makespan_s(f.ev, f.c, shape, times, comm.p2p_s);
  // 1F1B (SC21 §2.2.1): (m − 1)·t_max + Σ t_s, and the first and last transfers' 2(p − 1) sends.
  CHECK_THAT(makespan, WithinRel((shape.micro_batches - 1) * times.max_s + times.sum_s + 2 * 3 * comm.p2p_s, 1e-12));
}

TEST_CASE("fast model: without data parallelism the tail is the optimizer step alone") {
  FastModel f;
  f.set(8, 1, 1);
  const CandidateShape shape = candidate_shape(f.m, f.c);
  const LayerComm comm = layer_communication(f.ev, f.m, f.c, shape);
  const StageTimes times = stage_times(f.ev, f.m, f.c, shape, comm, layer_work(f.ev, f.m, f.c, shape, comm));
  const DataParallelTail single = data_parallel_tail(f.ev, f.m, f.c, shape, times, 40e6);
  CHECK(single.dp_exposed_s == 0);
  CHECK(single.optimizer_s > 0);
  f.set(1, 1, 8);
  const CandidateShape replicated = candidate_shape(f.m, f.c);
  const LayerComm replicated_comm = layer_communication(f.ev, f.m, f.c, replicated);
  const StageTimes replicated_times =
      stage_times(f.ev, f.m, f.c, replicated, replicated_comm, layer_work(f.ev, f.m, f.c, replicated, replicated_comm));
  CHECK(data_parallel_tail(f.ev, f.m, f.c, replicated, replicated_times, 40e6).dp_exposed_s > 0);
}

TEST_CASE("fast model: the memory phase's peak is the memory budget's") {
  FastModel f;
  for (const auto& [tp, pp, dp] : {std::tuple{8, 1, 1}, std::tuple{2, 4, 1}, std::tuple{1, 2, 4}}) {
    f.set(tp, pp, dp);
    INFO("TP" << tp << " PP" << pp << " DP" << dp);
    CHECK_THAT(peak_memory_bytes(f.ev, f.m, f.c, candidate_shape(f.m, f.c)),
               WithinRel(training_memory(f.m, f.c.workload, f.c.layout, f.ev.gpu()).peak_total_bytes(), 1e-9));
  }
}

TEST_CASE("fast model: score is its phases composed") {
  FastModel f;
  f.set(2, 2, 2);
  f.c.workload.zero_stage = 1;
  f.c.workload.overlap_grad_reduce = true;
  const Score s = score(f.ev, f.m, f.c, 40e6);
  const CandidateShape shape = candidate_shape(f.m, f.c);
  const LayerComm comm = layer_communication(f.ev, f.m, f.c, shape);
  const StageTimes times = stage_times(f.ev, f.m, f.c, shape, comm, layer_work(f.ev, f.m, f.c, shape, comm));
  const double makespan = pipeline_makespan_s(f.ev, f.c, shape, times, comm.p2p_s);
  const DataParallelTail tail = data_parallel_tail(f.ev, f.m, f.c, shape, times, 40e6);
  CHECK(s.step_time_s == makespan + tail.dp_exposed_s + tail.optimizer_s);
  CHECK(s.peak_memory_bytes == peak_memory_bytes(f.ev, f.m, f.c, shape));
  CHECK_THAT(s.bubble_fraction, WithinAbs(1 - times.sum_s * shape.micro_batches / (2 * makespan), 1e-15));
}
