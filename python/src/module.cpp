// meshscope._meshscope: the Python binding (python/meshscope/__init__.py re-exports it; docs/python.md). Every
// function takes its inputs as meshscope-cli does (preset names, paths, generator strings, dicts of the --train,
// --serve, --layout, --efficiency and --comm keys) and returns the document the CLI prints with --json for the
// same command, built by the same core/report function, as dicts and lists.
#include <pybind11/pybind11.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/comm/collective.hpp"
#include "core/comm/collective_op.hpp"
#include "core/estimate/compute.hpp"
#include "core/estimate/step.hpp"
#include "core/importers/comm_kernel_rules.hpp"
#include "core/importers/kineto.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/training_log.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "core/report/calibration.hpp"
#include "core/report/estimate.hpp"
#include "core/report/importers.hpp"
#include "core/report/launcher.hpp"
#include "core/report/memory.hpp"
#include "core/report/model.hpp"
#include "core/report/scaling.hpp"
#include "core/report/search.hpp"
#include "core/report/serving.hpp"
#include "core/report/topology.hpp"
#include "core/report/training_log.hpp"
#include "core/report/units.hpp"
#include "core/search/search.hpp"
#include "core/serving/serving.hpp"
#include "core/session/calibrate.hpp"
#include "core/session/import_launcher.hpp"
#include "core/session/inputs.hpp"
#include "core/session/measurements.hpp"
#include "core/session/scaling.hpp"
#include "core/session/tradeoff.hpp"
#include "core/session/tradeoff_report.hpp"
#include "core/session/training.hpp"
#include "core/topology/placement.hpp"
#include "core/topology/routing.hpp"
#include "inputs.hpp"
#include "py_json.hpp"

