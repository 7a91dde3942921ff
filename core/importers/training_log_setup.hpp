#pragma once
// What a training log says about the run's setup, for the training log importer (training_log.hpp): Megatron's
// argument dump, torchtitan's ModelArgs line and device mesh, Megatron's memory reports. Internal to
// core/importers; tested through parse_training_log.
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/importers/training_log.hpp"

namespace meshscope::training_log_detail {

// A count as a log prints it: nullopt for a missing, negative or absurd number.
[[nodiscard]] inline std::optional<int64_t> as_count(const std::optional<double>& v) {
  if (!v || !(*v >= 0) || *v > 1e15) return std::nullopt;
  return static_cast<int64_t>(std::llround(*v));
}

// The argument dump's "name ....... value" (or "name  value" where the name is long).
[[nodiscard]] std::optional<std::pair<std::string, std::string>> argument_line(std::string_view s);

// An argument of the dump as a flag; nullopt where it is absent or not one.
[[nodiscard]] std::optional<bool> bool_arg(const std::map<std::string, std::string>& args, const std::string& name);

// Megatron's (and Megatron-DeepSpeed's, and DeepSpeedExamples' Megatron v1.1.5) arguments → model and layout.
void read_megatron_arguments(const std::map<std::string, std::string>& a, LogModelDims& m, LogLayout& l);

// torchtitan's "ModelArgs(dim=4096, n_layers=32, ...)".
void read_torchtitan_model(std::string_view s, LogModelDims& m);

// torchtitan's "Building 1-D device mesh with ['dp_shard'], [8]": axis name → size.
[[nodiscard]] std::map<std::string, int64_t> read_mesh(std::string_view s);

// One or more Megatron memory reports in a line (ranks' prints can run together on one line).
void read_memory_reports(std::string_view s, int64_t line, std::vector<LogMemory>& out);

}  // namespace meshscope::training_log_detail
