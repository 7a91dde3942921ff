#include "core/session/export.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/project/project.hpp"
#include "core/report/estimate.hpp"
#include "core/report/memory.hpp"

namespace meshscope {
namespace {

std::string number(double value, const char* format = "%.9g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string join(std::initializer_list<std::string> fields) {
  std::string line;
  for (const std::string& f : fields) {
    if (!line.empty()) line += ',';
    line += f;
  }
  return line + '\n';
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string ranked_training_csv(const SearchResult& result) {
  std::string csv =
      "rank,tp,pp,vpp,cp,ep,etp,dp,micro_batch,recompute,zero,schedule,step_time_s,tokens_per_s_per_gpu,mfu,"
      "peak_memory_bytes,headroom_bytes,bubble_fraction,tp_comm_overlap,order\n";
  int rank = 0;
  for (const RankedLayout& r : result.layouts) {
    const Layout& l = r.layout;
    csv += join({std::to_string(++rank),
                 std::to_string(l.tp),
                 std::to_string(l.pp),
                 std::to_string(l.vpp),
                 std::to_string(l.cp),
                 std::to_string(l.ep),
                 std::to_string(l.etp),
                 std::to_string(l.dp),
                 std::to_string(l.micro_batch),
                 csv_field(recompute_name(r.recompute)),
                 std::to_string(r.zero_stage),
                 csv_field(enum_name(r.schedule)),
                 number(r.step_time_s),
                 number(r.tokens_per_s_per_gpu),
                 number(r.mfu, "%.6g"),
                 number(r.peak_memory_bytes, "%.0f"),
                 number(r.headroom_bytes, "%.0f"),
                 number(r.bubble_fraction, "%.6g"),
                 r.tp_comm_overlap ? "1" : "0",
                 csv_field(axis_order_name(r.order))});
  }
  return csv;
}

std::string ranked_serving_csv(const ServingRankResult& result) {
  std::string csv =
      "rank,disaggregated,tp,pp,dp,ep,replicas,gpus_used,concurrency,ttft_s,itl_s,output_tokens_per_s_per_gpu,"
      "binding\n";
  int rank = 0;
  for (const RankedServing& r : result.layouts)
    csv += join({std::to_string(++rank), r.disaggregated ? "1" : "0", std::to_string(r.layout.tp),
                 std::to_string(r.layout.pp), std::to_string(r.layout.dp), std::to_string(r.layout.ep),
                 std::to_string(r.layout.replicas), std::to_string(r.gpus_used), std::to_string(r.concurrency),
                 number(r.ttft_s), number(r.itl_s), number(r.output_tokens_per_s_per_gpu),
                 csv_field(serving_binding_name(r.binding))});
  return csv;
}

nlohmann::json estimate_export_json(const Evaluation& evaluation) {
  nlohmann::json doc = {{"project", project_to_json(evaluation.project)}};
  if (evaluation.budget) doc["memory"] = memory_report(*evaluation.budget);
  if (evaluation.estimate) doc["estimate"] = estimate_report(*evaluation.estimate);
  return doc;
}

}  // namespace meshscope
