// meshscope-cli: the cost core, headless. Every subcommand prints a human table by default and a
// stable JSON document with --json (docs/cli.md). Bad input: a message on stderr, exit code 2.
#include <algorithm>
#include <iostream>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/topology/generators.hpp"

namespace meshscope::cli {

namespace {
const char* const kUsage = R"(meshscope-cli — analytical cost model for LLM parallel layouts

Usage:
  meshscope-cli params     --model M [--json]
  meshscope-cli flops      --model M [--seq N] [--recompute none|selective|full] [--full-attention] [--json]
  meshscope-cli memory     --model M --gpu G (--train k=v,... | --serve k=v,...) --layout k=v,...
                           [--world N] [--json]
  meshscope-cli topo       --cluster C [--json]
  meshscope-cli route      --cluster C --from I --to J [--json]
  meshscope-cli collective --cluster C --op OP --gpus LIST [--sizes MIN:MAX[:FACTOR]] [--comm k=v,...] [--json]
  meshscope-cli comm       --model M --cluster C --train k=v,... --layout k=v,... [--order megatron|tp-pp-dp|torchtitan]
                           [--comm k=v,...] [--json]
  meshscope-cli estimate   --model M --cluster C --train k=v,... --layout k=v,... [--schedule S]
                           [--efficiency k=v,...] [--comm k=v,...] [--order megatron|tp-pp-dp|torchtitan] [--json]
  meshscope-cli rank       --model M --cluster C --train k=v,... [--framework F] [--top N] [--refine N]
                           [--objective throughput|memory-headroom|cost-per-token] [--threads T] [--json]
                           (F: any, megatron-lm, megatron-bridge, torchtitan, deepspeed: what the search proposes)
  meshscope-cli scaling    (--model M --cluster GENERATOR --train k=v,... | --project P.json) --gpus A:B[:+S|:xF]|LIST
                           [--mode weak|strong] [--json]   (the best layout at each GPU count, scaling efficiency)
  meshscope-cli schedule   --stages P --microbatches M --schedule 1f1b|gpipe|interleaved|zb-h1|zb-h2|dualpipe
                           [--vpp V] [--fwd T --bwd T --wgrad T --p2p T] [--json]
  meshscope-cli serve      --model M --cluster C --serve k=v,... (--layout k=v,... | --prefill-layout k=v,... --decode-layout k=v,...)
                           [--engine k=v,...] [--efficiency k=v,...] [--comm k=v,...] [--json]
  meshscope-cli serve-rank --model M --cluster C --serve k=v,... [--target-ttft S] [--target-itl S] [--engine k=v,...]
                           [--top N] [--json]
  meshscope-cli import     --trace PATH[,PATH...] [--rules FILE] [--json]
                           | --nccl-tests LOG [--json] | --topo FILE [--nodes N] [--gpu G] [--json]
                           | --log FILE [--json]   (a Megatron / DeepSpeed / torchtitan training log)
  meshscope-cli compare    --nccl-tests LOG --cluster C [--gpus LIST] [--comm k=v,...] [--json]
                           | --trace PATH[,PATH...] --model M --cluster C --train k=v,... --layout k=v,...
                             [--efficiency k=v,...] [--comm k=v,...] [--order megatron|tp-pp-dp|torchtitan] [--json]
                           | --log FILE [--model M] --cluster C [--train k=v,...] [--layout k=v,...]
                             [--efficiency k=v,...] [--json]   (model, layout and training keys default to the log's)
  meshscope-cli calibrate  --nccl-tests LOG[,LOG...] --cluster C [--gpus LIST] [--min-bytes 64M]
                           [--comm k=v,...] [--json]
                           | --log FILE [--model M] --cluster C [--train k=v,...] [--layout k=v,...]
                             [--efficiency k=v,...] [--json]   (a GEMM efficiency from the measured step time)
  meshscope-cli presets    [--json]
  meshscope-cli keys       [--scope train|serve|layout|serving-layout] [--json]   (every --train/--serve/--layout key)
  meshscope-cli import     --launcher FILE [--gpus N] [--json]   (Megatron-LM script, torchtitan TOML, DeepSpeed JSON)
  meshscope-cli export     --project P.json [--rank K] --format torchtitan|megatron|deepspeed [--out FILE] [--json]
  meshscope-cli tradeoff   (--project P.json | --model M --cluster C --train k=v,... --layout k=v,...)
                           --axis A [--values v1,v2,...] [--axis2 B [--values2 ...]] [--json]
                           (A: tp|pp|vpp|dp|fsdp|cp|ep|mbs|recompute|zero|seq|gbs|gpus|gpu|nic_gbps; the rest fixed)

  meshscope-cli sweep      SPEC.json --out POINTS.jsonl [--shard I/N] [--threads T]
                           (models × clusters × GPUs × workloads × objectives, one ranked search per point,
                           one JSON line each; resumes from POINTS.jsonl; docs/sweeps.md)
  meshscope-cli sweep merge A.jsonl B.jsonl ... --out ALL.jsonl   (joins shards: by id, in point order)

  meshscope-cli lesson     [FILE|NAME] [--step K] [--json] | --figures   (a guided lesson's steps, figures computed; docs/lessons.md)

  meshscope-cli --help | --version

M: a preset name (see `presets`), a Hugging Face config.json, or a meshscope model file.
G: a GPU id from the catalogue (see `presets`).
C: a cluster file (docs/cluster-format.md) or a generator string such as dgx-h100:nodes=64.
OP: all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, reduce, send-recv.
LIST: GPU indices in rank order, e.g. 0-15 or 0,8,16,24.
Keys of --train, --serve and --layout: `meshscope-cli keys`, or docs/cli.md.
Exit codes: 0 success, 2 bad input (message on stderr), 1 internal error.
)";
}  // namespace

int fail(const std::string& message) {
  std::cerr << "meshscope-cli: " << message << "\n";
  return kExitBadInput;
}

int fail(const Error& error) {
  return fail(error.to_string());
}

Result<Args> parse_args(int argc, char** argv) {
  Args args;
  static const std::vector<std::string> kValued = {
      "--model",         "--gpu",         "--train",        "--serve",
      "--layout",        "--seq",         "--world",        "--recompute",
      "--cluster",       "--from",        "--to",           "--op",
      "--gpus",          "--sizes",       "--order",        "--comm",
      "--efficiency",    "--schedule",    "--objective",    "--top",
      "--refine",        "--stages",      "--microbatches", "--vpp",
      "--fwd",           "--bwd",         "--wgrad",        "--p2p",
      "--engine",        "--target-ttft", "--target-itl",   "--prefill-layout",
      "--decode-layout", "--trace",       "--nccl-tests",   "--topo",
      "--rules",         "--nodes",       "--min-bytes",    "--log",
      "--scope",         "--threads",     "--framework"};
  // Launcher configs (import --launcher, export).
  static const std::vector<std::string> kLauncherValued = {"--launcher", "--project", "--rank", "--format", "--out"};
  static const std::vector<std::string> kScalingValued = {"--mode"};  // scaling (commands_scaling.cpp)
  static const std::vector<std::string> kTradeoffValued = {"--axis", "--values", "--axis2", "--values2"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      args.json = true;
    } else if (arg == "--full-attention") {
      args.full_attention = true;
    } else if (std::find(kValued.begin(), kValued.end(), arg) != kValued.end() ||
               std::find(kLauncherValued.begin(), kLauncherValued.end(), arg) != kLauncherValued.end() ||
               std::find(kScalingValued.begin(), kScalingValued.end(), arg) != kScalingValued.end() ||
               std::find(kTradeoffValued.begin(), kTradeoffValued.end(), arg) != kTradeoffValued.end()) {
      if (i + 1 >= argc) return make_error(ErrorCode::invalid_argument, arg + " needs a value");
      args.options[arg] = argv[++i];
    } else if (arg.starts_with("--")) {
      return make_error(ErrorCode::invalid_argument, "unknown option " + arg + " (see --help)");
    } else if (args.command.empty()) {
      args.command = arg;
    } else {
      return make_error(ErrorCode::invalid_argument, "unexpected argument \"" + arg + "\" (see --help)");
    }
  }
  return args;
}

Result<ModelSpec> model_arg(const Args& args) {
  if (!args.has("--model")) return make_error(ErrorCode::invalid_argument, "--model is required");
  return resolve_model(args.get("--model"));
}

Result<KeyValues> key_values_arg(const Args& args, const std::string& option) {
  if (!args.has(option)) return KeyValues{};
  return split_key_values(args.get(option), option);
}

Result<Cluster> cluster_arg(const Args& args) {
  if (!args.has("--cluster"))
    return make_error(ErrorCode::invalid_argument, "--cluster is required (a cluster file or a generator string)");
  return resolve_cluster(args.get("--cluster"));
}

Result<CommConstants> comm_arg(const Args& args) {
  MS_TRY(keys, key_values_arg(args, "--comm"));
  return comm_constants_from_keys(keys);
}

Result<TrainingSetup> training_setup(const Args& args, ClusterUse use) {
  MS_TRY(model, model_arg(args));
  MS_TRY(cluster, cluster_arg(args));
  MS_TRY(train_keys, key_values_arg(args, "--train"));
  // --framework F is --train framework=F (one field: TrainingWorkload::framework).
  if (args.has("--framework")) train_keys.emplace_back("framework", args.get("--framework"));
  MS_TRY(layout_keys, key_values_arg(args, "--layout"));
  return meshscope::training_setup(std::move(model), std::move(cluster), train_keys, layout_keys, use);
}

Result<Project> project_file_arg(const Args& args) {
  for (const char* option : {"--model", "--cluster", "--train"})
    if (args.has(option))
      return make_error(ErrorCode::invalid_argument, std::string(option) + " and --project exclude each other");
  MS_TRY(text, read_text_file(args.get("--project")));
  MS_TRY(doc, parse_json_text(text, args.get("--project")));
  return project_from_json(doc, args.get("--project"));
}

Result<ProjectArg> training_project_arg(const Args& args) {
  if (args.has("--project")) {
    MS_TRY(project, project_file_arg(args));
    return ProjectArg{std::move(project), std::nullopt};
  }
  MS_TRY(model, model_arg(args));
  MS_TRY(cluster, cluster_arg(args));
  TrainingArguments arguments{std::move(model),   std::move(cluster), args.get("--cluster"), {}, {}, {}, {},
                              AxisOrder::megatron};
  MS_TRY(train_keys, key_values_arg(args, "--train"));
  if (args.has("--framework")) train_keys.emplace_back("framework", args.get("--framework"));
  MS_TRY(layout_keys, key_values_arg(args, "--layout"));
  MS_TRY(efficiency_keys, key_values_arg(args, "--efficiency"));
  MS_TRY(comm_keys, key_values_arg(args, "--comm"));
  if (args.has("--order") && !parse_axis_order(args.get("--order"), arguments.order))
    return make_error(ErrorCode::invalid_argument, "--order must be megatron, tp-pp-dp or torchtitan", "--order");
  arguments.train = std::move(train_keys);
  arguments.layout = std::move(layout_keys);
  arguments.efficiency = std::move(efficiency_keys);
  arguments.comm = std::move(comm_keys);
  MS_TRY(project, training_project(arguments));
  return ProjectArg{std::move(project), std::move(arguments.cluster)};
}

}  // namespace meshscope::cli

