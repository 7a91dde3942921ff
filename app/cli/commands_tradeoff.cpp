// meshscope-cli tradeoff: one knob varied along an axis (or two, a grid), the rest of the project fixed,
// every point evaluated by the same core as `estimate` (core/session/tradeoff.hpp).
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/serving/serving.hpp"
#include "core/session/tradeoff.hpp"
#include "core/session/tradeoff_report.hpp"

namespace meshscope::cli {

namespace {

// --project P.json, or --model, --cluster, --train and --layout (the base layout need not be valid).
Result<Project> tradeoff_project(const Args& args) {
  MS_TRY(arg, training_project_arg(args));
  return std::move(arg.project);
}

Result<TradeoffAxis> axis_arg(const Args& args, const std::string& option) {
  const auto axis = parse_enum<TradeoffAxis>(args.get(option));
  if (!axis)
    return make_error(ErrorCode::invalid_argument,
                      "unknown axis \"" + args.get(option) + "\" (one of " + enum_choices<TradeoffAxis>() + ")",
                      option);
  return *axis;
}

Result<std::vector<TradeoffValue>> values_arg(const Args& args, const std::string& option, const Project& project,
                                              TradeoffAxis axis) {
  if (!args.has(option)) return default_tradeoff_values(project, axis);
  auto values = parse_tradeoff_values(axis, args.get(option));
  if (!values) return make_error(values.error().code, values.error().message, option);
  return values;
}

}  // namespace

int cmd_tradeoff(const Args& args) {
  if (!args.has("--axis")) return fail("tradeoff needs --axis (one of " + enum_choices<TradeoffAxis>() + ")");
  auto axis = axis_arg(args, "--axis");
  if (!axis) return fail(axis.error());
  auto project = tradeoff_project(args);
  if (!project) return fail(project.error());
  auto values = values_arg(args, "--values", *project, *axis);
  if (!values) return fail(values.error());
  ClusterCache cache;
  if (args.has("--axis2")) {
    auto axis2 = axis_arg(args, "--axis2");
    if (!axis2) return fail(axis2.error());
    auto values2 = values_arg(args, "--values2", *project, *axis2);
    if (!values2) return fail(values2.error());
    auto grid = tradeoff_grid(*project, *axis, *values, *axis2, *values2, cache);
    if (!grid) return fail(grid.error());
    std::cout << (args.json ? tradeoff_grid_report(*grid).dump(2) + "\n" : tradeoff_grid_text(project->name, *grid));
    return 0;
  }
  if (args.has("--values2")) return fail("--values2 needs --axis2");
  auto curve = tradeoff_curve(*project, *axis, *values, cache);
  if (!curve) return fail(curve.error());
  std::cout << (args.json ? tradeoff_report(*curve).dump(2) + "\n" : tradeoff_text(project->name, *curve));
  return 0;
}

}  // namespace meshscope::cli
