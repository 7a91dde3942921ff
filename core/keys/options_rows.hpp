#pragma once
// The machinery of the key tables (core/keys/options.hpp): a Row per key of one scope — what the docs
// and the forms show, how a value is checked and applied, how it is written back — shared by the
// scopes' tables: the training rows (options_training.cpp) and the serving, layout and serving
// layout rows (options.cpp). Internal to core.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/keys/options.hpp"

namespace meshscope::key_rows {

inline tl::unexpected<Error> bad_value(const std::string& option, const std::string& key, const std::string& value,
                                       const std::string& expected) {
  return make_error(ErrorCode::invalid_argument, "\"" + value + "\" is not valid for " + key + ": expected " + expected,
                    option + " " + key);
}

inline std::string fmt_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

inline std::string fmt_bool(bool value) {
  return value ? "true" : "false";
}

inline std::string dtype_text(DType type) {
  return std::string(dtype_name(type));
}

template <class E>
std::vector<std::string> names_of() {
  std::vector<std::string> names;
  names.reserve(EnumNames<E>::table.size());
  for (const auto& [value, name] : EnumNames<E>::table) names.emplace_back(name);
  return names;
}

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;

// One value of a key, checked against its type (Row::min/max, the choices) before a row applies it.
struct Parsed {
  const std::string& option;
  const std::string& key;
  const std::string& text;
  int64_t integer = 0;
  double number = 0;
  bool boolean = false;
  DType dtype = DType::bf16;
  [[nodiscard]] tl::unexpected<Error> bad(const std::string& expected) const {
    return bad_value(option, key, text, expected);
  }
};

// One key of one scope: what the docs and forms show (info), how a value is checked and applied,
// and how it is written back. A new key is one row.
template <class T>
struct Row {
  KeyInfo info;
  double min = 0, max = 0;    // integer: ≥ min (and ≤ max when max > min); number: [min, max]
  std::string_view expected;  // the error's "expected …"; empty: from the type and choices
  Result<bool> (*apply)(T&, const Parsed&) = nullptr;
  std::optional<std::string> (*get)(const T&) = nullptr;  // nullopt: not set (nothing to write)
  bool shown = true;                                      // always written; else only when it differs from the default
};

inline std::string expected_of(const KeyInfo& info, double min, double max, std::string_view expected) {
  if (!expected.empty()) return std::string(expected);
  switch (info.type) {
    case KeyType::integer:
      return "an integer ≥ " + std::to_string(static_cast<int64_t>(min));
    case KeyType::number: {
      char range[96];
      std::snprintf(range, sizeof range, "a number in [%g, %g]", min, max);
      return range;
    }
    case KeyType::boolean:
      return "true or false";
    case KeyType::dtype:
      return "fp32, bf16, fp16, fp8, int8 or int4";
    case KeyType::choice:
    case KeyType::text: {
      std::string out;
      for (size_t i = 0; i < info.choices.size(); ++i) {
        if (i > 0) out += i + 1 == info.choices.size() ? " or " : ", ";
        out += info.choices[i];
      }
      return out;
    }
  }
  return {};
}

template <class T>
Result<bool> apply_row(const Row<T>& row, T& target, const std::string& option, const std::string& key,
                       const std::string& value) {
  Parsed p{option, key, value};
  const auto fail = [&] { return p.bad(expected_of(row.info, row.min, row.max, row.expected)); };
  switch (row.info.type) {
    case KeyType::integer: {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), p.integer);
      if (ec != std::errc() || end != value.data() + value.size() || p.integer < static_cast<int64_t>(row.min))
        return fail();
      if (row.max > row.min && p.integer > static_cast<int64_t>(row.max)) return fail();
      break;
    }
    case KeyType::number: {
      char* end = nullptr;
      p.number = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(p.number >= row.min) || !(p.number <= row.max))
        return fail();
      break;
    }
    case KeyType::boolean:
      if (value == "true" || value == "1" || value == "on" || value == "yes") {
        p.boolean = true;
      } else if (value == "false" || value == "0" || value == "off" || value == "no") {
        p.boolean = false;
      } else {
        return fail();
      }
      break;
    case KeyType::dtype: {
      const auto type = parse_dtype(value);
      if (!type) return fail();
      p.dtype = *type;
      break;
    }
    case KeyType::choice:
      if (std::find(row.info.choices.begin(), row.info.choices.end(), value) == row.info.choices.end()) return fail();
      break;
    case KeyType::text:
      break;
  }
  return row.apply(target, p);
}