namespace meshscope::python {
namespace {

namespace py = pybind11;

// ---- Shared arguments ----

AxisOrder order_value(const py::handle& order) {
  AxisOrder out = AxisOrder::megatron;
  if (order.is_none()) return out;
  if (!parse_axis_order(py::str(order).cast<std::string>(), out))
    throw CoreError("order: must be megatron, tp-pp-dp or torchtitan");
  return out;
}

CommConstants comm_value(const py::handle& comm) {
  return take(comm_constants_from_keys(key_values(comm, "--comm")));
}

// --efficiency, --comm and --order, as `estimate` reads them.
EstimateOptions estimate_options(const py::handle& efficiency, const py::handle& comm, const py::handle& order) {
  EstimateOptions options;
  options.efficiency = take(compute_efficiency_from_keys(key_values(efficiency, "--efficiency")));
  options.comm.constants = comm_value(comm);
  options.order = order_value(order);
  return options;
}

// The CLI's training_setup (core/session/inputs.hpp).
TrainingSetup training_setup(const py::handle& model, const py::handle& cluster, const py::handle& train,
                             const py::handle& layout, ClusterUse use) {
  return take(meshscope::training_setup(model_value(model), cluster_value(cluster), key_values(train, "--train"),
                                        key_values(layout, "--layout"), use));
}

// ---- Models ----

py::object presets() {
  return to_python(presets_report(model_preset_names(), gpu_catalogue()));
}

py::object params(const py::object& model) {
  return to_python(params_report(model_value(model)));
}

py::object flops(const py::object& model, const py::object& seq, const py::object& recompute, bool full_attention) {
  const ModelSpec m = model_value(model);
  TrainingWorkload base;
  base.seq_len = m.max_position_embeddings > 0 ? std::min<int64_t>(m.max_position_embeddings, 4096) : 4096;
  KeyValues keys;
  if (!seq.is_none()) keys.emplace_back("seq", py::str(seq).cast<std::string>());
  if (!recompute.is_none()) keys.emplace_back("recompute", py::str(recompute).cast<std::string>());
  const TrainingWorkload w = take(training_from_keys(keys, base));
  const bool causal = !full_attention;
  return to_python(flops_report(flops_per_token(m, w.seq_len, causal, w.recompute), w.seq_len, causal));
}

py::object memory(const py::object& model, const py::object& gpu, const py::object& cluster, const py::object& train,
                  const py::object& serve, const py::object& layout, const py::object& world) {
  const ModelSpec m = model_value(model);
  if (gpu.is_none() == cluster.is_none()) throw CoreError("give exactly one of gpu= (a catalogue id) or cluster=");
  if (train.is_none() == serve.is_none()) throw CoreError("give exactly one of train={...} or serve={...}");
  GpuSpec spec;
  int64_t world_size = 0;
  if (!gpu.is_none()) {
    spec = take(find_gpu(py::str(gpu).cast<std::string>()));
  } else {
    const Cluster c = cluster_value(cluster);
    spec = cluster_gpu(c);
    world_size = c.num_gpus();
  }
  if (!world.is_none()) world_size = world.cast<int64_t>();
  const Layout l = take(layout_from_keys(key_values(layout, "--layout")));
  std::vector<LayoutProblem> problems;
  MemoryBudget budget;
  if (!train.is_none()) {
    const TrainingWorkload w = take(training_from_keys(key_values(train, "--train")));
    problems = validate_training_layout(m, w, l, world_size);
    if (problems.empty()) budget = training_memory(m, w, l, spec);
  } else {
    const ServingWorkload w = take(serving_from_keys(key_values(serve, "--serve")));
    problems = validate_serving_layout(m, l, world_size);
    if (problems.empty()) budget = serving_memory(m, w, l, spec);
  }
  if (!problems.empty()) throw CoreError(problems_message(m.name, problems));
  return to_python(memory_report(budget));
}

// ---- Training ----

// A training project and the cluster it resolves to: the project file `project` (then model, cluster and the keys
// must be None), or what model, cluster and the keys describe (the CLI's training_project_arg).
struct ProjectValue {
  Project project;
  std::optional<Cluster> cluster;
};
ProjectValue training_project_value(const py::object& model, const py::object& cluster, const py::object& train,
                                    const py::object& layout, const py::object& efficiency, const py::object& comm,
                                    const py::object& order, const py::object& project) {
  if (!project.is_none()) {
    for (const auto& [given, name] : {std::pair{&model, "model"}, {&cluster, "cluster"}, {&train, "train"}})
      if (!given->is_none()) throw CoreError(std::string(name) + " and project exclude each other");
    const std::string path = py::str(project).cast<std::string>();
    const std::string text = take(read_text_file(path));
    return {take(project_from_json(take(parse_json_text(text, path)), path)), std::nullopt};
  }
  if (model.is_none() || cluster.is_none()) throw CoreError("give model and cluster, or project");
  TrainingArguments arguments;
  arguments.model = model_value(model);
  arguments.cluster = cluster_value(cluster);
  // A generator string or file stays one (the trade-off's gpus, dp, gpu and nic_gbps axes change its keys); a dict
  // is kept inline.
  if (py::isinstance<py::str>(cluster) || py::hasattr(cluster, "__fspath__"))
    arguments.cluster_ref = py::str(cluster).cast<std::string>();
  arguments.train = key_values(train, "--train");
  arguments.layout = key_values(layout, "--layout");
  arguments.efficiency = key_values(efficiency, "--efficiency");
  arguments.comm = key_values(comm, "--comm");
  arguments.order = order_value(order);
  Project built = take(training_project(arguments));
  return {std::move(built), std::move(arguments.cluster)};
}

py::object estimate(const py::object& model, const py::object& cluster, const py::object& train,
                    const py::object& layout, const py::object& efficiency, const py::object& comm,
                    const py::object& order, const py::object& project) {
  const ProjectValue p = training_project_value(model, cluster, train, layout, efficiency, comm, order, project);
  if (p.project.mode != Mode::training) throw CoreError("estimate needs a training project (a serving one: serve)");
  const Evaluation evaluation = take(evaluate_training(p.project, p.cluster ? &*p.cluster : nullptr));
  return to_python(estimate_report(*evaluation.estimate));
}

py::object rank(const py::object& model, const py::object& cluster, const py::object& train, int64_t top,
                int64_t refine, const std::string& objective, const py::object& project) {
  const ProjectValue p =
      training_project_value(model, cluster, train, py::none(), py::none(), py::none(), py::none(), project);
  if (p.project.mode != Mode::training) throw CoreError("rank needs a training project (a serving one: serve_rank)");
  if (top < 0 || refine < 0) throw CoreError("top and refine must be non-negative");
  SearchRequest request;
  if (!parse_rank_objective(objective, request.objective))
    throw CoreError("objective: must be throughput, memory-headroom or cost-per-token");
  request.top = top;
  request.refine = refine;
  const Cluster resolved = p.cluster ? *p.cluster : take(project_cluster(p.project));
  const SearchResult result = take(rank_project(p.project, resolved, request));
  return to_python(ranked_layouts_report(result, request.objective));
}

// Weak or strong scaling over a cluster family (`scaling --json`): `cluster` a generator string, `gpus` the
// CLI's --gpus text ("8:1024", "8:64:+8", "8,16,48") or a list of ints.
py::object scaling(const py::object& model, const std::string& cluster, const py::object& train, const py::object& gpus,
                   const std::string& mode) {
  std::vector<int64_t> counts;
  if (py::isinstance<py::str>(gpus)) {
    counts = take(parse_gpu_counts(gpus.cast<std::string>()));
  } else {
    for (const py::handle item : gpus) counts.push_back(item.cast<int64_t>());
    const std::string text = [&] {
      std::string joined;
      for (const int64_t n : counts) joined += (joined.empty() ? "" : ",") + std::to_string(n);
      return joined;
    }();
    counts = take(parse_gpu_counts(text));  // the same checks as the text form
  }
  const ModelSpec m = model_value(model);
  const TrainingWorkload workload = take(training_from_keys(key_values(train, "train")));
  SearchOptions options;
  options.top = 1;
  return to_python(
      scaling_report(take(run_scaling(m, workload, {cluster, counts, take(parse_scaling_mode(mode))}, options))));
}

py::object compare_trace(const py::object& trace, const py::object& model, const py::object& cluster,
                         const py::object& train, const py::object& layout, const py::object& efficiency,
                         const py::object& comm, const py::object& order) {
  // The job may have run on part of the cluster: the layout must be valid and fit, not fill it.
  const TrainingSetup s = training_setup(model, cluster, train, layout, ClusterUse::fit);
  const EstimateOptions options = estimate_options(efficiency, comm, order);
  const KinetoRunAnalysis run = take(load_trace_run(trace_files(trace)));
  const auto [c, notes, fitted] = take(compare_trace_run(run, s, options));
  return to_python(trace_comparison_report(c, notes, fitted));
}

// ---- Serving ----

struct ServeSetup {
  ModelSpec model;
  Cluster cluster;
  ServingRequestKeys request;
  ServingOptions options;
  KeyValues engine_keys;
  bool trtllm_bench = false;
  double kv_fraction = 0.95;
};

// The CLI's serve_setup: --engine's preset= and kv_fraction= are read here, its other keys by the core.
ServeSetup serve_setup(const py::object& model, const py::object& cluster, const py::object& serve,
                       const py::object& engine, const py::object& efficiency, const py::object& comm,
                       const py::object& order) {
  ServeSetup s{model_value(model), cluster_value(cluster), {}, {}, {}};
  s.request = take(serving_request_from_keys(key_values(serve, "--serve")));
  for (const auto& [key, value] : key_values(engine, "--engine")) {
    if (key == "preset") {
      if (value != "trtllm-bench" && value != "default")
        throw CoreError("--engine preset: \"" + value + "\" is not an engine preset: default, trtllm-bench");
      s.trtllm_bench = value == "trtllm-bench";
    } else if (key == "kv_fraction") {
      char* end = nullptr;
      s.kv_fraction = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(s.kv_fraction > 0) || s.kv_fraction > 1)
        throw CoreError("--engine kv_fraction: \"" + value + "\" is not a fraction in (0, 1]");
    } else {
      s.engine_keys.emplace_back(key, value);
    }
  }
  s.options.efficiency = take(compute_efficiency_from_keys(key_values(efficiency, "--efficiency")));
  s.options.comm = comm_value(comm);
  s.options.order = order_value(order);
  return s;
}

ServingEngine engine_for(const ServeSetup& s, const ServingLayout& layout) {
  ServingEngine base;
  if (s.trtllm_bench)
    base = trtllm_bench_engine(s.model, s.request.workload, layout, cluster_gpu(s.cluster), s.kv_fraction);
  return take(serving_engine_from_keys(s.engine_keys, base));
}

py::object serve(const py::object& model, const py::object& cluster, const py::object& serve_keys,
                 const py::object& layout, const py::object& engine, const py::object& efficiency,
                 const py::object& comm, const py::object& order, const py::object& prefill_layout,
                 const py::object& decode_layout) {
  ServeSetup s = serve_setup(model, cluster, serve_keys, engine, efficiency, comm, order);
  const Router router(s.cluster);
  if (!prefill_layout.is_none() || !decode_layout.is_none()) {
    if (prefill_layout.is_none() || decode_layout.is_none())
      throw CoreError("disaggregated serving needs both prefill_layout and decode_layout");
    const DisaggregatedLayout split{take(serving_layout_from_keys(key_values(prefill_layout, "--prefill-layout"))),
                                    take(serving_layout_from_keys(key_values(decode_layout, "--decode-layout")))};
    s.options.engine = engine_for(s, split.decode);
    const DisaggregatedEstimate e =
        take(estimate_disaggregated(s.model, s.request.workload, split, s.cluster, router, s.options));
    return to_python(disaggregated_serving_report(split, e));
  }
  const ServingLayout l = take(serving_layout_from_keys(key_values(layout, "--layout")));
  s.options.engine = engine_for(s, l);
  const ServingEstimate e =
      take(estimate_serving(s.model, s.request.workload, s.request.traffic, l, s.cluster, router, s.options));
  std::optional<OfflineRun> offline;
  if (s.request.traffic.num_requests > 0) {
    const ServingModel served =
        take(ServingModel::create(s.model, s.request.workload, l, s.cluster, router, s.options));
    offline = simulate_offline(served, s.request.traffic.num_requests);
  }
  return to_python(serving_report(l, e, offline));
}

double seconds_value(const py::object& value, const std::string& name) {
  if (value.is_none()) return std::numeric_limits<double>::infinity();
  const double seconds = value.cast<double>();
  if (!(seconds > 0) || !std::isfinite(seconds)) throw CoreError(name + ": must be a positive number of seconds");
  return seconds;
}

py::object serve_rank(const py::object& model, const py::object& cluster, const py::object& serve_keys,
                      const py::object& target_ttft, const py::object& target_itl, const py::object& engine,
                      int64_t top, const py::object& efficiency, const py::object& comm, const py::object& order) {
  const ServeSetup s = serve_setup(model, cluster, serve_keys, engine, efficiency, comm, order);
  const ServingTarget target{seconds_value(target_ttft, "target_ttft"), seconds_value(target_itl, "target_itl")};
  if (s.trtllm_bench)
    throw CoreError(
        "engine preset=trtllm-bench sizes one layout's engine; give max_batch/max_num_tokens for serve_rank");
  if (top < 0) throw CoreError("top must be a non-negative integer (0: all)");
  ServingRankOptions options;
  options.serving = s.options;
  options.serving.engine = take(serving_engine_from_keys(s.engine_keys));
  options.top = top;
  const ServingRankResult result = take(rank_serving_layouts(s.model, s.request.workload, s.cluster, target, options));
  return to_python(serving_rank_report(result, target));
}

// ---- Clusters and collectives ----

py::object collective(const py::object& cluster, const std::string& op, const py::object& gpus, const py::object& sizes,
                      const py::object& comm) {
  const Cluster c = cluster_value(cluster);
  const auto parsed_op = parse_collective_op(op);
  if (!parsed_op) throw CoreError("op: unknown collective \"" + op + "\"");
  const std::vector<DeviceId> group_gpus = gpu_list(c, gpus);
  if (group_gpus.size() < 2) throw CoreError("gpus: a collective needs at least 2 GPUs");
  std::vector<double> bytes;
  if (sizes.is_none()) {  // the CLI's default sweep, 8:8G
    for (double b = 8; b <= 8 * kBytesPerGiB; b *= 2) bytes.push_back(b);
  } else if (py::isinstance<py::int_>(sizes) || py::isinstance<py::float_>(sizes)) {
    bytes.push_back(sizes.cast<double>());
  } else {
    for (const auto& item : sizes) bytes.push_back(item.cast<double>());
  }
  for (const double b : bytes)
    if (!(b > 0) || !std::isfinite(b)) throw CoreError("sizes: a message size must be a positive number of bytes");
  const CommConstants constants = comm_value(comm);
  const Router router(c);
  const GroupPaths group = group_paths(router, group_gpus);
  std::vector<CollectiveEstimate> points;
  for (const double b : bytes) points.push_back(estimate_collective(router, group, *parsed_op, b, constants));
  return to_python(collective_report(c, points));
}

// ---- Measurements ----

py::object import_trace(const py::object& paths, const py::object& rules) {
  KinetoAnalysisOptions options;
  std::optional<KernelRuleTable> table;
  if (!rules.is_none()) {
    const auto user_rules = take(load_kernel_rules(py::str(rules).cast<std::string>()));
    table = take(KernelRuleTable::defaults().with_rules_first(user_rules));
    options.rules = &*table;
  }
  return to_python(kineto_run_report(take(load_trace_run(trace_files(paths), options))));
}

py::object import_nccl_tests(const py::object& path) {
  return to_python(nccl_tests_log_report(take(load_nccl_tests(py::str(path).cast<std::string>()))));
}

py::object import_log(const py::object& path) {
  return to_python(training_log_json(take(load_training_log(py::str(path).cast<std::string>()))));
}

// A launcher config (import --launcher --json): the project it builds, ignored and unmodelled flags.
py::object import_launcher(const py::object& path, const py::object& gpus) {
  LauncherImportOptions options;
  if (!gpus.is_none()) {
    const auto count = gpus.cast<int64_t>();
    if (count < 1) throw CoreError("gpus must be a positive integer");
    options.gpus = count;
  }
  return to_python(launcher_import_report(take(load_launcher_config(py::str(path).cast<std::string>(), options))));
}

std::vector<DeviceId> log_gpus(const Cluster& cluster, const NcclTestsLog& log, const std::string& path,
                               const py::object& gpus) {
  if (!gpus.is_none()) return gpu_list(cluster, gpus);
  if (log.ranks <= 0) throw CoreError(path + ": the log does not say how many ranks ran; pass gpus=");
  return take(default_log_gpus(cluster, log, path));
}

py::object compare_nccl_tests(const py::object& path, const py::object& cluster, const py::object& gpus,
                              const py::object& comm) {
  const std::string file = py::str(path).cast<std::string>();
  const Cluster c = cluster_value(cluster);
  const CommConstants constants = comm_value(comm);
  const NcclTestsLog log = take(load_collective_log(file));
  const std::vector<DeviceId> group = log_gpus(c, log, file, gpus);
  const auto rows = take(meshscope::compare_nccl_tests(log, c, group, constants));
  return to_python(nccl_comparison_report(collective_op_name(*log.op), group.size(), rows));
}

py::object calibrate_nccl_tests(const py::object& paths, const py::object& cluster, const py::object& gpus,
                                double min_bytes, const py::object& comm) {
  const Cluster c = cluster_value(cluster);
  const KeyValues comm_keys = key_values(comm, "--comm");
  (void)take(comm_constants_from_keys(comm_keys));  // checked before the logs are read, as the CLI does
  if (!(min_bytes >= 0)) throw CoreError("min_bytes: must be a non-negative number of bytes");
  std::vector<std::string> files;
  if (py::isinstance<py::str>(paths) || py::hasattr(paths, "__fspath__"))
    files.push_back(py::str(paths).cast<std::string>());
  else
    for (const auto& item : paths) files.push_back(py::str(item).cast<std::string>());
  std::vector<std::pair<NcclTestsLog, std::vector<DeviceId>>> logs;
  for (const std::string& file : files) {
    NcclTestsLog log = take(load_collective_log(file));
    std::vector<DeviceId> group = log_gpus(c, log, file, gpus);
    logs.emplace_back(std::move(log), std::move(group));
  }
  const NcclCalibration calibration = take(calibrate_collectives(logs, c, comm_keys, min_bytes));
  return to_python(calibration_report(calibration.fit, min_bytes));
}

// ---- The trade-off explorer (`tradeoff --json`) ----

TradeoffAxis tradeoff_axis_value(const py::handle& axis, const char* name) {
  const std::string text = py::str(axis).cast<std::string>();
  const auto parsed = parse_enum<TradeoffAxis>(text);
  if (!parsed)
    throw CoreError(std::string(name) + ": unknown axis \"" + text + "\" (one of " + enum_choices<TradeoffAxis>() +
                    ")");
  return *parsed;
}

// None: the axis's defaults for the project; a list or the CLI's text "1,2,4,8".
std::vector<TradeoffValue> tradeoff_values(const Project& project, TradeoffAxis axis, const py::handle& values,
                                           const char* name) {
  if (values.is_none()) return default_tradeoff_values(project, axis);
  std::string text;
  if (py::isinstance<py::str>(values)) {
    text = values.cast<std::string>();
  } else {
    for (const auto& item : values) text += (text.empty() ? "" : ",") + py::str(item).cast<std::string>();
  }
  auto parsed = parse_tradeoff_values(axis, text);
  if (!parsed) throw CoreError(std::string(name) + ": " + parsed.error().message);
  return *parsed;
}

py::object tradeoff(const py::object& model, const py::object& cluster, const py::object& train,
                    const py::object& layout, const py::object& axis, const py::object& values, const py::object& axis2,
                    const py::object& values2, const py::object& efficiency, const py::object& comm,
                    const py::object& project_file) {
  const Project project =
      training_project_value(model, cluster, train, layout, efficiency, comm, py::none(), project_file).project;
  const TradeoffAxis x = tradeoff_axis_value(axis, "axis");
  const std::vector<TradeoffValue> xs = tradeoff_values(project, x, values, "values");
  ClusterCache cache;
  if (axis2.is_none()) return to_python(tradeoff_report(take(tradeoff_curve(project, x, xs, cache))));
  const TradeoffAxis y = tradeoff_axis_value(axis2, "axis2");
  const std::vector<TradeoffValue> ys = tradeoff_values(project, y, values2, "values2");
  return to_python(tradeoff_grid_report(take(tradeoff_grid(project, x, xs, y, ys, cache))));
}

}  // namespace
}  // namespace meshscope::python

