// meshscope-cli rank and schedule: the ranked layouts of a cluster, and one pipeline schedule.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/report/search.hpp"
#include "core/report/units.hpp"
#include "core/search/search.hpp"

namespace meshscope::cli {

using nlohmann::json;

namespace {

Result<double> number_arg(const Args& args, const std::string& name, double fallback) {
  if (!args.has(name)) return fallback;
  char* end = nullptr;
  const std::string& text = args.get(name);
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || value < 0)
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a non-negative number", name);
  return value;
}

}  // namespace

int cmd_rank(const Args& args) {
  auto setup = training_setup(args, /*with_layout=*/false);
  if (!setup) return fail(setup.error());
  SearchOptions options;
  if (args.has("--objective") && !parse_rank_objective(args.get("--objective"), options.objective))
    return fail("--objective must be throughput, memory-headroom or cost-per-token");
  auto top = number_arg(args, "--top", 10);
  auto refine = number_arg(args, "--refine", 0);
  if (!top) return fail(top.error());
  if (!refine) return fail(refine.error());
  options.top = static_cast<int64_t>(*top);
  options.refine = static_cast<int64_t>(*refine);
  auto result = rank_layouts(setup->model, setup->workload, setup->cluster, options);
  if (!result) return fail(result.error());
  const json doc = ranked_layouts_report(*result, options.objective);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%lld candidates in %.3f s: %lld valid, %lld collapsed\n", static_cast<long long>(result->evaluated),
              result->elapsed_s, static_cast<long long>(result->valid), static_cast<long long>(result->collapsed));
  for (const auto& [reason, count] : result->rejected)
    std::printf("  rejected %8lld  %s\n", static_cast<long long>(count), reason.c_str());
  std::printf("\n%4s %-52s %10s %10s %7s %10s\n", "#", "layout", "step (s)", "tok/s/GPU", "MFU", "memory");
  int index = 1;
  for (const auto& r : result->layouts) {
    char layout[160];
    std::snprintf(layout, sizeof layout, "TP%lld CP%lld PP%lld v%lld DP%lld EP%lld mbs%lld %s z%d %s%s%s",
                  static_cast<long long>(r.layout.tp), static_cast<long long>(r.layout.cp),
                  static_cast<long long>(r.layout.pp), static_cast<long long>(r.layout.vpp),
                  static_cast<long long>(r.layout.dp), static_cast<long long>(r.layout.ep),
                  static_cast<long long>(r.layout.micro_batch), std::string(recompute_name(r.recompute)).c_str(),
                  r.zero_stage, std::string(pipeline_schedule_name(r.schedule)).c_str(),
                  r.order == AxisOrder::megatron ? "" : (" " + std::string(axis_order_name(r.order))).c_str(),
                  r.tp_comm_overlap ? " tp-overlap" : "");
    std::printf("%4d %-52s %10.3f %10.1f %6.1f%% %10s\n", index++, layout, r.step_time_s, r.tokens_per_s_per_gpu,
                percent(r.mfu), gib_text(r.peak_memory_bytes).c_str());
  }
  return 0;
}

int cmd_schedule(const Args& args) {
  ScheduleInput input;
  if (!args.has("--schedule")) return fail("--schedule is required (gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe)");
  const auto schedule = parse_pipeline_schedule(args.get("--schedule"));
  if (!schedule) return fail("unknown --schedule \"" + args.get("--schedule") + "\"");
  input.schedule = *schedule;
  auto stages = number_arg(args, "--stages", 4);
  auto micro_batches = number_arg(args, "--microbatches", 8);
  auto vpp = number_arg(args, "--vpp", 1);
  auto fwd = number_arg(args, "--fwd", 1);
  auto bwd = number_arg(args, "--bwd", 1);
  auto wgrad = number_arg(args, "--wgrad", 1);
  auto p2p = number_arg(args, "--p2p", 0);
  for (const auto* r : {&stages, &micro_batches, &vpp, &fwd, &bwd, &wgrad, &p2p})
    if (!*r) return fail(r->error());
  if (*stages < 1 || *stages > 65536) return fail("--stages must be between 1 and 65536");
  input.stages = static_cast<int64_t>(*stages);
  input.micro_batches = static_cast<int64_t>(*micro_batches);
  input.virtual_stages = static_cast<int64_t>(*vpp);
  input.costs.assign(static_cast<size_t>(std::max<int64_t>(input.stages, 0)), StageCosts{*fwd, *bwd, *wgrad});
  input.p2p_s = *p2p;
  auto result = simulate_schedule(input);
  if (!result) return fail(result.error());
  const json doc = schedule_report(input.schedule, *result);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%s: p=%lld m=%lld v=%lld, makespan %.3f, bubble %.1f %%\n",
              std::string(pipeline_schedule_name(input.schedule)).c_str(), static_cast<long long>(input.stages),
              static_cast<long long>(input.micro_batches), static_cast<long long>(input.virtual_stages),
              result->makespan_s, percent(result->bubble_fraction));
  for (size_t s = 0; s < result->peak_in_flight.size(); ++s)
    std::printf("  stage %zu: peak %.2f micro-batches in flight\n", s, result->peak_in_flight[s]);
  return 0;
}

}  // namespace meshscope::cli
