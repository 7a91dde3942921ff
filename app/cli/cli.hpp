#pragma once
// Shared plumbing of meshscope-cli's subcommands.
#include <map>
#include <optional>
#include <string>

#include "core/base/result.hpp"
#include "core/comm/collective.hpp"
#include "core/estimate/step.hpp"
#include "core/keys/options.hpp"
#include "core/model/model.hpp"
#include "core/report/units.hpp"
#include "core/session/inputs.hpp"
#include "core/session/training.hpp"
#include "core/topology/cluster.hpp"
#include "core/workload/layout.hpp"

namespace meshscope::cli {

inline constexpr int kExitBadInput = 2;

struct Args {
  std::string command;
  std::map<std::string, std::string> options;  // --name value
  bool json = false;
  bool full_attention = false;
  [[nodiscard]] bool has(const std::string& name) const { return options.count(name) > 0; }
  [[nodiscard]] const std::string& get(const std::string& name) const { return options.at(name); }
};

[[nodiscard]] Result<Args> parse_args(int argc, char** argv);
int fail(const std::string& message);
int fail(const Error& error);
[[nodiscard]] Result<ModelSpec> model_arg(const Args& args);
// An option's key=value list (empty when the option is absent).
[[nodiscard]] Result<KeyValues> key_values_arg(const Args& args, const std::string& option);
[[nodiscard]] Result<Cluster> cluster_arg(const Args& args);
[[nodiscard]] Result<CommConstants> comm_arg(const Args& args);

// --efficiency, --comm and --order (estimate, compare --trace).
[[nodiscard]] Result<EstimateOptions> estimate_options_arg(const Args& args);
// The files named in --trace (comma-separated; expand_trace_paths).
[[nodiscard]] Result<std::vector<std::string>> trace_files(const std::string& option);

// --model, --cluster, --train (with --framework) and --layout, the layout checked as `use` says
// (core/session/inputs.hpp).
[[nodiscard]] Result<TrainingSetup> training_setup(const Args& args, ClusterUse use = ClusterUse::fill);

// --project P.json, read; --model, --cluster and --train may not be given beside it.
[[nodiscard]] Result<Project> project_file_arg(const Args& args);
// A training project and the cluster it resolves to: --project P.json, or what --model, --cluster, --train (with
// --framework), --layout, --efficiency, --comm and --order describe (training_project; the layout not checked).
struct ProjectArg {
  Project project;
  std::optional<Cluster> cluster;  // resolved from --cluster; empty with --project
};
[[nodiscard]] Result<ProjectArg> training_project_arg(const Args& args);

int cmd_params(const Args& args);
int cmd_flops(const Args& args);
int cmd_memory(const Args& args);
int cmd_presets(const Args& args);
int cmd_keys(const Args& args);
int cmd_topo(const Args& args);
int cmd_route(const Args& args);
int cmd_collective(const Args& args);
int cmd_comm(const Args& args);
int cmd_estimate(const Args& args);
int cmd_rank(const Args& args);
int cmd_scaling(const Args& args);  // commands_scaling.cpp
int cmd_schedule(const Args& args);
int cmd_serve(const Args& args);
int cmd_serve_rank(const Args& args);
int cmd_import(const Args& args);
int cmd_compare(const Args& args);
int cmd_calibrate(const Args& args);
// Launcher configs out (commands_export.cpp).
int cmd_export(const Args& args);
// The trade-off explorer's points (commands_tradeoff.cpp).
int cmd_tradeoff(const Args& args);
// sweep takes positional files, so it parses its own arguments (argv after "sweep").
int cmd_sweep(int argc, char** argv);
// lesson FILE|NAME takes a positional lesson too (commands_lesson.cpp).
int cmd_lesson(int argc, char** argv);

}  // namespace meshscope::cli
