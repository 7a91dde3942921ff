// meshscope-cli serve and serve-rank: latency and throughput of a serving layout for a traffic
// shape (with the throughput–latency curve, or disaggregated prefill/decode), and the ranking of
// every serving layout of a cluster at a TTFT/ITL target (docs/serving.md).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/report/serving.hpp"
#include "core/report/units.hpp"
#include "core/serving/serving.hpp"

namespace meshscope::cli {

using nlohmann::json;

namespace {

// "TP2 PP1 ×4", with DP and EP when used.
std::string layout_text(const ServingLayout& l) {
  std::string text = "TP" + std::to_string(l.tp) + " PP" + std::to_string(l.pp);
  if (l.dp > 1) text += " DP" + std::to_string(l.dp);
  if (l.ep > 1) text += " EP" + std::to_string(l.ep);
  return text + " ×" + std::to_string(l.replicas);
}

Result<double> seconds_arg(const Args& args, const std::string& name) {
  if (!args.has(name)) return std::numeric_limits<double>::infinity();
  const std::string& text = args.get(name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value > 0) || !std::isfinite(value))
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a positive number of seconds", name);
  return value;
}

// --model, --cluster, --serve, --engine (preset=trtllm-bench derives max_batch/max_num_tokens the
// way trtllm-bench does; kv_fraction= its KV share), --efficiency, --comm, --order.
struct ServeSetup {
  ModelSpec model;
  Cluster cluster;
  ServingWorkload workload;
  ServingTraffic traffic;
  ServingOptions options;
  KeyValues engine_keys;
  bool trtllm_bench = false;
  double kv_fraction = 0.95;
};

Result<ServeSetup> serve_setup(const Args& args) {
  ServeSetup s;
  MS_TRY(model, model_arg(args));
  s.model = std::move(model);
  MS_TRY(cluster, cluster_arg(args));
  s.cluster = std::move(cluster);
  MS_TRY(serve_keys, key_values_arg(args, "--serve"));
  MS_TRY(request, serving_request_from_keys(serve_keys));
  s.workload = request.workload;
  s.traffic = request.traffic;
  MS_TRY(engine_keys, key_values_arg(args, "--engine"));
  for (const auto& [key, value] : engine_keys) {
    if (key == "preset") {
      if (value != "trtllm-bench" && value != "default")
        return make_error(ErrorCode::invalid_argument,
                          "\"" + value + "\" is not an engine preset: default, trtllm-bench", "--engine preset");
      s.trtllm_bench = value == "trtllm-bench";
    } else if (key == "kv_fraction") {
      char* end = nullptr;
      s.kv_fraction = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(s.kv_fraction > 0) || s.kv_fraction > 1)
        return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not a fraction in (0, 1]",
                          "--engine kv_fraction");
    } else {
      s.engine_keys.emplace_back(key, value);
    }
  }
  MS_TRY(efficiency_keys, key_values_arg(args, "--efficiency"));
  MS_TRY(efficiency, compute_efficiency_from_keys(efficiency_keys));
  s.options.efficiency = efficiency;
  MS_TRY(constants, comm_arg(args));
  s.options.comm = constants;
  if (args.has("--order") && !parse_axis_order(args.get("--order"), s.options.order))
    return make_error(ErrorCode::invalid_argument, "--order must be megatron, tp-pp-dp or torchtitan", "--order");
  return s;
}

// The engine of one layout: the trtllm-bench heuristic if asked, then the explicit keys.
Result<ServingEngine> engine_for(const ServeSetup& s, const ServingLayout& layout) {
  ServingEngine base;
  if (s.trtllm_bench) base = trtllm_bench_engine(s.model, s.workload, layout, cluster_gpu(s.cluster), s.kv_fraction);
  return serving_engine_from_keys(s.engine_keys, base);
}

Result<ServingLayout> layout_arg(const Args& args, const std::string& option) {
  MS_TRY(keys, key_values_arg(args, option));
  return serving_layout_from_keys(keys);
}

