// Offline runs through the continuous-batching scheduler, and disaggregated prefill/decode.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "core/serving/serving.hpp"

namespace meshscope {

OfflineRun simulate_offline(const ServingModel& s, int64_t num_requests) {
  OfflineRun run;
  run.requests = num_requests;
  const auto prompt = static_cast<double>(s.workload().prompt_len);
  const int64_t output = std::max<int64_t>(s.workload().output_len, 1);
  const int64_t max_batch = std::max<int64_t>(s.max_batch(), 1);
  const double budget = s.token_budget();
  // A prompt runs in one scheduled batch (one attention rank, one micro-batch).
  const double rank_budget = budget / static_cast<double>(s.layout().dp * s.layout().pp);
  const bool chunked = s.engine().chunked_prefill;
  struct Cohort {
    int64_t count;
    int64_t produced;  // tokens produced so far (the prefill iteration produced the first)
  };
  struct Prefilling {
    double done;  // prompt tokens already prefilled
  };
  std::deque<Cohort> decoding;
  std::deque<Prefilling> prefilling;
  int64_t waiting = num_requests, decoding_count = 0;
  double now = 0, ttft_sum = 0, itl_weighted = 0, decode_tokens = 0, output_tokens = 0;
  while (waiting > 0 || decoding_count > 0 || !prefilling.empty()) {
    StepBatch b;
    b.decode_sequences = static_cast<double>(decoding_count);
    for (const Cohort& c : decoding)
      b.decode_context += static_cast<double>(c.count) * (prompt + static_cast<double>(c.produced));
    double room = std::max(budget - b.decode_sequences, 0.0);
    int64_t running = decoding_count + static_cast<int64_t>(prefilling.size());
    // Admission: first come, first served, while the batch limit (which includes the KV
    // reservation) and the token budget allow; without chunking a prompt must fit whole.
    if (chunked) {
      double pending = 0;
      for (const Prefilling& p : prefilling) pending += prompt - p.done;
      while (waiting > 0 && running < max_batch && pending < room) {
        prefilling.push_back({0});
        pending += prompt;
        --waiting;
        ++running;
      }
    } else {
      double left = room;
      while (waiting > 0 && running < max_batch && left >= prompt) {
        prefilling.push_back({0});
        left -= prompt;
        --waiting;
        ++running;
      }
    }
    int64_t finished_prefill = 0;
    for (auto& p : prefilling) {
      if (room <= 0) break;
      const double c = std::min({room, prompt - p.done, rank_budget});
      b.prefill_tokens += c;
      b.prefill_prompts += 1;
      b.prefill_pairs += c * (p.done + c / 2);
      p.done += c;
      room -= c;
      if (p.done >= prompt) ++finished_prefill;
    }
    b.sampled_tokens = b.decode_sequences + static_cast<double>(finished_prefill);
    if (b.prefill_tokens <= 0 && b.decode_sequences <= 0) break;  // cannot progress (budget < prompt)
    const double t = s.step(b).time_s;
    now += t;
    ++run.iterations;
    run.peak_batch = std::max(run.peak_batch, running);
    itl_weighted += t * b.decode_sequences;
    decode_tokens += b.decode_sequences;
    output_tokens += b.decode_sequences + static_cast<double>(finished_prefill);
    // Decodes advance; finished sequences leave.
    for (auto& c : decoding) ++c.produced;
    while (!decoding.empty() && decoding.front().produced >= output) {
      decoding_count -= decoding.front().count;
      decoding.pop_front();
    }
    // Prompts that completed produce their first token and start decoding.
    while (!prefilling.empty() && prefilling.front().done >= prompt) prefilling.pop_front();
    if (finished_prefill > 0) {
      ttft_sum += now * static_cast<double>(finished_prefill);
      if (output > 1) {
        decoding.push_back({finished_prefill, 1});
        decoding_count += finished_prefill;
      }
    }
  }
  run.total_s = now;
  run.output_tokens_per_s = now > 0 ? output_tokens / now : 0;
  run.mean_ttft_s = num_requests > 0 ? ttft_sum / static_cast<double>(num_requests) : 0;
  run.mean_itl_s = decode_tokens > 0 ? itl_weighted / decode_tokens : 0;
  return run;
}

// ---- Disaggregated prefill and decode --------------------------------------------------------------

Result<DisaggregatedEstimate> estimate_disaggregated(const ModelSpec& m, const ServingWorkload& w,
                                                     const DisaggregatedLayout& l, const Cluster& cluster,
                                                     const Router& router, const ServingOptions& options,
                                                     int64_t prefill_batch, int64_t decode_batch) {
  if (l.gpus() > cluster.num_gpus())
    return make_error(ErrorCode::invalid_layout,
                      "prefill and decode need " + std::to_string(l.gpus()) + " GPUs but the cluster has " +
                          std::to_string(cluster.num_gpus()),
                      "--prefill-layout");
  for (const auto* side : {&l.prefill, &l.decode}) {
    const auto problems = validate_serving(m, *side);
    if (!problems.empty())
      return make_error(ErrorCode::invalid_layout, "[" + problems.front().field + "] " + problems.front().message,
                        side == &l.prefill ? "--prefill-layout" : "--decode-layout");
  }
  MS_TRY(prefill, ServingModel::create(m, w, l.prefill, cluster, router, options, 0));
  MS_TRY(decode, ServingModel::create(m, w, l.decode, cluster, router, options, l.prefill.gpus()));
  if (!prefill.weights_fit() || !decode.weights_fit() || prefill.kv_max_batch() < 1 || decode.kv_max_batch() < 1)
    return make_error(ErrorCode::invalid_layout, "the weights or one sequence's KV cache do not fit an instance",
                      "--layout");
  const auto prompt = static_cast<double>(w.prompt_len);
  const auto output = static_cast<double>(w.output_len);
  DisaggregatedEstimate est;

  // Prefill: k prompts per iteration, as many as the token budget holds.
  const auto fit = static_cast<int64_t>(std::floor(prefill.token_budget() / prompt));  // over all DP ranks
  est.prefill_batch = prefill_batch > 0 ? prefill_batch : std::clamp<int64_t>(fit, 1, prefill.max_batch());
  double prefill_time = 0;
  StepCost prefill_cost;
  if (est.prefill_batch == 1) {
    prefill_time = prefill.prefill_s(prompt);
    StepBatch b{prompt, 1, prompt * prompt / 2, 0, 0, 1};
    prefill_cost = prefill.step(b);
  } else {
    const auto k = static_cast<double>(est.prefill_batch);
    StepBatch b{k * prompt, k, k * prompt * prompt / 2, 0, 0, k};
    prefill_cost = prefill.step(b);
    prefill_time = prefill_cost.time_s;
  }
  est.prefill_requests_per_s =
      static_cast<double>(l.prefill.replicas * est.prefill_batch) / std::max(prefill_time, 1e-12);

  // KV transfer: every prefill rank sends its shard to its decode peer at once (NIXL, Mooncake
  // transfer engine), over the route between the two groups, not overlapped with the prefill.
  est.kv_bytes_per_request = kv_cache_bytes_per_token(m, w.kv_dtype) * m.kv_resident_tokens(prompt);
  const Route route = router.route(cluster.gpus.front(), cluster.gpus[static_cast<size_t>(l.prefill.gpus())]);
  double bandwidth = 0;
  if (route.reachable && route.bottleneck.valid())
    bandwidth = route.bottleneck_bytes_per_s * options.comm.efficiency(cluster.link(route.bottleneck).kind);
  const auto flows = static_cast<double>(std::min(l.prefill.instance_gpus(), l.decode.instance_gpus()));
  est.kv_transfer_s = bandwidth > 0 ? route.latency_s + est.kv_bytes_per_request / (flows * bandwidth) : 0.0;

  // Decode: a batch of sequences at the mean context.
  est.decode_batch = decode_batch > 0 ? std::min(decode_batch, decode.max_batch()) : decode.max_batch();
  const StepCost decode_cost = decode.decode_step(static_cast<double>(est.decode_batch), prompt + output / 2);
  est.itl_s = decode_cost.time_s;
  est.decode_requests_per_s =
      output > 1 ? static_cast<double>(l.decode.replicas * est.decode_batch) / ((output - 1) * est.itl_s)
                 : std::numeric_limits<double>::infinity();
  est.ttft_s = prefill_time + est.kv_transfer_s;
  est.e2e_latency_s = est.ttft_s + (output - 1) * est.itl_s;
  const bool prefill_bound = est.prefill_requests_per_s < est.decode_requests_per_s;
  const double rate = std::min(est.prefill_requests_per_s, est.decode_requests_per_s);
  est.output_tokens_per_s = rate * output;
  est.output_tokens_per_s_per_gpu = est.output_tokens_per_s / static_cast<double>(l.gpus());
  est.bound_by = prefill_bound ? "prefill pool" : "decode pool";
  est.binding = prefill_bound
                    ? prefill_cost.binding
                    : (est.decode_batch >= decode.max_batch()
                           ? (decode.engine().max_batch > 0 && decode.engine().max_batch < decode.kv_max_batch()
                                  ? ServingBinding::batch_limit
                                  : ServingBinding::kv_capacity)
                           : decode_cost.binding);
  return est;
}

}  // namespace meshscope