int main(int argc, char** argv) {
  using namespace meshscope::cli;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "meshscope-cli " MESHSCOPE_VERSION "\n";
      return 0;
    }
  }
  // sweep: positional files, its own arguments.
  if (argc > 1 && std::string(argv[1]) == "sweep") return cmd_sweep(argc - 2, argv + 2);
  if (argc > 1 && std::string(argv[1]) == "lesson") return cmd_lesson(argc - 2, argv + 2);

  auto args = parse_args(argc, argv);
  if (!args) return fail(args.error());
  if (args->command.empty()) {
    std::cerr << kUsage;
    return kExitBadInput;
  }
  const std::pair<const char*, int (*)(const Args&)> commands[] = {{"params", cmd_params},
                                                                   {"flops", cmd_flops},
                                                                   {"memory", cmd_memory},
                                                                   {"presets", cmd_presets},
                                                                   {"keys", cmd_keys},
                                                                   {"topo", cmd_topo},
                                                                   {"estimate", cmd_estimate},
                                                                   {"route", cmd_route},
                                                                   {"collective", cmd_collective},
                                                                   {"comm", cmd_comm},
                                                                   {"rank", cmd_rank},
                                                                   {"schedule", cmd_schedule},
                                                                   {"serve", cmd_serve},
                                                                   {"serve-rank", cmd_serve_rank},
                                                                   {"import", cmd_import},
                                                                   {"compare", cmd_compare},
                                                                   {"calibrate", cmd_calibrate},
                                                                   {"export", cmd_export},
                                                                   {"scaling", cmd_scaling},
                                                                   {"tradeoff", cmd_tradeoff}};
  for (const auto& [name, run] : commands)
    if (args->command == name) return run(*args);
  return fail("unknown command \"" + args->command + "\" (see --help)");
}
