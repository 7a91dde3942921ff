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
  const EstimateOptions& options = *estimate_options;
  // --schedule S is --train schedule=S (one field: TrainingWorkload::schedule).
  TrainingWorkload w = workload;
  if (args.has("--schedule")) {
    const auto schedule = parse_enum_ignoring_case<PipelineSchedule>(args.get("--schedule"));
    if (!schedule) return fail("unknown --schedule \"" + args.get("--schedule") + "\"");
    w.schedule = *schedule;
  }
  const Router router(cluster);
  auto estimate = estimate_step(m, w, layout, cluster, router, options);
  if (!estimate) return fail(estimate.error());
  const StepEstimate& e = *estimate;
  const json doc = estimate_report(e);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << estimate_text(m.name, cluster.name, e);
  return 0;
}

}  // namespace meshscope::cli
