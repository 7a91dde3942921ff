#pragma once
// Line cleaning for the training log importer (training_log.hpp): ANSI colour codes and launcher prefixes off,
// numbers as logs print them. Internal to core/importers; tested through parse_training_log.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/text.hpp"

namespace meshscope::training_log_detail {

using text::is_digit;
using text::trim;

// ANSI escape sequences (CSI "ESC [ params final", and two-byte "ESC x") removed, and "[31m"-style remnants of them
// whose ESC byte was lost when the log was copied (torchtitan's colours in a README).
[[nodiscard]] std::string strip_ansi(std::string_view in);

// The n decimal digits at s[at] as a number (the caller checked they are digits).
[[nodiscard]] int64_t int_at(std::string_view s, size_t at, size_t n);

// "YYYY-MM-DD?HH:MM:SS[.frac][Z]" at the start of s (? is 'T' or ' '): seconds since the epoch and its length.
[[nodiscard]] std::optional<std::pair<double, size_t>> timestamp_at(std::string_view s);

struct CleanLine {
  std::string text;                 // without colour codes and launcher prefixes
  std::optional<int64_t> rank;      // from "[rankN]:" or srun's "N: "
  std::optional<double> timestamp;  // an ISO 8601 prefix, seconds since the epoch
};
// Colour codes off, then the prefixes in any order: ISO 8601 timestamps, "[2025-11-14 10:13:12]", "[rank0]:",
// srun --label "12: " and pdsh "host-01: " (one token without spaces, with a digit, then ": ").
[[nodiscard]] CleanLine clean_line(std::string_view raw);

// The number at the start of s (after spaces), with thousands separators ("7,026") allowed.
[[nodiscard]] std::optional<double> number_at(std::string_view s);

}  // namespace meshscope::training_log_detail
