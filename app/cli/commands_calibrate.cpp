// meshscope-cli compare and calibrate: the collective model against measured nccl-tests logs.
//   compare   --nccl-tests LOG --cluster C [--gpus LIST] [--comm k=v,...] [--json]
//             every measured size: measured and predicted time and bus bandwidth, and the error
//   compare   --trace PATH[,PATH...] --model M --cluster C --train k=v,... --layout k=v,... [--efficiency k=v,...]
//             [--comm k=v,...] [--order megatron|tp-pp-dp|torchtitan] [--json]
//             a profiler trace (one file per rank, or a folder of them) against the predicted step of the layout it
//             ran with (core/calibration/trace_compare.hpp), and the GEMM efficiency that matches its compute
//   compare   --log FILE [--model M] --cluster C [--train k=v,...] [--layout k=v,...] [--efficiency k=v,...] [--json]
//             a training log (core/importers/training_log.hpp) against the predicted step of the layout it ran: the
//             log's argument dump gives the layout and training keys, --layout and --train override them key by key
//             (core/calibration/log_compare.hpp)
//   calibrate --nccl-tests LOG[,LOG...] --cluster C [--gpus LIST] [--min-bytes 64M] [--comm k=v,...] [--json]
//             fits the efficiency of the link kind that limits the groups; prints it as --comm keys
//   calibrate --log FILE [--model M] --cluster C [--train k=v,...] [--layout k=v,...] [--efficiency k=v,...] [--json]
//             the GEMM efficiency that makes the predicted step time match the log's (log_compare.hpp)
// Without --gpus a log runs on the cluster's first `ranks` GPUs (the ranks its header lists).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/cli.hpp"
#include "core/calibration/calibrate.hpp"
#include "core/calibration/log_compare.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/training_log.hpp"
#include "core/importers/training_log_model.hpp"
#include "core/keys/options.hpp"
#include "core/report/calibration.hpp"
#include "core/report/log_compare.hpp"
#include "core/report/units.hpp"
#include "core/session/calibrate.hpp"
#include "core/session/measurements.hpp"

