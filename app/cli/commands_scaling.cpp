// meshscope-cli scaling: weak or strong scaling of the best layout over a range of GPU counts
// (core/session/scaling.hpp, docs/cli.md "scaling").
//   scaling --model M --cluster GENERATOR --train k=v,... --gpus 64:8192 [--mode weak|strong] [--json]
//   scaling --project P.json --gpus 8:1024 [--mode weak|strong] [--json]
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/report/scaling.hpp"
#include "core/session/scaling.hpp"

namespace meshscope::cli {

namespace {

Result<ScalingResult> scaling_of(const Args& args, ScalingMode mode, const std::vector<int64_t>& gpus) {
  if (args.has("--project")) {
    MS_TRY(project, project_file_arg(args));
    return scale_project(project, mode, gpus);
  }
  if (!args.has("--cluster"))
    return make_error(ErrorCode::invalid_argument, "--cluster is required (a generator string, e.g. dgx-h100)");
  MS_TRY(model, model_arg(args));
  MS_TRY(train_keys, key_values_arg(args, "--train"));
  MS_TRY(workload, training_from_keys(train_keys));
  SearchOptions options;
  options.top = 1;
  return run_scaling(model, workload, ScalingRequest{args.get("--cluster"), gpus, mode}, options);
}

}  // namespace

int cmd_scaling(const Args& args) {
  if (!args.has("--gpus")) return fail("--gpus is required (A:B powers of two, A:B:+S, A:B:xF or a list)");
  auto gpus = parse_gpu_counts(args.get("--gpus"));
  if (!gpus) return fail(gpus.error());
  auto mode = parse_scaling_mode(args.has("--mode") ? args.get("--mode") : "weak");
  if (!mode) return fail(mode.error());
  auto result = scaling_of(args, *mode, *gpus);
  if (!result) return fail(result.error());
  if (args.json) {
    std::cout << scaling_report(*result).dump(2) << "\n";
    return 0;
  }
  std::cout << scaling_text(*result);
  return 0;
}

}  // namespace meshscope::cli
