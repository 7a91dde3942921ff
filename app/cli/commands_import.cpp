// meshscope-cli import: measured data in, a summary out (docs/import.md).
//   import --trace PATH[,PATH...] [--rules FILE] [--json]   PyTorch profiler (Kineto) traces, one per rank; a folder
//                                                          stands for the .json / .json.gz files in it
//   import --nccl-tests LOG [--json]                       an nccl-tests log (core/importers/nccl_tests.hpp)
//   import --topo FILE [--nodes N] [--gpu G]               nvidia-smi topo -m, hwloc XML, NCCL topology XML
//   import --log FILE [--json]                             a training log: Megatron-LM, Megatron-DeepSpeed, DeepSpeed,
//                                                          torchtitan (core/importers/training_log.hpp, docs/logs.md)
//   import --launcher FILE [--gpus N] [--json]               a launcher config: Megatron-LM script, torchtitan TOML,
//                                                          DeepSpeed JSON → a project (docs/launchers.md)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/node_topology.hpp"
#include "core/importers/training_log.hpp"
#include "core/report/importers.hpp"
#include "core/report/launcher.hpp"
#include "core/report/training_log.hpp"
#include "core/report/units.hpp"
#include "core/session/import_launcher.hpp"
#include "core/session/measurements.hpp"
#include "core/topology/cluster_io.hpp"

namespace meshscope::cli {
namespace {

using json = nlohmann::json;

std::vector<std::string> split_paths(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int import_traces(const Args& args) {
  const auto files = trace_files(args.get("--trace"));
  if (!files) return fail(files.error());
  KinetoAnalysisOptions options;
  std::optional<KernelRuleTable> rules;
  if (args.has("--rules")) {
    auto user_rules = load_kernel_rules(args.get("--rules"));
    if (!user_rules) return fail(user_rules.error());
    auto table = KernelRuleTable::defaults().with_rules_first(*user_rules);
    if (!table) return fail(table.error());
    rules = std::move(*table);
    options.rules = &*rules;
  }
  const auto run = load_trace_run(*files, options);
  if (!run) return fail(run.error());
  if (args.json) {
    std::cout << kineto_run_report(*run).dump(2) << "\n";
  } else {
    std::cout << kineto_run_text(*run);
  }
  return 0;
}

int import_nccl_tests(const Args& args) {
  auto log = load_nccl_tests(args.get("--nccl-tests"));
  if (!log) return fail(log.error());
  const json doc = nccl_tests_log_report(*log);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << nccl_tests_log_text(*log, doc);
  return 0;
}

// A node from `nvidia-smi topo -m`, hwloc XML or an NCCL topology file, optionally replicated
// into N nodes on a rail-optimised fabric; printed as a meshscope cluster document.
int import_topology(const Args& args) {
  NodeImportOptions options;
  if (args.has("--nodes")) {
    char* end = nullptr;
    const std::string& text = args.get("--nodes");
    const long long nodes = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || nodes < 1)
      return fail("--nodes must be a positive integer, got \"" + text + "\"");
    options.nodes = nodes;
  }
  if (args.has("--gpu")) options.gpu_model = args.get("--gpu");
  auto imported = import_node_topology_file(args.get("--topo"), options);
  if (!imported) return fail(imported.error());
  for (const auto& w : imported->warnings) std::cerr << "warning: " << w.location << ": " << w.message << "\n";
  if (args.json) {
    std::cout << cluster_to_json_text(imported->cluster);
    return 0;
  }
  std::cout << "Imported " << imported->cluster.name << ": " << imported->cluster.num_gpus() << " GPUs in "
            << imported->cluster.num_nodes() << " nodes, " << imported->cluster.devices.size() << " devices, "
            << imported->cluster.links.size() << " links\n";
  return 0;
}

int import_training_log(const Args& args) {
  auto run = load_training_log(args.get("--log"));
  if (!run) return fail(run.error());
  if (args.json)
    std::cout << training_log_json(*run).dump(2) << "\n";
  else
    std::cout << training_log_text(*run);
  return 0;
}

// A launcher config as a project document, with what was not used (core/importers/launcher_config.hpp).
int import_launcher(const Args& args) {
  LauncherImportOptions options;
  if (args.has("--gpus")) {
    char* end = nullptr;
    const std::string& text = args.get("--gpus");
    const long long gpus = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || gpus < 1 || gpus > (1LL << 31))
      return fail("--gpus must be a positive integer, got \"" + text + "\"");
    options.gpus = gpus;
  }
  auto imported = load_launcher_config(args.get("--launcher"), options);
  if (!imported) return fail(imported.error());
  if (args.json) {
    std::cout << launcher_import_report(*imported).dump(2) << "\n";
    return 0;
  }
  std::cout << launcher_import_text(*imported);
  return 0;
}

}  // namespace

Result<std::vector<std::string>> trace_files(const std::string& option) {
  return expand_trace_paths(split_paths(option), "--trace");
}

int cmd_import(const Args& args) {
  const int sources = static_cast<int>(args.has("--trace")) + static_cast<int>(args.has("--nccl-tests")) +
                      static_cast<int>(args.has("--topo")) + static_cast<int>(args.has("--log")) +
                      static_cast<int>(args.has("--launcher"));
  if (sources != 1)
    return fail(
        "import needs exactly one of --trace PATH[,PATH...], --nccl-tests LOG, --topo FILE, --log FILE or --launcher "
        "FILE");
  if (args.has("--launcher")) return import_launcher(args);
  if (args.has("--topo")) return import_topology(args);
  if (args.has("--log")) return import_training_log(args);
  if (args.has("--nccl-tests")) return import_nccl_tests(args);
  return import_traces(args);
}

}  // namespace meshscope::cli
