#pragma once
// Text the UI shows for core values: units, stage lists, layout summaries. Pure functions, so
// tests check them as strings and every view formats a quantity the same way.
#include <QString>

#include <string_view>

#include <cstdint>
#include <string>
#include <vector>

#include "core/estimate/known_gaps.hpp"
#include "core/memory/memory.hpp"
#include "core/workload/layout.hpp"

namespace meshscope::ui {

// "12.34 GiB" (2^30 bytes, two decimals).
[[nodiscard]] QString gib_text(double bytes);
// Bytes with a binary unit chosen by size: "512 B", "12.0 KiB", "45.6 MiB", "1.23 GiB", "2.50 TiB".
[[nodiscard]] QString binary_bytes_text(double bytes);
// Seconds with a unit chosen by size: "850 µs", "12.5 ms", "3.20 s", "63.3 s".
[[nodiscard]] QString duration_text(double seconds);
// Known validation gaps' ids joined: "amd", "pytorch_context_parallel, amd".
[[nodiscard]] QString gap_ids_text(const std::vector<std::string>& ids);
[[nodiscard]] QString gap_ids_text(const std::vector<KnownGap>& gaps);
// "12,345,678,901 bytes".
[[nodiscard]] QString exact_bytes_text(double bytes);
// The core's names (std::string_view, UTF-8) as Qt text.
[[nodiscard]] QString qstring(std::string_view text);
// category_name made readable: "optimizer_state" → "Optimizer state", "kv_cache" → "KV cache".
[[nodiscard]] QString category_label(MemoryCategory category);
// Runs of consecutive stages joined by an en dash: {0} → "0", {1, 2} → "1–2", {0, 2, 3} → "0, 2–3".
[[nodiscard]] QString stage_ranges_text(const std::vector<int64_t>& stages);
// "middle stage (1–2)".
[[nodiscard]] QString rank_label(const RankMemory& rank);
// The mesh axes that are in use: "TP 8 · PP 4 (v 5) · DP 2 · SP".
[[nodiscard]] QString layout_summary(const Layout& layout);

}  // namespace meshscope::ui
