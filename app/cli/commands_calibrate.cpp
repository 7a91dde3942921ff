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
#include "core/calibration/log_compare_report.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/training_log.hpp"
#include "core/importers/training_log_model.hpp"
#include "core/options.hpp"

namespace meshscope::cli {
namespace {

using json = nlohmann::json;

json number_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

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
    scale = 1024.0;
  else if (suffix == "M" || suffix == "m")
    scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g")
    scale = 1024.0 * 1024 * 1024;
  if (end == text.c_str() || scale < 0 || !(value >= 0))
    return make_error(ErrorCode::invalid_argument, "\"" + text + "\" is not a size (e.g. 0, 1K, 64M, 1G)", option);
  return value * scale;
}

// The group of a log: --gpus, else the cluster's first `log.ranks` GPUs.
Result<std::vector<DeviceId>> log_gpus(const Args& args, const Cluster& cluster, const NcclTestsLog& log,
                                       const std::string& path) {
  if (args.has("--gpus")) return parse_gpu_list(cluster, args.get("--gpus"));
  if (log.ranks <= 0)
    return make_error(ErrorCode::invalid_argument, "the log does not say how many ranks ran; pass --gpus", path);
  if (log.ranks > cluster.num_gpus())
    return make_error(ErrorCode::invalid_argument,
                      "the log ran on " + std::to_string(log.ranks) + " ranks but the cluster has " +
                          std::to_string(cluster.num_gpus()) + " GPUs",
                      path);
  return std::vector<DeviceId>(cluster.gpus.begin(), cluster.gpus.begin() + static_cast<std::ptrdiff_t>(log.ranks));
}

Result<NcclTestsLog> load_log(const std::string& path) {
  auto log = load_nccl_tests(path);
  if (!log) return log;
  if (!log->op)
    return make_error(ErrorCode::invalid_argument,
                      "the log does not say which collective it measured; name the file after it (e.g. "
                      "all_reduce_perf.log)",
                      path);
  return log;
}

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

// A row's value in the table's unit: ms for times, GB/s for bandwidths.
std::string table_value(const TraceCompareRow& row, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", row.kind == TraceRowKind::time ? value * 1e3 : value / 1e9);
  return buffer;
}

int compare_trace_command(const Args& args) {
  auto setup = training_setup(args, /*with_layout=*/false);
  if (!setup) return fail(setup.error());
  const auto& [model, cluster, workload, layout] = *setup;
  // The job may have run on part of the cluster: the layout must be valid and fit, not fill it.
  const auto problems = validate_training_layout(model, workload, layout);
  if (!problems.empty()) return fail(problems_message(model.name, problems));
  if (layout.world_size() > cluster.num_gpus())
    return fail("the layout has " + std::to_string(layout.world_size()) + " ranks but the cluster only " +
                std::to_string(cluster.num_gpus()) + " GPUs");
  auto estimate_options = estimate_options_arg(args);
  if (!estimate_options) return fail(estimate_options.error());
  EstimateOptions options = *estimate_options;

  auto files = trace_files(args.get("--trace"));
  if (!files) return fail(files.error());
  std::vector<KinetoTrace> traces;
  for (const std::string& file : *files) {
    auto trace = load_kineto_trace(file);
    if (!trace) return fail(trace.error());
    traces.push_back(std::move(*trace));
  }
  const KinetoRunAnalysis run = analyze_kineto_run(traces);
  const Router router(cluster);
  auto estimate = estimate_step(model, workload, layout, cluster, router, options);
  if (!estimate) return fail(estimate.error());
  auto comparison = compare_trace(run, *estimate, layout, cluster, {options.order, options.comm.constants});
  if (!comparison) return fail(comparison.error());
  const TraceComparison& c = *comparison;
  const TraceCompareRow* compute = c.row("compute");
  auto hint = gemm_efficiency_hint(compute ? compute->measured : 0, model, workload, layout, cluster, router, options);
  std::vector<std::string> notes = c.notes;
  for (const std::string& w : run.warnings) notes.push_back(w);
  if (!hint) notes.push_back("no GEMM efficiency hint: " + hint.error().to_string());

  if (args.json) {
    json rows = json::array();
    for (const auto& r : c.rows)
      rows.push_back({{"quantity", r.quantity},
                      {"unit", r.kind == TraceRowKind::time ? "s" : "B/s"},
                      {"measured", r.measured},
                      {"measured_min", r.measured_min},
                      {"measured_max", r.measured_max},
                      {"ranks", r.ranks},
                      {"predicted", optional_number(r.predicted)},
                      {"error", optional_number(r.error())},
                      {"note", r.note}});
    json collectives = json::array();
    for (const auto& k : c.collectives)
      collectives.push_back(
          {{"op", std::string(collective_op_name(k.op))},
           {"group", k.group},
           {"group_size", k.group_size},
           {"count_per_step", k.count_per_step},
           {"mean_message_bytes", k.mean_message_bytes},
           {"measured_busbw_GBps", number_or_null(k.measured_busbw / 1e9)},
           {"predicted_busbw_GBps", k.predicted_busbw ? number_or_null(*k.predicted_busbw / 1e9) : json(nullptr)},
           {"predicted_time_s", optional_number(k.predicted_time_s)}});
    json groups = json::array();
    for (const auto& g : c.process_groups)
      groups.push_back({{"name", g.name},
                        {"description", g.description},
                        {"size", g.size},
                        {"stride", g.stride},
                        {"axis", g.axis ? json(std::string(mesh_axis_name(*g.axis))) : json(nullptr)},
                        {"label", g.label},
                        {"reason", g.reason}});
    json doc = {{"world_size", c.world_size}, {"ranks", c.ranks},         {"steps", c.steps}, {"rows", rows},
                {"collectives", collectives}, {"process_groups", groups}, {"notes", notes}};
    if (hint)
      doc["gemm_efficiency"] = {{"before", hint->before},
                                {"after", hint->after},
                                {"compute_error_before", hint->compute_error_before},
                                {"compute_error_after", hint->compute_error_after},
                                {"at_limit", hint->at_limit},
                                {"efficiency", hint->efficiency_key}};
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("# %s: %lld rank(s), %lld ProfilerStep(s) vs %s on %s (%lld ranks)\n", args.get("--trace").c_str(),
              static_cast<long long>(c.ranks), static_cast<long long>(c.steps), model.name.c_str(),
              cluster.name.c_str(), static_cast<long long>(c.world_size));
  std::printf(
      "# times in ms per step, bandwidths in GB/s; measured: mean over ranks (min..max); "
      "error: predicted / measured - 1\n");
  std::printf("%-26s %12s %21s %12s %9s\n", "quantity", "measured", "(min..max)", "predicted", "error");
  for (const auto& r : c.rows) {
    const std::string range =
        r.ranks > 1 ? table_value(r, r.measured_min) + ".." + table_value(r, r.measured_max) : std::string();
    char error[16] = "-";
    if (const auto e = r.error()) std::snprintf(error, sizeof error, "%+.1f%%", 100 * *e);
    std::printf("%-26s %12s %21s %12s %9s\n", r.quantity.c_str(), table_value(r, r.measured).c_str(), range.c_str(),
                r.predicted ? table_value(r, *r.predicted).c_str() : "-", error);
  }
  for (const auto& g : c.process_groups)
    std::printf("# pg %s (%s): %s - %s\n", g.name.c_str(), g.description.c_str(), g.label.c_str(), g.reason.c_str());
  if (hint)
    std::printf("# GEMM efficiency %.3f -> %.3f: compute error %+.1f %% -> %+.1f %%%s; --efficiency %s\n", hint->before,
                hint->after, 100 * hint->compute_error_before, 100 * hint->compute_error_after,
                hint->at_limit ? " (at its limit: GEMMs alone cannot explain the difference)" : "",
                hint->efficiency_key.c_str());
  for (const auto& note : notes) std::printf("# note: %s\n", note.c_str());
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
  const auto problems = validate_training_layout(s.model, s.workload, s.layout);
  if (!problems.empty()) return fail(problems_message(s.model.name, problems));
  if (s.layout.world_size() > s.cluster.num_gpus())
    return fail("the layout has " + std::to_string(s.layout.world_size()) + " ranks but the cluster only " +
                std::to_string(s.cluster.num_gpus()) + " GPUs");
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
  auto log = load_log(path);
  if (!log) return fail(log.error());
  auto gpus = log_gpus(args, *cluster, *log, path);
  if (!gpus) return fail(gpus.error());
  auto rows = compare_nccl_tests(*log, *cluster, *gpus, *constants);
  if (!rows) return fail(rows.error());
  const std::string op(collective_op_name(*log->op));
  double sum = 0;
  for (const auto& r : *rows) sum += std::abs(r.error());
  const double mean_error = rows->empty() ? 0 : sum / static_cast<double>(rows->size());
  if (args.json) {
    json points = json::array();
    for (const auto& r : *rows)
      points.push_back({{"bytes", r.bytes},
                        {"measured_time_s", r.measured_time_s},
                        {"predicted_time_s", r.predicted_time_s},
                        {"measured_busbw_GBps", number_or_null(r.measured_busbw / 1e9)},
                        {"predicted_busbw_GBps", number_or_null(r.predicted_busbw / 1e9)},
                        {"error", r.error()}});
    const json doc = {{"collective", op}, {"ranks", gpus->size()}, {"points", points}, {"mean_abs_error", mean_error}};
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("# %s over %zu GPUs: measured (%s) vs predicted (%s)\n", op.c_str(), gpus->size(), path.c_str(),
              cluster->name.c_str());
  std::printf("#%14s %12s %12s %10s %10s %8s\n", "size (B)", "meas (us)", "pred (us)", "meas busbw", "pred busbw",
              "error");
  for (const auto& r : *rows)
    std::printf("%15.0f %12.2f %12.2f %10.2f %10.2f %+7.1f%%\n", r.bytes, r.measured_time_s * 1e6,
                r.predicted_time_s * 1e6, r.measured_busbw / 1e9, r.predicted_busbw / 1e9, 100 * r.error());
  std::printf("# mean |time error| %.1f %% over %zu sizes (error: predicted / measured time - 1)\n", 100 * mean_error,
              rows->size());
  return 0;
}

int cmd_calibrate(const Args& args) {
  if (args.has("--log")) return log_command(args, /*calibrate=*/true);
  if (!args.has("--nccl-tests")) return fail("--nccl-tests LOG[,LOG...] or --log FILE is required");
  auto cluster = cluster_arg(args);
  if (!cluster) return fail(cluster.error());
  auto constants = comm_arg(args);
  if (!constants) return fail(constants.error());
  double min_bytes = 64.0 * 1024 * 1024;
  if (args.has("--min-bytes")) {
    auto parsed = parse_bytes(args.get("--min-bytes"), "--min-bytes");
    if (!parsed) return fail(parsed.error());
    min_bytes = *parsed;
  }
  std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>> logs;
  for (const std::string& path : split_commas(args.get("--nccl-tests"))) {
    if (path.empty()) continue;
    auto log = load_log(path);
    if (!log) return fail(log.error());
    auto gpus = log_gpus(args, *cluster, *log, path);
    if (!gpus) return fail(gpus.error());
    logs.emplace_back(std::move(*log), std::move(*gpus));
  }
  auto fit = calibrate_from_nccl_tests(logs, *cluster, *constants, min_bytes);
  if (!fit) return fail(fit.error());
  std::string keys;
  for (const auto& [key, value] : fit->comm_keys) keys += (keys.empty() ? "" : ",") + key + "=" + value;
  if (args.json) {
    json comm_keys = json::object();
    for (const auto& [key, value] : fit->comm_keys) comm_keys[key] = std::strtod(value.c_str(), nullptr);
    const json doc = {{"changes", fit->changes},
                      {"comm_keys", comm_keys},
                      {"comm", keys},
                      {"error_before", fit->error_before},
                      {"error_after", fit->error_after},
                      {"rows", fit->rows},
                      {"min_bytes", min_bytes},
                      {"overhead_ll_us", fit->overhead_ll_us},
                      {"overhead_pipelined_us", fit->overhead_pipelined_us},
                      {"latency_error_before", fit->latency_error_before},
                      {"latency_error_after", fit->latency_error_after},
                      {"latency_rows", fit->latency_rows}};
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::printf("# calibrated on %zu log(s), %lld rows of at least %.0f B\n", logs.size(),
              static_cast<long long>(fit->rows), min_bytes);
  for (const auto& change : fit->changes) std::printf("#   %s\n", change.c_str());
  std::printf("# mean |time error| %.1f %% -> %.1f %%\n", 100 * fit->error_before, 100 * fit->error_after);
  std::printf("--comm %s\n", keys.c_str());
  return 0;
}

}  // namespace meshscope::cli
