// meshscope-cli subcommands about models: params, flops, memory, presets.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/report/keys.hpp"
#include "core/report/memory.hpp"
#include "core/report/model.hpp"
#include "core/report/units.hpp"
#include "core/workload/flops.hpp"

namespace meshscope::cli {

using nlohmann::json;

int cmd_params(const Args& args) {
  auto model = model_arg(args);
  if (!model) return fail(model.error());
  const json report = params_report(*model);
  if (args.json) {
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  std::cout << "Model " << model->name << "\n";
  std::cout << "  total                       " << billions_text(report["total"].get<double>()) << "\n";
  std::cout << "  active per token            " << billions_text(report["active"].get<double>()) << "\n";
  std::cout << "  active excluding embedding  " << billions_text(report["active_excluding_embedding"].get<double>())
            << "\n";
  for (const auto& [part, value] : report["split"].items())
    std::cout << "    " << part << std::string(24 - part.size(), ' ') << billions_text(value.get<double>()) << "\n";
  return 0;
}

int cmd_flops(const Args& args) {
  auto model = model_arg(args);
  if (!model) return fail(model.error());
  int64_t seq = model->max_position_embeddings > 0 ? std::min<int64_t>(model->max_position_embeddings, 4096) : 4096;
  KeyValues keys;
  if (args.has("--seq")) keys.emplace_back("seq", args.get("--seq"));
  if (args.options.count("--recompute")) keys.emplace_back("recompute", args.options.at("--recompute"));
  TrainingWorkload base;
  base.seq_len = seq;
  auto workload = training_from_keys(keys, base);
  if (!workload) return fail(workload.error());
  const bool causal = !args.full_attention;
  const FlopsPerToken flops = flops_per_token(*model, workload->seq_len, causal, workload->recompute);
  const json report = flops_report(flops, workload->seq_len, causal);
  if (args.json) {
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  std::printf("FLOPs per token of %s at sequence %lld (%s attention)\n", model->name.c_str(),
              static_cast<long long>(workload->seq_len), causal ? "causal" : "full");
  std::printf("  forward                 %.4g\n  model (fwd+bwd)         %.4g\n  hardware (+recompute)   %.4g\n",
              flops.forward(), flops.model_training(), flops.hardware_training());
  return 0;
}

int cmd_memory(const Args& args) {
  auto model = model_arg(args);
  if (!model) return fail(model.error());
  if (!args.options.count("--gpu")) return fail("--gpu is required (see `meshscope-cli presets`)");
  auto gpu = find_gpu(args.options.at("--gpu"));
  if (!gpu) return fail(gpu.error());
  const bool training = args.options.count("--train") > 0;
  const bool serving = args.options.count("--serve") > 0;
  if (training == serving) return fail("give exactly one of --train k=v,... or --serve k=v,...");
  auto layout_keys = split_key_values(args.options.count("--layout") ? args.options.at("--layout") : "", "--layout");
  if (!layout_keys) return fail(layout_keys.error());
  auto layout = layout_from_keys(*layout_keys);
  if (!layout) return fail(layout.error());
  int64_t world = 0;
  if (args.options.count("--world")) {
    try {
      world = std::stoll(args.options.at("--world"));
    } catch (...) {
      return fail("--world must be an integer");
    }
  }
  MemoryBudget budget;
  std::vector<LayoutProblem> problems;
  if (training) {
    auto keys = split_key_values(args.options.at("--train"), "--train");
    if (!keys) return fail(keys.error());
    auto workload = training_from_keys(*keys);
    if (!workload) return fail(workload.error());
    // micro_batch may be given with the workload too; the layout carries it.
    problems = validate_training_layout(*model, *workload, *layout, world);
    if (problems.empty()) budget = training_memory(*model, *workload, *layout, *gpu);
  } else {
    auto keys = split_key_values(args.options.at("--serve"), "--serve");
    if (!keys) return fail(keys.error());
    auto workload = serving_from_keys(*keys);
    if (!workload) return fail(workload.error());
    problems = validate_serving_layout(*model, *layout, world);
    if (problems.empty()) budget = serving_memory(*model, *workload, *layout, *gpu);
  }
  if (!problems.empty()) return fail(problems_message(model->name, problems));
  if (args.json) {
    std::cout << memory_report(budget).dump(2) << "\n";
    return 0;
  }
  std::cout << memory_text(budget, model->name, gpu->name, serving);
  return 0;
}

int cmd_presets(const Args& args) {
  const json doc = presets_report(model_preset_names(), gpu_catalogue());
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << "Models:\n";
  for (const auto& name : model_preset_names()) std::cout << "  " << name << "\n";
  std::cout << "GPUs:\n";
  for (const auto& gpu : gpu_catalogue())
    std::cout << "  " << gpu.id << std::string(18 - std::min<size_t>(gpu.id.size(), 17), ' ') << gpu.name << "\n";
  return 0;
}

// meshscope-cli keys: the key table (core/keys/options.hpp) that the parsers, the app's forms and docs/cli.md come
// from.
int cmd_keys(const Args& args) {
  std::vector<KeyScope> scopes = {KeyScope::train, KeyScope::serve, KeyScope::layout, KeyScope::serving_layout};
  if (args.has("--scope")) {
    const std::string scope = args.get("--scope");
    const auto it = std::find_if(scopes.begin(), scopes.end(), [&](KeyScope s) { return key_scope_name(s) == scope; });
    if (it == scopes.end())
      return fail("--scope must be train, serve, layout or serving-layout, not \"" + scope + "\"");
    scopes = {*it};
  }
  if (args.json) {
    std::cout << (scopes.size() == 1 ? key_table_report(scopes.front()) : key_tables_report(scopes)).dump(2) << "\n";
    return 0;
  }
  for (const KeyScope scope : scopes)
    std::cout << "### --" << key_scope_name(scope) << " keys\n\n" << key_table_markdown(scope) << "\n";
  return 0;
}

}  // namespace meshscope::cli