int serve_disaggregated(const Args& args, ServeSetup& s) {
  auto prefill = layout_arg(args, "--prefill-layout");
  auto decode = layout_arg(args, "--decode-layout");
  if (!prefill) return fail(prefill.error());
  if (!decode) return fail(decode.error());
  const DisaggregatedLayout layout{*prefill, *decode};
  auto engine = engine_for(s, *decode);
  if (!engine) return fail(engine.error());
  s.options.engine = *engine;
  const Router router(s.cluster);
  auto est = estimate_disaggregated(s.model, s.workload, layout, s.cluster, router, s.options);
  if (!est) return fail(est.error());
  const DisaggregatedEstimate& e = *est;
  const json doc = disaggregated_serving_report(layout, e);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf(
      "%s, disaggregated on %s: %lld prefill GPUs (TP%lld PP%lld ×%lld), %lld decode GPUs (TP%lld PP%lld ×%lld)\n",
      s.model.name.c_str(), s.cluster.name.c_str(), static_cast<long long>(layout.prefill.gpus()),
      static_cast<long long>(layout.prefill.tp), static_cast<long long>(layout.prefill.pp),
      static_cast<long long>(layout.prefill.replicas), static_cast<long long>(layout.decode.gpus()),
      static_cast<long long>(layout.decode.tp), static_cast<long long>(layout.decode.pp),
      static_cast<long long>(layout.decode.replicas));
  std::printf("  TTFT %.1f ms (KV transfer %.2f ms of %s), ITL %.2f ms, end-to-end %.2f s\n", ms_from_s(e.ttft_s),
              ms_from_s(e.kv_transfer_s), gib_text(e.kv_bytes_per_request).c_str(), ms_from_s(e.itl_s),
              e.e2e_latency_s);
  std::printf("  %.0f output tokens/s (%.1f per GPU), bound by the %s (%s); prefill %.2f req/s, decode %.2f req/s\n",
              e.output_tokens_per_s, e.output_tokens_per_s_per_gpu, e.bound_by.c_str(),
              std::string(serving_binding_name(e.binding)).c_str(), e.prefill_requests_per_s, e.decode_requests_per_s);
  return 0;
}

}  // namespace

int cmd_serve(const Args& args) {
  auto setup = serve_setup(args);
  if (!setup) return fail(setup.error());
  ServeSetup& s = *setup;
  if (args.has("--prefill-layout") || args.has("--decode-layout")) {
    if (!args.has("--prefill-layout") || !args.has("--decode-layout"))
      return fail("disaggregated serving needs both --prefill-layout and --decode-layout");
    return serve_disaggregated(args, s);
  }
  auto layout = layout_arg(args, "--layout");
  if (!layout) return fail(layout.error());
  auto engine = engine_for(s, *layout);
  if (!engine) return fail(engine.error());
  s.options.engine = *engine;
  const Router router(s.cluster);
  auto est = estimate_serving(s.model, s.workload, s.traffic, *layout, s.cluster, router, s.options);
  if (!est) return fail(est.error());
  const ServingEstimate& e = *est;
  std::optional<OfflineRun> offline;
  if (s.traffic.num_requests > 0) {
    auto model = ServingModel::create(s.model, s.workload, *layout, s.cluster, router, s.options);
    if (!model) return fail(model.error());
    offline = simulate_offline(*model, s.traffic.num_requests);
  }
  const json doc = serving_report(*layout, e, offline);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s: TP%lld PP%lld DP%lld EP%lld × %lld replicas (%lld GPUs)\n", s.model.name.c_str(),
              s.cluster.name.c_str(), static_cast<long long>(layout->tp), static_cast<long long>(layout->pp),
              static_cast<long long>(layout->dp), static_cast<long long>(layout->ep),
              static_cast<long long>(layout->replicas), static_cast<long long>(layout->gpus()));
  std::printf("  at %lld sequences per replica: TTFT %.1f ms, ITL %.2f ms, end-to-end %.2f s\n",
              static_cast<long long>(e.point.concurrency), ms_from_s(e.point.ttft_s), ms_from_s(e.point.itl_s),
              e.point.e2e_latency_s);
  std::printf("  %.0f output tokens/s (%.1f per GPU, %.1f per replica), bound by %s%s\n", e.output_tokens_per_s,
              e.output_tokens_per_s_per_gpu, e.output_tokens_per_s_per_replica,
              std::string(serving_binding_name(e.point.binding)).c_str(), e.overloaded ? " (OVERLOADED)" : "");
  std::printf("  largest batch %lld per replica (KV cache holds %lld); lone prompt %.1f ms, lone step %.2f ms\n",
              static_cast<long long>(e.max_batch), static_cast<long long>(e.kv_max_batch), ms_from_s(e.lone_prefill_s),
              ms_from_s(e.lone_decode_step_s));
  if (offline)
    std::printf("  offline run of %lld requests: %.1f s, %.0f output tokens/s per replica, mean TTFT %.2f s\n",
                static_cast<long long>(offline->requests), offline->total_s, offline->output_tokens_per_s,
                offline->mean_ttft_s);
  std::printf("\n  %11s %14s %10s %10s  %s\n", "concurrency", "output tok/s", "ITL (ms)", "TTFT (ms)", "binding");
  for (const auto& p : e.curve)
    std::printf("  %11lld %14.0f %10.2f %10.1f  %s\n", static_cast<long long>(p.concurrency), p.output_tokens_per_s,
                ms_from_s(p.itl_s), ms_from_s(p.ttft_s), std::string(serving_binding_name(p.binding)).c_str());
  for (const auto& a : e.assumptions) std::printf("  - %s\n", a.c_str());
  return 0;
}