namespace meshscope::cli {
namespace {

using json = nlohmann::json;

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

Result<int64_t> parse_gpu_index(const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value < 0)
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a GPU index", "--gpus");
  return static_cast<int64_t>(value);
}

// "0-7", "0,8,16,24", "0-3,8-11": cluster GPU indices in rank order.
Result<std::vector<DeviceId>> parse_gpu_list(const Cluster& cluster, const std::string& text) {
  std::vector<DeviceId> gpus;
  for (const std::string& item : split_commas(text)) {
    const size_t dash = item.find('-');
    MS_TRY(first, parse_gpu_index(item.substr(0, dash)));
    int64_t last = first;
    if (dash != std::string::npos) {
      MS_TRY(end, parse_gpu_index(item.substr(dash + 1)));
      last = end;
    }
    if (last < first) return make_error(ErrorCode::invalid_argument, "range \"" + item + "\" is reversed", "--gpus");
    if (last >= cluster.num_gpus())
      return make_error(ErrorCode::invalid_argument,
                        "GPU " + std::to_string(last) + " does not exist; the cluster has " +
                            std::to_string(cluster.num_gpus()) + " GPUs",
                        "--gpus");
    for (int64_t g = first; g <= last; ++g) gpus.push_back(cluster.gpus[static_cast<size_t>(g)]);
  }
  return gpus;
}

// "64M", "1G", "65536" (binary multiples, as nccl-tests -b/-e).
Result<double> parse_bytes(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  const std::string suffix(end);
  double scale = -1;
  if (suffix.empty())
    scale = 1;
  else if (suffix == "K" || suffix == "k")
    scale = kBytesPerKiB;
  else if (suffix == "M" || suffix == "m")
    scale = kBytesPerMiB;
  else if (suffix == "G" || suffix == "g")
    scale = kBytesPerGiB;
  if (end == text.c_str() || scale < 0 || !(value >= 0))
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a size (e.g. 0, 1K, 64M, 1G)", option);
  return value * scale;
}

// The group of a log: --gpus, else the cluster's first `log.ranks` GPUs (core/session/calibrate.hpp).
Result<std::vector<DeviceId>> log_gpus(const Args& args, const Cluster& cluster, const NcclTestsLog& log,
                                       const std::string& path) {
  if (args.has("--gpus")) return parse_gpu_list(cluster, args.get("--gpus"));
  if (log.ranks <= 0)
    return make_error(ErrorCode::invalid_argument, "the log does not say how many ranks ran; pass --gpus", path);
  return default_log_gpus(cluster, log, path);
}

int compare_trace_command(const Args& args) {
  // The job may have run on part of the cluster: the layout must be valid and fit, not fill it.
  auto setup = training_setup(args, ClusterUse::fit);
  if (!setup) return fail(setup.error());
  auto estimate_options = estimate_options_arg(args);
  if (!estimate_options) return fail(estimate_options.error());
  auto files = trace_files(args.get("--trace"));
  if (!files) return fail(files.error());
  auto run = load_trace_run(*files);
  if (!run) return fail(run.error());
  auto compared = compare_trace_run(*run, *setup, *estimate_options);
  if (!compared) return fail(compared.error());
  const auto& [c, notes, fitted] = *compared;
  const ModelSpec& model = setup->model;
  const Cluster& cluster = setup->cluster;

  if (args.json) {
    const json doc = trace_comparison_report(c, notes, fitted);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << trace_comparison_text(args.get("--trace"), model.name, cluster.name, c, notes, fitted);
  return 0;
}

// What a training log and the options predict: the log's layout and training keys, overridden key by key by
// --layout and --train; the model and cluster from --model and --cluster.
struct LogSetup {
  MeasuredRun run;
  ModelSpec model;
  Cluster cluster;
  TrainingWorkload workload;
  Layout layout;
  std::string layout_keys, train_keys;
  bool layout_from_log = false;
};

Result<LogSetup> log_setup(const Args& args) {
  MS_TRY(run, load_training_log(args.get("--log")));
  // Without --model, the model the log describes (its argument dump or torchtitan's ModelArgs).
  MS_TRY(model, args.has("--model") ? model_arg(args) : model_spec_from_log(run));
  MS_TRY(cluster, cluster_arg(args));
  std::string train_text = run.layout.train_keys();
  if (run.model.seq_length) train_text = "seq=" + std::to_string(*run.model.seq_length) + "," + train_text;
  if (!train_text.empty() && train_text.back() == ',') train_text.pop_back();
  MS_TRY(log_train_keys, split_key_values(train_text, "the log's training settings"));
  MS_TRY(log_layout_keys, split_key_values(run.layout.layout_keys(), "the log's layout"));
  MS_TRY(user_train_keys, key_values_arg(args, "--train"));
  MS_TRY(user_layout_keys, key_values_arg(args, "--layout"));
  MS_TRY(log_workload, training_from_keys(log_train_keys));
  MS_TRY(workload, training_from_keys(user_train_keys, log_workload));
  MS_TRY(log_layout, layout_from_keys(log_layout_keys));
  MS_TRY(layout, layout_from_keys(user_layout_keys, log_layout));
  const auto joined = [](const KeyValues& keys) {
    std::string out;
    for (const auto& [key, value] : keys) out += (out.empty() ? "" : ",") + key + "=" + value;
    return out;
  };
  const std::string layout_keys = joined(layout_to_keys(layout));
  const std::string train_keys = joined(training_to_keys(workload));
  const bool from_log = !args.has("--layout") && !run.layout.layout_keys().empty();
  return LogSetup{std::move(run), std::move(model), std::move(cluster), workload,
                  layout,         layout_keys,      train_keys,         from_log};
}

int log_command(const Args& args, bool calibrate) {
  auto setup = log_setup(args);
  if (!setup) return fail(setup.error());
  const LogSetup& s = *setup;
  if (auto fits = check_cluster_use(s.model, s.workload, s.layout, s.cluster, ClusterUse::fit); !fits)
    return fail(fits.error());
  auto options = estimate_options_arg(args);
  if (!options) return fail(options.error());
  // torchtitan's mesh is ordered dp_replicate, dp_shard, cp, tp (ParallelDims.build_mesh).
  if (s.run.framework == TrainingFramework::torchtitan && !args.has("--order")) options->order = AxisOrder::torchtitan;
  const Router router(s.cluster);
  auto estimate = estimate_step(s.model, s.workload, s.layout, s.cluster, router, *options);
  if (!estimate) return fail(estimate.error());
  auto comparison = compare_training_log(s.run, *estimate, s.layout);
  if (!comparison) return fail(comparison.error());
  comparison->layout_keys = s.layout_keys;
  comparison->train_keys = s.train_keys;
  comparison->layout_from_log = s.layout_from_log;
  const std::string& file = args.get("--log");
  if (calibrate) {
    auto hint =
        step_time_gemm_hint(s.run.step_time_s->median, s.model, s.workload, s.layout, s.cluster, router, *options);
    if (!hint) return fail(hint.error());
    if (args.json)
      std::cout << log_gemm_hint_json(*hint, *comparison, file).dump(2) << "\n";
    else
      std::cout << log_gemm_hint_text(*hint, *comparison, file);
    return 0;
  }
  if (args.json)
    std::cout << log_comparison_json(*comparison, file).dump(2) << "\n";
  else
    std::cout << log_comparison_text(*comparison, file, s.model.name, s.cluster.name);
  return 0;
}

}  // namespace

int cmd_compare(const Args& args) {
  if (args.has("--trace")) return compare_trace_command(args);
  if (args.has("--log")) return log_command(args, /*calibrate=*/false);
  if (!args.has("--nccl-tests")) return fail("--nccl-tests LOG, --trace PATH or --log FILE is required");
  const std::string path = args.get("--nccl-tests");
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  auto constants = comm_arg(args);
  if (!constants) return fail(constants.error());
  auto log = load_collective_log(path);
  if (!log) return fail(log.error());
  auto gpus = log_gpus(args, *cluster, *log, path);
  if (!gpus) return fail(gpus.error());
  auto rows = compare_nccl_tests(*log, *cluster, *gpus, *constants);
  if (!rows) return fail(rows.error());
  const std::string op(collective_op_name(*log->op));
  if (args.json) {
    const json doc = nccl_comparison_report(op, gpus->size(), *rows);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << nccl_comparison_text(op, gpus->size(), path, cluster->name, *rows);
  return 0;
}

int cmd_calibrate(const Args& args) {
  if (args.has("--log")) return log_command(args, /*calibrate=*/true);
  if (!args.has("--nccl-tests")) return fail("--nccl-tests LOG[,LOG...] or --log FILE is required");
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  // Checked here, before the logs are read, as the other options.
  auto comm_keys = key_values_arg(args, "--comm");
  if (!comm_keys) return fail(comm_keys.error());
  if (auto constants = comm_constants_from_keys(*comm_keys); !constants) return fail(constants.error());
  double min_bytes = kDefaultCalibrationMinBytes;
  if (args.has("--min-bytes")) {
    auto parsed = parse_bytes(args.get("--min-bytes"), "--min-bytes");
    if (!parsed) return fail(parsed.error());
    min_bytes = *parsed;
  }
  std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>> logs;
  for (const std::string& path : split_commas(args.get("--nccl-tests"))) {
    if (path.empty()) continue;
    auto log = load_collective_log(path);
    if (!log) return fail(log.error());
    auto gpus = log_gpus(args, *cluster, *log, path);
    if (!gpus) return fail(gpus.error());
    logs.emplace_back(std::move(*log), std::move(*gpus));
  }
  auto calibration = calibrate_collectives(logs, *cluster, *comm_keys, min_bytes);
  if (!calibration) return fail(calibration.error());
  const CalibrationResult& fit = calibration->fit;
  if (args.json) {
    const json doc = calibration_report(fit, min_bytes);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << calibration_text(fit, logs.size(), min_bytes);
  return 0;
}

}  // namespace meshscope::cli