template <class T>
const Row<T>* find_row(const std::vector<Row<T>>& rows, std::string_view key) {
  for (const Row<T>& row : rows)
    if (row.info.name == key || (!row.info.alias.empty() && row.info.alias == key)) return &row;
  return nullptr;
}

template <class T>
tl::unexpected<Error> unknown_key(const std::vector<Row<T>>& rows, const std::string& option, const std::string& key) {
  std::string known;
  for (const Row<T>& row : rows) {
    if (!known.empty()) known += ", ";
    known += row.info.name;
    if (!row.info.alias.empty()) known += " (" + std::string(row.info.alias) + ")";
  }
  return make_error(ErrorCode::invalid_argument, "unknown key \"" + key + "\"; known keys: " + known, option);
}

template <class T>
KeyValues keys_of(const std::vector<Row<T>>& rows, const T& value, const T& defaults) {
  KeyValues keys;
  for (const Row<T>& row : rows) {
    std::optional<std::string> text = row.get(value);
    if (!text) continue;
    if (!row.shown && text == row.get(defaults)) continue;
    keys.emplace_back(std::string(row.info.name), std::move(*text));
  }
  return keys;
}

inline Result<bool> ok() {
  return true;
}

// The runtime assumptions both workloads carry (RuntimeAssumptions in core/workload/workload.hpp).
template <class T>
void add_runtime_rows(std::vector<Row<T>>& rows, bool training) {
  rows.push_back({{"runtime_gib",
                   "",
                   KeyType::number,
                   {},
                   "",
                   "GiB",
                   "1",
                   "CUDA context + library workspaces per process (an assumption, not a measurement)",
                   "meshscope's assumption; set it from `nvidia-smi` on your stack"},
                  0,
                  1024,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.runtime_bytes = p.number * kGiB;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.runtime_bytes / kGiB); },
                  training});
  rows.push_back({{"allocator_fraction",
                   "",
                   KeyType::number,
                   {},
                   "0–1",
                   "",
                   "0.05",
                   "caching-allocator headroom over activations + temporary + communication",
                   "meshscope's assumption (PyTorch caching allocator fragmentation)"},
                  0,
                  1,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.allocator_fraction = p.number;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.allocator_fraction); },
                  training});
  rows.push_back(
      {{"nccl_buffer_mib",
        "",
        KeyType::number,
        {},
        "",
        "MiB",
        "4",
        "NCCL staging buffer per channel and peer (`NCCL_BUFFSIZE`)",
        "NCCL environment-variable documentation: NCCL_BUFFSIZE defaults to 4 MiB"},
       0,
       4096,
       "",
       [](T& w, const Parsed& p) {
         w.runtime.nccl_buffer_bytes = p.number * kMiB;
         return ok();
       },
       [](const T& w) -> std::optional<std::string> { return fmt_double(w.runtime.nccl_buffer_bytes / kMiB); },
       false});
  rows.push_back({{"nccl_channels",
                   "",
                   KeyType::integer,
                   {},
                   "",
                   "channels",
                   "16",
                   "NCCL channels whose buffers are held, and whose SMs a hidden collective takes from the GEMMs",
                   "NCCL: up to 16 channels on NVLink (src/graph/search.cc); meshscope's assumption"},
                  0,
                  0,
                  "",
                  [](T& w, const Parsed& p) {
                    w.runtime.nccl_channels = p.integer;
                    return ok();
                  },
                  [](const T& w) -> std::optional<std::string> { return std::to_string(w.runtime.nccl_channels); },
                  false});
}

using TrainingRow = Row<TrainingWorkload>;
using Get = std::optional<std::string>;

// The --train keys (options_training.cpp).
[[nodiscard]] const std::vector<TrainingRow>& training_rows();

}  // namespace meshscope::key_rows
