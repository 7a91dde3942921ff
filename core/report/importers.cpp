#include "core/report/importers.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include <sstream>

#include "core/report/text.hpp"
#include "core/report/units.hpp"

namespace meshscope {

using nlohmann::json;

namespace {

json number_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

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

}  // namespace

json kineto_run_report(const KinetoRunAnalysis& run) {
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

json nccl_tests_log_report(const NcclTestsLog& log) {
  json points = json::array();
  for (const auto& row : log.rows) {
    points.push_back({{"bytes", row.bytes},
                      {"time_us", number_or_null(us_from_s_rounded(row.out_of_place_time_s))},
                      {"algbw_GBps", number_or_null(gb_per_s(row.out_of_place_algbw_bytes_per_s))},
                      {"busbw_GBps", number_or_null(gb_per_s(row.out_of_place_busbw_bytes_per_s))},
                      {"in_place", false}});
    if (std::isfinite(row.in_place_time_s))
      points.push_back({{"bytes", row.bytes},
                        {"time_us", number_or_null(us_from_s_rounded(row.in_place_time_s))},
                        {"algbw_GBps", number_or_null(gb_per_s(row.in_place_algbw_bytes_per_s))},
                        {"busbw_GBps", number_or_null(gb_per_s(row.in_place_busbw_bytes_per_s))},
                        {"in_place", true}});
  }
  json warnings = json::array();
  for (const auto& w : log.warnings) warnings.push_back({{"line", w.line}, {"message", w.message}});
  return {{"collective", log.op ? json(std::string(collective_op_name(*log.op))) : json(nullptr)},
          {"ranks", log.ranks > 0 ? json(log.ranks) : json(nullptr)},
          {"points", points},
          {"warnings", warnings}};
}

std::string kineto_run_text(const KinetoRunAnalysis& run) {
  std::ostringstream out;
  for (const auto& a : run.ranks) {
    out << "rank " << a.rank;
    if (a.world_size > 0) out << " of " << a.world_size;
    out << " — " << a.device << " — " << a.origin << "\n";
    if (a.temporal) {
      const auto& t = *a.temporal;
      out << "  GPU time " << fixed_or_dash(ms_from_us(t.kernel_time_us), 3) << " ms: idle "
          << fixed_or_dash(t.idle_pct(), 2) << " %, compute " << fixed_or_dash(t.compute_pct(), 2) << " %, non-compute "
          << fixed_or_dash(t.non_compute_pct(), 2) << " %";
      if (a.comm_comp_overlap_pct)
        out << "; comm/compute overlap " << fixed_or_dash(*a.comm_comp_overlap_pct, 2) << " %";
      out << "\n";
    } else {
      out << "  no GPU activity\n";
    }
    if (!a.steps.empty()) {
      // Unions of the GPU activity inside each step's window (docs/import.md, "Per step").
      printf_to(out, "  %-22s %12s %12s %12s %12s %12s %7s\n", "step", "time ms", "compute ms", "comm ms", "exposed ms",
                "idle ms", "device");
      for (const auto& s : a.steps)
        printf_to(out, "  %-22s %12.3f %12.3f %12.3f %12.3f %12.3f %7s\n", s.name.c_str(), ms_from_us(s.duration_us),
                  ms_from_us(s.compute_us), ms_from_us(s.communication_us), ms_from_us(s.exposed_communication_us),
                  ms_from_us(s.idle_us), s.device >= 0 ? std::to_string(s.device).c_str() : "-");
    }
    if (!a.kernel_families.empty()) {
      printf_to(out, "  %-14s %5s %-28s %-24s %7s %8s %12s\n", "class", "rule", "library", "pattern", "names", "count",
                "time ms");
      for (const auto& f : a.kernel_families) {
        const std::string cls = std::string(kernel_class_name(f.cls)) +
                                (f.op ? " " + std::string(collective_op_name(*f.op)) : std::string());
        const std::string pattern = f.rule >= 0 ? f.pattern.substr(0, 24) : f.source;
        printf_to(out, "  %-14s %5s %-28s %-24s %7lld %8lld %12.3f\n", cls.substr(0, 14).c_str(),
                  f.rule >= 0 ? std::to_string(f.rule).c_str() : "-", f.library.substr(0, 28).c_str(), pattern.c_str(),
                  static_cast<long long>(f.names), static_cast<long long>(f.count), ms_from_us(f.time_us));
      }
    }
    if (!a.collectives.empty()) {
      printf_to(out, "  %-16s %6s %8s %14s %12s %10s %10s\n", "collective", "group", "count", "bytes", "time ms",
                "algbw GB/s", "busbw GB/s");
      for (const auto& c : a.collectives) {
        const std::string op = c.op ? std::string(collective_op_name(*c.op)) : "unknown";
        const std::string group =
            c.group_size > 0 ? std::to_string(c.group_size) + (c.group_size_assumed ? "?" : "") : "-";
        printf_to(out, "  %-16s %6s %8lld %14s %12.3f %10s %10s\n", op.c_str(), group.c_str(),
                  static_cast<long long>(c.count), c.count_with_bytes > 0 ? fixed_or_dash(c.bytes, 0).c_str() : "-",
                  ms_from_us(c.time_us), fixed_or_dash(gb_per_s(c.algbw_bytes_per_s), 2).c_str(),
                  fixed_or_dash(gb_per_s(c.busbw_bytes_per_s), 2).c_str());
      }
    }
    for (const auto& w : a.warnings) out << "  warning: " << w.message << "\n";
  }
  if (run.ranks.size() > 1 && run.step_skew_us)
    out << "step-time skew " << fixed_or_dash(ms_from_us(*run.step_skew_us), 3) << " ms; slowest rank "
        << *run.slowest_rank << "\n";
  for (const auto& w : run.warnings) out << "warning: " << w << "\n";
  return out.str();
}

std::string nccl_tests_log_text(const NcclTestsLog& log, const nlohmann::json& report) {
  std::ostringstream out;
  out << (log.op ? std::string(collective_op_name(*log.op)) : "unknown collective") << ", "
      << (log.ranks > 0 ? std::to_string(log.ranks) : "?") << " ranks, " << log.rows.size() << " sizes\n";
  printf_to(out, "%14s %9s %12s %11s %11s\n", "bytes", "placement", "time us", "algbw GB/s", "busbw GB/s");
  for (const auto& p : report.at("points"))
    printf_to(out, "%14.0f %9s %12s %11s %11s\n", p.at("bytes").get<double>(),
              p.at("in_place").get<bool>() ? "in" : "out",
              p.at("time_us").is_null() ? "-" : fixed_or_dash(p.at("time_us").get<double>(), 2).c_str(),
              p.at("algbw_GBps").is_null() ? "-" : fixed_or_dash(p.at("algbw_GBps").get<double>(), 2).c_str(),
              p.at("busbw_GBps").is_null() ? "-" : fixed_or_dash(p.at("busbw_GBps").get<double>(), 2).c_str());
  for (const auto& w : log.warnings) out << "warning: line " << w.line << ": " << w.message << "\n";
  return out.str();
}

}  // namespace meshscope
