#include "core/search/fast_model_phases.hpp"

namespace meshscope::search_detail {

// The fast model: the same per-layer compute and collective times as estimate_step(), with the
// pipeline makespan in closed form over the per-stage times and no link sharing between groups.
Score score(Evaluator& ev, const ModelSpec& m, const Candidate& c, double bucket_params_default) {
  const CandidateShape shape = candidate_shape(m, c);
  const LayerComm comm = layer_communication(ev, m, c, shape);
  const LayerWork work = layer_work(ev, m, c, shape, comm);
  const StageTimes times = stage_times(ev, m, c, shape, comm, work);
  const double makespan = pipeline_makespan_s(ev, c, shape, times, comm.p2p_s);
  const DataParallelTail tail = data_parallel_tail(ev, m, c, shape, times, bucket_params_default);
  Score result;
  result.step_time_s = makespan + tail.dp_exposed_s + tail.optimizer_s;
  result.peak_memory_bytes = peak_memory_bytes(ev, m, c, shape);
  const auto p = static_cast<double>(c.layout.pp);
  result.bubble_fraction = makespan > 0 ? std::max(0.0, 1 - times.sum_s * shape.micro_batches / (p * makespan)) : 0.0;
  return result;
}

}  // namespace meshscope::search_detail
