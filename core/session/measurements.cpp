#include "core/session/measurements.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "core/topology/routing.hpp"

namespace meshscope {
namespace {

bool is_trace_file_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

int64_t file_size(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

}  // namespace

Result<std::vector<std::string>> expand_trace_paths(const std::vector<std::string>& entries,
                                                    const std::string& option) {
  std::vector<std::string> files;
  for (const std::string& entry : entries) {
    std::error_code ec;
    if (!std::filesystem::is_directory(entry, ec)) {
      files.push_back(entry);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& item : std::filesystem::directory_iterator(entry, ec))
      if (item.is_regular_file() && is_trace_file_name(item.path().filename().string()))
        found.push_back(item.path().string());
    if (ec) return make_error(ErrorCode::io_error, "cannot list the folder (" + ec.message() + ")", entry);
    if (found.empty()) return make_error(ErrorCode::io_error, "the folder has no .json or .json.gz trace", entry);
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) return make_error(ErrorCode::invalid_argument, "needs at least one file or folder", option);
  return files;
}

Result<KinetoRunAnalysis> load_trace_run(const std::vector<std::string>& files, const KinetoAnalysisOptions& options,
                                         const TraceRunProgress& progress) {
  std::vector<KinetoTrace> traces;
  int64_t done_bytes = 0;
  for (const std::string& file : files) {
    KinetoProgressCallback on_read;
    if (progress)
      on_read = [&progress, done_bytes](const KinetoProgress& p) { return progress(done_bytes + p.input_bytes_read); };
    MS_TRY(trace, load_kineto_trace(file, on_read));
    done_bytes += file_size(file);
    traces.push_back(std::move(trace));
  }
  if (progress && !progress(done_bytes)) return make_error(ErrorCode::io_error, kKinetoCancelled);
  return analyze_kineto_run(traces, options);
}

Result<TraceRunComparison> compare_trace_run(const KinetoRunAnalysis& run, const TrainingSetup& setup,
                                             const EstimateOptions& options) {
  const auto& [model, cluster, workload, layout] = setup;
  if (auto fits = check_cluster_use(model, workload, layout, cluster, ClusterUse::fit); !fits)
    return tl::unexpected(fits.error());
  const Router router(cluster);
  MS_TRY(estimate, estimate_step(model, workload, layout, cluster, router, options));
  MS_TRY(comparison, compare_trace(run, estimate, layout, cluster, {options.order, options.comm.constants}));
  TraceRunComparison out{std::move(comparison), {}, std::nullopt};
  const TraceCompareRow* compute = out.comparison.row("compute");
  auto hint = gemm_efficiency_hint(compute ? compute->measured : 0, model, workload, layout, cluster, router, options);
  out.notes = out.comparison.notes;
  for (const std::string& w : run.warnings) out.notes.push_back(w);
  if (hint)
    out.hint = *hint;
  else
    out.notes.push_back("no GEMM efficiency hint: " + hint.error().to_string());
  return out;
}

}  // namespace meshscope
