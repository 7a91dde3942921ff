// How the UI writes core quantities: units, stage lists, layout summaries.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "qt_catch.hpp"
#include "ui/kit/formatting.hpp"

using namespace meshscope;

TEST_CASE("formatting: GiB are 2^30 bytes with two decimals") {
  CHECK(ui::gib_text(1.5 * 1024 * 1024 * 1024) == QStringLiteral("1.50 GiB"));
  CHECK(ui::gib_text(80.0 * 1024 * 1024 * 1024) == QStringLiteral("80.00 GiB"));
  CHECK(ui::gib_text(0) == QStringLiteral("0.00 GiB"));
}

TEST_CASE("formatting: exact bytes are grouped in thousands whatever the locale") {
  CHECK(ui::exact_bytes_text(12345678901.0) == QStringLiteral("12,345,678,901 bytes"));
}

TEST_CASE("formatting: memory categories read as words") {
  using Case = std::pair<MemoryCategory, const char*>;
  const auto [category, label] =
      GENERATE(Case{MemoryCategory::parameters, "Parameters"}, Case{MemoryCategory::optimizer_state, "Optimizer state"},
               Case{MemoryCategory::kv_cache, "KV cache"}, Case{MemoryCategory::allocator, "Allocator headroom"});
  CHECK(ui::category_label(category) == QString::fromUtf8(label));
}

TEST_CASE("formatting: consecutive pipeline stages collapse into en-dash ranges") {
  using Case = std::pair<std::vector<int64_t>, const char*>;
  const auto [stages, text] = GENERATE(Case{{0}, "0"}, Case{{1, 2}, "1–2"}, Case{{1, 2, 3, 4, 5, 6}, "1–6"},
                                       Case{{0, 2, 3}, "0, 2–3"}, Case{{0, 2, 4}, "0, 2, 4"}, Case{{}, ""});
  CHECK(ui::stage_ranges_text(stages) == QString::fromUtf8(text));
}

TEST_CASE("formatting: a rank is named by its role and its stages") {
  RankMemory rank;
  rank.role = "middle stage";
  rank.pp_stages = {1, 2};
  CHECK(ui::rank_label(rank) == QStringLiteral("middle stage (1–2)"));
}

TEST_CASE("formatting: the layout summary lists only the mesh axes in use") {
  Layout layout;
  CHECK(ui::layout_summary(layout) == QStringLiteral("TP 1 · PP 1 · DP 1"));

  layout.tp = 8;
  layout.pp = 4;
  layout.vpp = 5;
  layout.dp = 2;
  layout.sp = true;
  CHECK(ui::layout_summary(layout) == QStringLiteral("TP 8 · PP 4 (v 5) · DP 2 · SP"));

  layout.cp = 2;
  layout.ep = 8;
  layout.fsdp = 1;
  CHECK(ui::layout_summary(layout) == QStringLiteral("TP 8 · PP 4 (v 5) · DP 2 (FSDP 1) · CP 2 · EP 8 · SP"));
}