int cmd_serve_rank(const Args& args) {
  auto setup = serve_setup(args);
  if (!setup) return fail(setup.error());
  ServeSetup& s = *setup;
  auto ttft = seconds_arg(args, "--target-ttft");
  auto itl = seconds_arg(args, "--target-itl");
  if (!ttft) return fail(ttft.error());
  if (!itl) return fail(itl.error());
  const ServingTarget target{*ttft, *itl};
  if (s.trtllm_bench)
    return fail("--engine preset=trtllm-bench sizes one layout's engine; give max_batch/max_num_tokens for serve-rank");
  auto engine = serving_engine_from_keys(s.engine_keys);
  if (!engine) return fail(engine.error());
  ServingRankOptions options;
  options.serving = s.options;
  options.serving.engine = *engine;
  if (args.has("--top")) {
    char* end = nullptr;
    const std::string& text = args.get("--top");
    const long long top = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || top < 0)
      return fail("--top must be a non-negative integer (0: all)");
    options.top = top;
  }
  auto result = rank_serving_layouts(s.model, s.workload, s.cluster, target, options);
  if (!result) return fail(result.error());
  const json doc = serving_rank_report(*result, target);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s: %lld candidates, %lld meet the target\n", s.model.name.c_str(), s.cluster.name.c_str(),
              static_cast<long long>(result->evaluated), static_cast<long long>(result->valid));
  for (const auto& [reason, count] : result->rejected)
    std::printf("  rejected %6lld  %s\n", static_cast<long long>(count), reason.c_str());
  std::printf("\n%4s %-44s %5s %6s %9s %8s %10s  %s\n", "#", "layout", "GPUs", "batch", "TTFT (ms)", "ITL (ms)",
              "tok/s/GPU", "binding");
  int index = 1;
  for (const auto& r : result->layouts) {
    const std::string text = r.disaggregated ? "P: " + layout_text(r.prefill_layout) + " | D: " + layout_text(r.layout)
                                             : layout_text(r.layout);
    std::printf("%4d %-44s %5lld %6lld %9.1f %8.2f %10.1f  %s%s%s\n", index++, text.c_str(),
                static_cast<long long>(r.gpus_used), static_cast<long long>(r.concurrency), ms_from_s(r.ttft_s),
                ms_from_s(r.itl_s), r.output_tokens_per_s_per_gpu, std::string(serving_binding_name(r.binding)).c_str(),
                r.disaggregated ? ", " : "", r.bound_by.c_str());
  }
  return 0;
}

}  // namespace meshscope::cli
