// meshscope-cli estimate: step time, throughput, MFU and its breakdown for one training layout.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/estimate/step.hpp"
#include "core/report/estimate.hpp"
#include "core/topology/generators.hpp"

namespace meshscope::cli {

using nlohmann::json;

Result<EstimateOptions> estimate_options_arg(const Args& args) {
  EstimateOptions options;
  MS_TRY(efficiency_keys, key_values_arg(args, "--efficiency"));
  MS_TRY(efficiency, compute_efficiency_from_keys(efficiency_keys));
  options.efficiency = efficiency;
  MS_TRY(constants, comm_arg(args));
  options.comm.constants = constants;
  if (args.has("--order") && !parse_axis_order(args.get("--order"), options.order))
    return make_error(ErrorCode::invalid_argument, "--order must be megatron, tp-pp-dp or torchtitan", "--order");
  return options;
}

int cmd_estimate(const Args& args) {
  auto setup = training_setup(args);
  if (!setup) return fail(setup.error());
  const auto& [m, cluster, workload, layout] = *setup;
  auto estimate_options = estimate_options_arg(args);
  if (!estimate_options) return fail(estimate_options.error());
  EstimateOptions options = *estimate_options;
  if (args.has("--schedule")) {
    const auto schedule = parse_pipeline_schedule(args.get("--schedule"));
    if (!schedule) return fail("unknown --schedule \"" + args.get("--schedule") + "\"");
    options.schedule = *schedule;
  }
  const Router router(cluster);
  auto estimate = estimate_step(m, workload, layout, cluster, router, options);
  if (!estimate) return fail(estimate.error());
  const StepEstimate& e = *estimate;
  const StepBreakdown& b = e.breakdown;
  const json doc = estimate_report(e);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("%s on %s: step %.3f s, %.0f tokens/s (%.1f per GPU)\n", m.name.c_str(), cluster.name.c_str(),
              e.step_time_s, e.tokens_per_s, e.tokens_per_s_per_gpu);
  std::printf("  model %.1f TFLOP/s per GPU (MFU %.1f %%), hardware %.1f TFLOP/s (HFU %.1f %%), bubble %.1f %%\n",
              e.model_tflops_per_gpu, percent(e.mfu), e.hardware_tflops_per_gpu, percent(e.hfu),
              percent(e.bubble_fraction));
  std::printf(
      "  busiest stage over the step (the parts add up to the step): compute forward %.3f s, backward %.3f s, "
      "recompute %.3f s\n",
      b.forward_s, b.backward_s, b.recompute_s);
  std::printf(
      "  exposed: TP %.3f s, CP %.3f s, EP %.3f s, PP send/recv %.3f s; bubble %.3f s; DP %.3f s; "
      "optimizer %.3f s\n",
      b.tp_exposed_s, b.cp_exposed_s, b.ep_exposed_s, b.pp_p2p_s, b.bubble_s, b.dp_exposed_s, b.optimizer_s);
  std::printf("  peak memory %s (%s)\n", gib_text(e.peak_memory_bytes).c_str(),
              e.fits_in_memory ? "fits" : "DOES NOT FIT");
  for (const auto& a : e.assumptions) std::printf("  - %s\n", a.c_str());
  return 0;
}

}  // namespace meshscope::cli
