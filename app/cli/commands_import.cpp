// meshscope-cli import: measured data in, a summary out (docs/import.md).
//   import --trace PATH[,PATH...] [--rules FILE] [--json]   PyTorch profiler (Kineto) traces, one per rank; a folder
//                                                          stands for the .json / .json.gz files in it
//   import --nccl-tests LOG [--json]                       an nccl-tests log (core/importers/nccl_tests.hpp)
//   import --topo FILE [--nodes N] [--gpu G]               nvidia-smi topo -m, hwloc XML, NCCL topology XML
//   import --log FILE [--json]                             a training log: Megatron-LM, Megatron-DeepSpeed, DeepSpeed,
//                                                          torchtitan (core/importers/training_log.hpp, docs/logs.md)
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
#include "core/importers/training_log_report.hpp"
#include "core/topology/cluster_io.hpp"

namespace meshscope::cli {
namespace {

using json = nlohmann::json;

// Microseconds and GB/s (1e9 bytes/s) in the JSON, as nccl-tests prints them.
double gb_per_s(double bytes_per_s) {
  return bytes_per_s / 1e9;
}
// nccl-tests prints µs with two decimals; rounding to 1e-3 µs removes the noise of the s → µs round trip.
double us_from_s(double seconds) {
  return std::round(seconds * 1e9) / 1e3;
}

json number_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

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

bool is_trace_file_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

// Files named in --trace; a folder stands for its *.json and *.json.gz files, sorted by name.
json temporal_json(const KinetoTemporalBreakdown& t) {
  return {{"idle_us", t.idle_us},
          {"compute_us", t.compute_us},
          {"non_compute_us", t.non_compute_us},
          {"kernel_time_us", t.kernel_time_us},
          {"idle_pct", t.idle_pct()},
          {"compute_pct", t.compute_pct()},
          {"non_compute_pct", t.non_compute_pct()}};
}

json rank_json(const KinetoRankAnalysis& a) {
  json steps = json::array();
  for (const auto& s : a.steps) {
    json devices = json::array();
    for (const auto& d : s.devices)
      devices.push_back({{"device", d.device},
                         {"busy_us", d.busy_us},
                         {"kernel_time_us", d.kernel_time_us},
                         {"compute_us", d.compute_us},
                         {"communication_us", d.communication_us},
                         {"exposed_communication_us", d.exposed_communication_us},
                         {"idle_us", d.idle_us},
                         {"gpu_events", d.gpu_events}});
    const auto& l = s.launched;
    steps.push_back({{"name", s.name},
                     {"start_us", s.start_us},
                     {"duration_us", s.duration_us},
                     {"device", s.device},
                     {"busy_us", s.busy_us},
                     {"kernel_time_us", s.kernel_time_us},
                     {"compute_us", s.compute_us},
                     {"communication_us", s.communication_us},
                     {"exposed_communication_us", s.exposed_communication_us},
                     {"compute_or_communication_us", s.compute_or_communication_us},
                     {"idle_us", s.idle_us},
                     {"gpu_events", s.gpu_events},
                     {"devices", devices},
                     {"launched",
                      {{"kernel_time_us", l.kernel_time_us},
                       {"compute_us", l.compute_us},
                       {"communication_us", l.communication_us},
                       {"exposed_communication_us", l.exposed_communication_us},
                       {"idle_us", l.idle_us},
                       {"gpu_events", l.gpu_events}}}});
  }
  json families = json::array();
  for (const auto& f : a.kernel_families)
    families.push_back({{"rule", f.rule >= 0 ? json(f.rule) : json(nullptr)},
                        {"pattern", f.pattern},
                        {"library", f.library},
                        {"source", f.source},
                        {"class", std::string(kernel_class_name(f.cls))},
                        {"op", f.op ? json(std::string(collective_op_name(*f.op))) : json(nullptr)},
                        {"names", f.names},
                        {"count", f.count},
                        {"time_us", f.time_us},
                        {"example", f.example}});
  json collectives = json::array();
  for (const auto& c : a.collectives)
    collectives.push_back({{"op", c.op ? json(std::string(collective_op_name(*c.op))) : json(nullptr)},
                           {"process_group", c.process_group},
                           {"group_size", c.group_size > 0 ? json(c.group_size) : json(nullptr)},
                           {"group_size_assumed", c.group_size_assumed},
                           {"count", c.count},
                           {"count_with_bytes", c.count_with_bytes},
                           {"bytes", c.bytes},
                           {"time_us", c.time_us},
                           {"algbw_GBps", number_or_null(gb_per_s(c.algbw_bytes_per_s))},
                           {"busbw_GBps", number_or_null(gb_per_s(c.busbw_bytes_per_s))},
                           {"on_cpu", c.on_cpu}});
  json classes = json::array();
  for (const auto& c : a.classes)
    classes.push_back({{"class", std::string(kernel_class_name(c.cls))}, {"count", c.count}, {"time_us", c.time_us}});
  json groups = json::array();
  for (const auto& g : a.process_groups)
    groups.push_back({{"name", g.name},
                      {"description", g.description},
                      {"size", g.size},
                      {"stride", g.stride},
                      {"shape", std::string(process_group_shape_name(g.shape))},
                      {"axis_hint", g.axis_hint}});
  json warnings = json::array();
  for (const auto& w : a.warnings) warnings.push_back(w.message);
  return {
      {"file", a.origin},
      {"rank", a.rank},
      {"world_size", a.world_size > 0 ? json(a.world_size) : json(nullptr)},
      {"device", a.device},
      {"steps", steps},
      {"temporal_breakdown", a.temporal ? temporal_json(*a.temporal) : json(nullptr)},
      {"comm_comp_overlap_pct", a.comm_comp_overlap_pct ? json(*a.comm_comp_overlap_pct) : json(nullptr)},
      {"hta_temporal_breakdown", a.hta_temporal ? temporal_json(*a.hta_temporal) : json(nullptr)},
      {"hta_comm_comp_overlap_pct", a.hta_comm_comp_overlap_pct ? json(*a.hta_comm_comp_overlap_pct) : json(nullptr)},
      {"collectives", collectives},
      {"kernel_classes", classes},
      {"kernel_families", families},
      {"process_groups", groups},
      {"warnings", warnings}};
}

json run_json(const KinetoRunAnalysis& run) {
  json ranks = json::array();
  for (const auto& r : run.ranks) ranks.push_back(rank_json(r));
  json doc = {{"ranks", ranks}};
  if (run.ranks.size() > 1) {
    doc["skew_us"] = run.step_skew_us ? json(*run.step_skew_us) : json(nullptr);
    doc["slowest_rank"] = run.slowest_rank ? json(*run.slowest_rank) : json(nullptr);
  }
  doc["warnings"] = run.warnings;
  return doc;
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

void print_run(const KinetoRunAnalysis& run) {
  for (const auto& a : run.ranks) {
    std::cout << "rank " << a.rank;
    if (a.world_size > 0) std::cout << " of " << a.world_size;
    std::cout << " — " << a.device << " — " << a.origin << "\n";
    if (a.temporal) {
      const auto& t = *a.temporal;
      std::cout << "  GPU time " << fixed(t.kernel_time_us / 1e3, 3) << " ms: idle " << fixed(t.idle_pct(), 2)
                << " %, compute " << fixed(t.compute_pct(), 2) << " %, non-compute " << fixed(t.non_compute_pct(), 2)
                << " %";
      if (a.comm_comp_overlap_pct) std::cout << "; comm/compute overlap " << fixed(*a.comm_comp_overlap_pct, 2) << " %";
      std::cout << "\n";
    } else {
      std::cout << "  no GPU activity\n";
    }
    if (!a.steps.empty()) {
      // Unions of the GPU activity inside each step's window (docs/import.md, "Per step").
      std::printf("  %-22s %12s %12s %12s %12s %12s %7s\n", "step", "time ms", "compute ms", "comm ms", "exposed ms",
                  "idle ms", "device");
      for (const auto& s : a.steps)
        std::printf("  %-22s %12.3f %12.3f %12.3f %12.3f %12.3f %7s\n", s.name.c_str(), s.duration_us / 1e3,
                    s.compute_us / 1e3, s.communication_us / 1e3, s.exposed_communication_us / 1e3, s.idle_us / 1e3,
                    s.device >= 0 ? std::to_string(s.device).c_str() : "-");
    }
    if (!a.kernel_families.empty()) {
      std::printf("  %-14s %5s %-28s %-24s %7s %8s %12s\n", "class", "rule", "library", "pattern", "names", "count",
                  "time ms");
      for (const auto& f : a.kernel_families) {
        const std::string cls = std::string(kernel_class_name(f.cls)) +
                                (f.op ? " " + std::string(collective_op_name(*f.op)) : std::string());
        const std::string pattern = f.rule >= 0 ? f.pattern.substr(0, 24) : f.source;
        std::printf("  %-14s %5s %-28s %-24s %7lld %8lld %12.3f\n", cls.substr(0, 14).c_str(),
                    f.rule >= 0 ? std::to_string(f.rule).c_str() : "-", f.library.substr(0, 28).c_str(),
                    pattern.c_str(), static_cast<long long>(f.names), static_cast<long long>(f.count), f.time_us / 1e3);
      }
    }
    if (!a.collectives.empty()) {
      std::printf("  %-16s %6s %8s %14s %12s %10s %10s\n", "collective", "group", "count", "bytes", "time ms",
                  "algbw GB/s", "busbw GB/s");
      for (const auto& c : a.collectives) {
        const std::string op = c.op ? std::string(collective_op_name(*c.op)) : "unknown";
        const std::string group =
            c.group_size > 0 ? std::to_string(c.group_size) + (c.group_size_assumed ? "?" : "") : "-";
        std::printf("  %-16s %6s %8lld %14s %12.3f %10s %10s\n", op.c_str(), group.c_str(),
                    static_cast<long long>(c.count), c.count_with_bytes > 0 ? fixed(c.bytes, 0).c_str() : "-",
                    c.time_us / 1e3, fixed(gb_per_s(c.algbw_bytes_per_s), 2).c_str(),
                    fixed(gb_per_s(c.busbw_bytes_per_s), 2).c_str());
      }
    }
    for (const auto& w : a.warnings) std::cout << "  warning: " << w.message << "\n";
  }
  if (run.ranks.size() > 1 && run.step_skew_us)
    std::cout << "step-time skew " << fixed(*run.step_skew_us / 1e3, 3) << " ms; slowest rank " << *run.slowest_rank
              << "\n";
  for (const auto& w : run.warnings) std::cout << "warning: " << w << "\n";
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
  std::vector<KinetoTrace> traces;
  for (const std::string& file : *files) {
    auto trace = load_kineto_trace(file);
    if (!trace) return fail(trace.error());
    traces.push_back(std::move(*trace));
  }
  const KinetoRunAnalysis run = analyze_kineto_run(traces, options);
  if (args.json) {
    std::cout << run_json(run).dump(2) << "\n";
  } else {
    print_run(run);
  }
  return 0;
}

int import_nccl_tests(const Args& args) {
  auto log = load_nccl_tests(args.get("--nccl-tests"));
  if (!log) return fail(log.error());
  json points = json::array();
  for (const auto& row : log->rows) {
    points.push_back({{"bytes", row.bytes},
                      {"time_us", number_or_null(us_from_s(row.out_of_place_time_s))},
                      {"algbw_GBps", number_or_null(gb_per_s(row.out_of_place_algbw_bytes_per_s))},
                      {"busbw_GBps", number_or_null(gb_per_s(row.out_of_place_busbw_bytes_per_s))},
                      {"in_place", false}});
    if (std::isfinite(row.in_place_time_s))
      points.push_back({{"bytes", row.bytes},
                        {"time_us", number_or_null(us_from_s(row.in_place_time_s))},
                        {"algbw_GBps", number_or_null(gb_per_s(row.in_place_algbw_bytes_per_s))},
                        {"busbw_GBps", number_or_null(gb_per_s(row.in_place_busbw_bytes_per_s))},
                        {"in_place", true}});
  }
  json warnings = json::array();
  for (const auto& w : log->warnings) warnings.push_back({{"line", w.line}, {"message", w.message}});
  if (args.json) {
    const json doc = {{"collective", log->op ? json(std::string(collective_op_name(*log->op))) : json(nullptr)},
                      {"ranks", log->ranks > 0 ? json(log->ranks) : json(nullptr)},
                      {"points", points},
                      {"warnings", warnings}};
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << (log->op ? std::string(collective_op_name(*log->op)) : "unknown collective") << ", "
            << (log->ranks > 0 ? std::to_string(log->ranks) : "?") << " ranks, " << log->rows.size() << " sizes\n";
  std::printf("%14s %9s %12s %11s %11s\n", "bytes", "placement", "time us", "algbw GB/s", "busbw GB/s");
  for (const auto& p : points)
    std::printf("%14.0f %9s %12s %11s %11s\n", p.at("bytes").get<double>(), p.at("in_place").get<bool>() ? "in" : "out",
                p.at("time_us").is_null() ? "-" : fixed(p.at("time_us").get<double>(), 2).c_str(),
                p.at("algbw_GBps").is_null() ? "-" : fixed(p.at("algbw_GBps").get<double>(), 2).c_str(),
                p.at("busbw_GBps").is_null() ? "-" : fixed(p.at("busbw_GBps").get<double>(), 2).c_str());
  for (const auto& w : log->warnings) std::cout << "warning: line " << w.line << ": " << w.message << "\n";
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

}  // namespace

Result<std::vector<std::string>> trace_files(const std::string& option) {
  std::vector<std::string> files;
  for (const std::string& entry : split_paths(option)) {
    std::error_code ec;
    if (std::filesystem::is_directory(entry, ec)) {
      std::vector<std::string> found;
      for (const auto& item : std::filesystem::directory_iterator(entry, ec))
        if (item.is_regular_file() && is_trace_file_name(item.path().filename().string()))
          found.push_back(item.path().string());
      if (ec) return make_error(ErrorCode::io_error, "cannot list the folder (" + ec.message() + ")", entry);
      if (found.empty()) return make_error(ErrorCode::io_error, "the folder has no .json or .json.gz trace", entry);
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(entry);
    }
  }
  if (files.empty()) return make_error(ErrorCode::invalid_argument, "--trace needs at least one file or folder");
  return files;
}

int cmd_import(const Args& args) {
  const int sources = static_cast<int>(args.has("--trace")) + static_cast<int>(args.has("--nccl-tests")) +
                      static_cast<int>(args.has("--topo")) + static_cast<int>(args.has("--log"));
  if (sources != 1)
    return fail("import needs exactly one of --trace PATH[,PATH...], --nccl-tests LOG, --topo FILE or --log FILE");
  if (args.has("--topo")) return import_topology(args);
  if (args.has("--log")) return import_training_log(args);
  if (args.has("--nccl-tests")) return import_nccl_tests(args);
  return import_traces(args);
}

}  // namespace meshscope::cli
