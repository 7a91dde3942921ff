// meshscope-cli estimate: step time, throughput, MFU and its breakdown for one training layout.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/estimate/step.hpp"
#include "core/report/estimate.hpp"
#include "core/session/training.hpp"

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

// The project's estimate through the session's evaluate_project, as the app's views show it.
int cmd_estimate(const Args& args) {
  auto arg = training_project_arg(args);
  if (!arg) return fail(arg.error());
  Project& project = arg->project;
  if (project.mode != Mode::training) return fail("estimate needs a training project (a serving one: serve)");
  // --schedule S is --train schedule=S (one field: TrainingWorkload::schedule).
  if (args.has("--schedule")) {
    const auto schedule = parse_enum_ignoring_case<PipelineSchedule>(args.get("--schedule"));
    if (!schedule) return fail("unknown --schedule \"" + args.get("--schedule") + "\"");
    project.training.schedule = *schedule;
  }
  auto evaluation = evaluate_training(project, arg->cluster ? &*arg->cluster : nullptr);
  if (!evaluation) return fail(evaluation.error());
  const StepEstimate& e = *evaluation->estimate;
  if (args.json) {
    std::cout << estimate_report(e).dump(2) << "\n";
    return 0;
  }
  std::cout << estimate_text(project.model.name, evaluation->cluster->name, e);
  return 0;
}

}  // namespace meshscope::cli