PYBIND11_MODULE(_meshscope, m) {
  namespace py = pybind11;
  using namespace meshscope::python;
  using py::arg;
  m.doc() = "meshscope's cost model: the documents of meshscope-cli --json as dicts (docs/python.md)";
  py::register_exception<CoreError>(m, "Error", PyExc_ValueError);
  const py::object none = py::none();

  m.def("presets", &presets, "The model presets and the GPU catalogue (`presets --json`).");
  m.def("params", &params, arg("model"), "Parameter counts of a model (`params --json`).");
  m.def("flops", &flops, arg("model"), arg("seq") = none, arg("recompute") = none, arg("full_attention") = false,
        "FLOPs per token (`flops --json`).");
  m.def("memory", &memory, arg("model"), py::kw_only(), arg("gpu") = none, arg("cluster") = none, arg("train") = none,
        arg("serve") = none, arg("layout") = none, arg("world") = none,
        "The memory budget per rank of a training or serving layout (`memory --json`).");
  m.def("estimate", &estimate, arg("model") = none, arg("cluster") = none, py::kw_only(), arg("train") = none,
        arg("layout") = none, arg("efficiency") = none, arg("comm") = none, arg("order") = none, arg("project") = none,
        "One training step's time, throughput, MFU and breakdown (`estimate --json`); of a project file with "
        "project=.");
  m.def("scaling", &scaling, arg("model"), arg("cluster"), py::kw_only(), arg("train") = none, arg("gpus"),
        arg("mode") = "weak", "Weak or strong scaling of the best layout over a cluster family (`scaling --json`).");
  m.def("rank", &rank, arg("model") = none, arg("cluster") = none, py::kw_only(), arg("train") = none, arg("top") = 10,
        arg("refine") = 0, arg("objective") = "throughput", arg("project") = none,
        "The ranked training layouts (`rank --json`); of a project file with project=.");
  m.def("compare_trace", &compare_trace, arg("trace"), py::kw_only(), arg("model"), arg("cluster"), arg("train") = none,
        arg("layout") = none, arg("efficiency") = none, arg("comm") = none, arg("order") = none,
        "A profiler trace against the predicted step (`compare --trace --json`).");
  m.def("serve", &serve, arg("model"), arg("cluster"), py::kw_only(), arg("serve") = none, arg("layout") = none,
        arg("engine") = none, arg("efficiency") = none, arg("comm") = none, arg("order") = none,
        arg("prefill_layout") = none, arg("decode_layout") = none,
        "Latency and throughput of a serving layout (`serve --json`).");
  m.def("serve_rank", &serve_rank, arg("model"), arg("cluster"), py::kw_only(), arg("serve") = none,
        arg("target_ttft") = none, arg("target_itl") = none, arg("engine") = none, arg("top") = 10,
        arg("efficiency") = none, arg("comm") = none, arg("order") = none,
        "The serving layouts meeting a TTFT/ITL target (`serve-rank --json`).");
  m.def("collective", &collective, arg("cluster"), arg("op"), arg("gpus"), arg("sizes") = none, py::kw_only(),
        arg("comm") = none, "A collective's time and bandwidth per message size (`collective --json`).");
  m.def("import_trace", &import_trace, arg("paths"), py::kw_only(), arg("rules") = none,
        "A PyTorch profiler run, one trace per rank (`import --trace --json`).");
  m.def("import_nccl_tests", &import_nccl_tests, arg("path"), "An nccl-tests log (`import --nccl-tests --json`).");
  m.def("import_log", &import_log, arg("path"), "A training log (`import --log --json`).");
  m.def("import_launcher", &import_launcher, arg("path"), arg("gpus") = py::none(),
        "A Megatron-LM script, torchtitan TOML or DeepSpeed JSON (`import --launcher --json`).");
  m.def("compare_nccl_tests", &compare_nccl_tests, arg("path"), py::kw_only(), arg("cluster"), arg("gpus") = none,
        arg("comm") = none, "The collective model against an nccl-tests log (`compare --nccl-tests --json`).");
  m.def("calibrate_nccl_tests", &calibrate_nccl_tests, arg("paths"), py::kw_only(), arg("cluster"), arg("gpus") = none,
        arg("min_bytes") = meshscope::kDefaultCalibrationMinBytes, arg("comm") = none,
        "The collective constants fitted to nccl-tests logs (`calibrate --nccl-tests --json`).");
  m.def("tradeoff", &tradeoff, arg("model") = none, arg("cluster") = none, py::kw_only(), arg("train") = none,
        arg("layout") = none, arg("axis"), arg("values") = none, arg("axis2") = none, arg("values2") = none,
        arg("efficiency") = none, arg("comm") = none, arg("project") = none,
        "One knob along an axis, the rest fixed; two: the grid (`tradeoff --json`); of a project file with project=.");
}
