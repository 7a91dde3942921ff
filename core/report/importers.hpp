#pragma once
// Stable JSON documents of `meshscope-cli import` (docs/import.md): a profiler run's analysis and an
// nccl-tests log. Times in µs and bandwidths in GB/s, as the tools themselves print them.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/importers/kineto.hpp"
#include "core/importers/nccl_tests.hpp"

namespace meshscope {

// `import --trace PATH[,PATH...] --json`: every rank's steps, kernel classes and families, collectives,
// process groups and warnings, and the run's skew.
[[nodiscard]] nlohmann::json kineto_run_report(const KinetoRunAnalysis& run);
// `import --nccl-tests LOG --json`: one point per measured size and placement (out of place, then in place).
[[nodiscard]] nlohmann::json nccl_tests_log_report(const NcclTestsLog& log);

// The text of `import --trace` without --json: per rank, the GPU time split, the steps, the kernel families and
// the collectives (times in ms, bandwidths in GB/s); then the run's skew and warnings.
[[nodiscard]] std::string kineto_run_text(const KinetoRunAnalysis& run);
// The text of `import --nccl-tests LOG`: one line per point of `report` (nccl_tests_log_report of `log`).
[[nodiscard]] std::string nccl_tests_log_text(const NcclTestsLog& log, const nlohmann::json& report);

}  // namespace meshscope
