// "Replicas or sharding?": every serving instance layout of a cluster (TP × PP, and for MoE models
// attention DP × EP), as many replicas as fit, and prefill/decode splits between two of them,
// ranked by output tokens/s per GPU at the largest load that meets a TTFT and ITL target.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/serving/serving.hpp"

namespace meshscope {
namespace {

std::vector<int64_t> powers_of_two(int64_t limit) {
  std::vector<int64_t> values;
  for (int64_t v = 1; v <= limit; v *= 2) values.push_back(v);
  return values;
}

// Concurrencies tried per replica: 1, 2, 3, 4, 6, 8, 12, … (×~1.5) and the maximum.
std::vector<int64_t> concurrency_grid(int64_t max_batch) {
  std::vector<int64_t> grid;
  for (double n = 1; n < static_cast<double>(max_batch); n = std::max(n + 1, std::floor(n * 1.5)))
    grid.push_back(static_cast<int64_t>(n));
  grid.push_back(max_batch);
  return grid;
}

int64_t gpus_per_node(const Cluster& cluster) {
  if (cluster.gpus.empty()) return 1;
  const int32_t node = cluster.device(cluster.gpus.front()).node;
  int64_t count = 0;
  for (const DeviceId g : cluster.gpus)
    if (cluster.device(g).node == node) ++count;
  return std::max<int64_t>(count, 1);
}

// One instance layout that fits, with its best operating points as a prefill and a decode side.
struct Instance {
  ServingLayout layout;
  std::optional<ServingModel> model;
  // Disaggregated sides at the target: requests/s of one instance (0: cannot meet it).
  double prefill_rate = 0, prefill_time = 0;
  double decode_rate = 0, decode_itl = 0;
  int64_t decode_batch = 0;
  ServingBinding prefill_binding = ServingBinding::compute, decode_binding = ServingBinding::compute;
};

// The workload's request: its prompt, its output and the prompt's square (the attention's pairs).
struct Request {
  double prompt = 0, output = 0, prompt_square = 0;
};

void reject(ServingRankResult& result, const std::string& reason) {
  ++result.rejected[reason];
}

// The instance of layout `l`, or none (its reason counted) where it is invalid, cannot be placed or
// does not hold its weights and one sequence's KV cache.
std::optional<Instance> instance_of(const ModelSpec& m, const ServingWorkload& w, const ServingLayout& l,
                                    const Cluster& cluster, const Router& router, const ServingRankOptions& options,
                                    int64_t world, ServingRankResult& result) {
  const auto problems = validate_serving(m, l, world);
  if (!problems.empty()) {
    reject(result, "invalid split (" + problems.front().field + ")");
    return std::nullopt;
  }
  auto model = ServingModel::create(m, w, l, cluster, router, options.serving);
  if (!model) {
    reject(result, "cannot be placed: " + model.error().message);
    return std::nullopt;
  }
  if (!model->weights_fit()) {
    reject(result, "weights do not fit in GPU memory");
    return std::nullopt;
  }
  if (model->kv_max_batch() < 1) {
    reject(result, "KV cache cannot hold one sequence");
    return std::nullopt;
  }
  return Instance{l, std::move(*model)};
}

// Colocated: the largest concurrency that meets both targets, ranked; else the target it misses.
void rank_colocated(const Instance& inst, const Request& q, const ServingTarget& target, ServingRankResult& result) {
  const ServingModel& s = *inst.model;
  const ServingLayout& l = inst.layout;
  std::optional<ServingPoint> best;
  std::optional<ServingPoint> first;
  for (const int64_t n : concurrency_grid(s.max_batch())) {
    const ServingPoint p = serving_point(s, q.prompt, q.prompt_square, q.output, n);
    if (!first) first = p;
    if (p.ttft_s <= target.max_ttft_s && p.itl_s <= target.max_itl_s &&
        (!best || p.output_tokens_per_s > best->output_tokens_per_s))
      best = p;
  }
  if (best) {
    ++result.valid;
    RankedServing r;
    r.layout = l;
    r.gpus_used = l.gpus();
    r.concurrency = best->concurrency;
    r.ttft_s = best->ttft_s;
    r.itl_s = best->itl_s;
    r.output_tokens_per_s = best->output_tokens_per_s;
    r.output_tokens_per_s_per_gpu = best->output_tokens_per_s / static_cast<double>(l.gpus());
    r.binding = best->binding;
    result.layouts.push_back(r);
  } else {
    reject(result, first->ttft_s > target.max_ttft_s ? "TTFT above target at concurrency 1"
                                                     : "ITL above target at concurrency 1");
  }
}

// As a prefill side: k prompts per iteration, the most per second within the TTFT target.
void size_prefill_side(Instance& inst, const Request& q, const ServingTarget& target) {
  const ServingModel& s = *inst.model;
  const auto fit = static_cast<int64_t>(std::floor(s.token_budget() / q.prompt));
  for (int64_t k = 1; k <= std::max<int64_t>(std::min(fit, s.max_batch()), 1); k *= 2) {
    const double kk = static_cast<double>(k);
    const double time = k == 1 ? s.prefill_s(q.prompt)
                               : s.step(StepBatch{kk * q.prompt, kk, kk * q.prompt_square / 2, 0, 0, kk}).time_s;
    if (time > target.max_ttft_s) break;
    if (kk / time > inst.prefill_rate) {
      inst.prefill_rate = kk / time;
      inst.prefill_time = time;
      inst.prefill_binding = s.step(StepBatch{kk * q.prompt, kk, kk * q.prompt_square / 2, 0, 0, kk}).binding;
    }
  }
}

// As a decode side: the largest batch within the ITL target.
void size_decode_side(Instance& inst, const Request& q, const ServingTarget& target) {
  const ServingModel& s = *inst.model;
  for (const int64_t b : concurrency_grid(s.max_batch())) {
    const StepCost c = s.decode_step(static_cast<double>(b), q.prompt + q.output / 2);
    if (c.time_s > target.max_itl_s) break;
    inst.decode_batch = b;
    inst.decode_itl = c.time_s;
    inst.decode_rate = static_cast<double>(b) / ((q.output - 1) * c.time_s);
    inst.decode_binding = b >= s.max_batch() ? ServingBinding::kv_capacity : c.binding;
  }
}

// Every instance layout of the cluster (TP × PP, and for MoE models attention DP × EP) that fits:
// each ranked colocated and sized as a prefill and a decode side.
std::vector<Instance> rank_instances(const ModelSpec& m, const ServingWorkload& w, const Cluster& cluster,
                                     const Router& router, const ServingTarget& target,
                                     const ServingRankOptions& options, const Request& q, ServingRankResult& result) {
  const int64_t world = cluster.num_gpus();
  const int64_t max_tp = options.max_tp > 0 ? options.max_tp : gpus_per_node(cluster);
  std::vector<Instance> instances;
  for (const int64_t tp : powers_of_two(max_tp))
    for (const int64_t pp : powers_of_two(world / tp))
      for (const int64_t dp : powers_of_two(m.is_moe() ? world / (tp * pp) : 1))
        for (const int64_t ep : powers_of_two(m.is_moe() ? tp * dp : 1)) {
          ServingLayout l;
          l.tp = tp;
          l.pp = pp;
          l.dp = dp;
          l.ep = ep;
          l.replicas = std::max<int64_t>(world / l.instance_gpus(), 1);
          ++result.evaluated;
          std::optional<Instance> inst = instance_of(m, w, l, cluster, router, options, world, result);
          if (!inst) continue;
          rank_colocated(*inst, q, target, result);
          size_prefill_side(*inst, q, target);
          if (q.output > 1) size_decode_side(*inst, q, target);
          instances.push_back(std::move(*inst));
        }
  return instances;
}

// Disaggregated: n_p prefill instances of one layout, n_d decode instances of another, the KV
// transfer added to the prefill time; the pools balanced so that neither idles more than needed.
void rank_disaggregated(const std::vector<Instance>& instances, const ModelSpec& m, const ServingWorkload& w,
                        const Cluster& cluster, const Router& router, const ServingTarget& target,
                        const ServingRankOptions& options, const Request& q, ServingRankResult& result) {
  const int64_t world = cluster.num_gpus();
  const double prompt = q.prompt, output = q.output;
  const double kv_bytes = kv_cache_bytes_per_token(m, w.kv_dtype) * m.kv_resident_tokens(prompt);
  std::map<int64_t, double> transfer_bandwidth;  // by the first decode GPU's index
  auto transfer_s = [&](int64_t first_decode, int64_t flows) {
    auto it = transfer_bandwidth.find(first_decode);
    if (it == transfer_bandwidth.end()) {
      const Route route = router.route(cluster.gpus.front(), cluster.gpus[static_cast<size_t>(first_decode)]);
      double bw = 0;
      if (route.reachable && route.bottleneck.valid())
        bw = route.bottleneck_bytes_per_s * options.serving.comm.efficiency(cluster.link(route.bottleneck).kind);
      it = transfer_bandwidth.emplace(first_decode, bw).first;
    }
    return it->second > 0 ? kv_bytes / (static_cast<double>(flows) * it->second) : 0.0;
  };
  for (const Instance& p : instances) {
    if (p.prefill_rate <= 0) continue;
    for (const Instance& d : instances) {
      if (d.decode_rate <= 0) continue;
      const int64_t gp = p.layout.instance_gpus(), gd = d.layout.instance_gpus();
      if (gp + gd > world) continue;
      ++result.evaluated;
      std::optional<RankedServing> best;
      for (int64_t np = 1; np * gp + gd <= world; ++np) {
        const int64_t room = (world - np * gp) / gd;
        const double xfer = transfer_s(np * gp, std::min(gp, gd));
        if (p.prefill_time + xfer > target.max_ttft_s) break;
        const double prefill_rate = static_cast<double>(np) * p.prefill_rate;
        const auto needed = static_cast<int64_t>(std::ceil(prefill_rate / d.decode_rate));
        for (const int64_t nd : {std::min(room, needed), std::min(room, std::max<int64_t>(needed - 1, 1))}) {
          if (nd < 1) continue;
          const double rate = std::min(prefill_rate, static_cast<double>(nd) * d.decode_rate);
          const int64_t gpus = np * gp + nd * gd;
          const double per_gpu = rate * output / static_cast<double>(gpus);
          if (best && per_gpu <= best->output_tokens_per_s_per_gpu) continue;
          RankedServing r;
          r.disaggregated = true;
          r.prefill_layout = p.layout;
          r.prefill_layout.replicas = np;
          r.layout = d.layout;
          r.layout.replicas = nd;
          r.gpus_used = gpus;
          r.concurrency = d.decode_batch;
          r.ttft_s = p.prefill_time + xfer;
          r.itl_s = d.decode_itl;
          r.output_tokens_per_s = rate * output;
          r.output_tokens_per_s_per_gpu = per_gpu;
          const bool prefill_bound = prefill_rate < static_cast<double>(nd) * d.decode_rate;
          r.bound_by = prefill_bound ? "prefill pool" : "decode pool";
          r.binding = prefill_bound ? p.prefill_binding : d.decode_binding;
          best = r;
        }
      }
      if (best) {
        ++result.valid;
        result.layouts.push_back(*best);
      } else {
        reject(result, "disaggregated: TTFT target missed with the KV transfer");
      }
    }
  }
}

}  // namespace

Result<ServingRankResult> rank_serving_layouts(const ModelSpec& m, const ServingWorkload& w, const Cluster& cluster,
                                               const ServingTarget& target, const ServingRankOptions& options) {
  ServingRankResult result;
  if (cluster.num_gpus() < 1) return make_error(ErrorCode::invalid_argument, "the cluster has no GPUs", "--cluster");
  const Router router(cluster);
  Request q;
  q.prompt = static_cast<double>(w.prompt_len);
  q.output = static_cast<double>(w.output_len);
  q.prompt_square = q.prompt * q.prompt;
  const std::vector<Instance> instances = rank_instances(m, w, cluster, router, target, options, q, result);
  if (options.disaggregated && q.output > 1)
    rank_disaggregated(instances, m, w, cluster, router, target, options, q, result);
  // Best first, by output tokens/s per GPU; the top ones.
  std::stable_sort(result.layouts.begin(), result.layouts.end(), [](const RankedServing& a, const RankedServing& b) {
    return a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu;
  });
  if (options.top > 0 && static_cast<int64_t>(result.layouts.size()) > options.top)
    result.layouts.resize(static_cast<size_t>(options.top));
  return result;
}

}  // namespace meshscope
