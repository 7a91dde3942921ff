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
  std::cout << disaggregated_serving_text(s.model.name, s.cluster.name, layout, e);
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
  std::cout << serving_text(s.model.name, s.cluster.name, *layout, e, offline);
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
  std::cout << serving_rank_text(s.model.name, s.cluster.name, *result);
  return 0;
}

}  // namespace meshscope::cli
