// meshscope-cli rank and schedule: the ranked layouts of a cluster, and one pipeline schedule.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "core/report/search.hpp"
#include "core/report/units.hpp"
#include "core/search/search.hpp"
#include "core/session/training.hpp"

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

// The project's ranked layouts through the session's rank_project, as the app's search runs them.
int cmd_rank(const Args& args) {
  auto arg = training_project_arg(args);
  if (!arg) return fail(arg.error());
  const Project& project = arg->project;
  if (project.mode != Mode::training) return fail("rank needs a training project (a serving one: serve-rank)");
  SearchRequest options;
  if (args.has("--objective") && !parse_rank_objective(args.get("--objective"), options.objective))
    return fail("--objective must be throughput, memory-headroom or cost-per-token");
  auto top = number_arg(args, "--top", 10);
  auto refine = number_arg(args, "--refine", 0);
  if (!top) return fail(top.error());
  if (!refine) return fail(refine.error());
  options.top = static_cast<int64_t>(*top);
  options.refine = static_cast<int64_t>(*refine);
  // The ranking is the same for any number of threads; every core by default (0).
  auto threads = number_arg(args, "--threads", 0);
  if (!threads) return fail(threads.error());
  if (*threads != static_cast<double>(static_cast<int>(*threads)) || *threads > 4096)
    return fail("--threads must be a whole number (0: every core)");
  options.threads = static_cast<int>(*threads);
  Result<Cluster> cluster = arg->cluster ? Result<Cluster>(std::move(*arg->cluster)) : project_cluster(project);
  if (!cluster) return fail(cluster.error());
  auto result = rank_project(project, *cluster, options);
  if (!result) return fail(result.error());
  const json doc = ranked_layouts_report(*result, options.objective);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << ranked_layouts_text(*result);
  return 0;
}

int cmd_schedule(const Args& args) {
  ScheduleInput input;
  if (!args.has("--schedule")) return fail("--schedule is required (gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe)");
  const auto schedule = parse_enum_ignoring_case<PipelineSchedule>(args.get("--schedule"));
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
  std::cout << schedule_text(input, *result);
  return 0;
}

}  // namespace meshscope::cli
