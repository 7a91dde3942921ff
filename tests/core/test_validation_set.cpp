// The public validation set (tests/data/validation/training_throughput.csv, provenance in the
// README beside it): published, measured training throughput with its configuration — torchtitan's
// performance tables, the Megatron-Bridge performance summary (NeMo 25.11), MegaScale's Megatron-LM
// baseline, MT-NLG, BLOOM, OPT, and the shared training logs. Every row is predicted with the core
// and printed as one [fidelity] line (published and predicted in the source's metric, the step-time
// error, the memory error where the source gives one), then the median and the maximum. These rows
// check the model; nothing in the core is fitted to them.
//
// A row whose configuration meshscope cannot express (a GPU or host the catalogue lacks, a model without
// its dimensions, a layout the core rejects) is printed as skipped, with the reason. What a source does not state is
// chosen here, once per source, and written next to the choice.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/estimate/step.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model.hpp"
#include "core/topology/generators.hpp"
#include "gpt_style.hpp"
#include "support/csv.hpp"
#include "validation_rows.hpp"

using namespace meshscope;
using namespace meshscope::validation_rows;

TEST_CASE("validation set: every published training row predicted, with its error, median and max", "[validation]") {
  const auto rows = read_validation_set();
  REQUIRE(rows.size() == 388);
  std::vector<double> step_errors, memory_errors;
  std::map<std::string, std::vector<double>> errors_by_source;  // the id's prefix: tt, mb2511, megascale, ...
  // Per known gap (core/estimate/known_gaps.hpp): published step / predicted step of its rows; and
  // the rows beyond the 20 % target that carry no known gap.
  std::map<std::string, std::vector<double>> ratios_by_gap;
  std::vector<std::string> beyond_target_without_gap;
  int skipped = 0;
  for (const auto& row : rows) {
    const std::string& id = row.at("id");
    INFO(id);
    if (const auto skip = unsupported(row)) {
      std::printf("[fidelity] validation %-34s skipped: %s\n", id.c_str(), skip->reason.c_str());
      ++skipped;
      continue;
    }
    auto model = model_of(row);
    REQUIRE(model);
    const Setup s = setup_of(row, *model);
    REQUIRE_FALSE(s.generator.empty());
    std::string problems;
    for (const auto& p : validate_training_layout(s.model, s.workload, s.layout, integer(row, "num_gpus")))
      problems += p.field + ": " + p.message + "; ";
    if (!problems.empty()) {
      std::printf("[fidelity] validation %-34s skipped: the core rejects the layout (%s)\n", id.c_str(),
                  problems.c_str());
      ++skipped;
      continue;
    }
    auto cluster = generate_cluster(s.generator);
    REQUIRE(cluster);
    const Router router(*cluster);
    auto e = estimate_step(s.model, s.workload, s.layout, *cluster, router, s.options);
    if (!e) {
      std::printf("[fidelity] validation %-34s skipped: %s\n", id.c_str(), e.error().to_string().c_str());
      ++skipped;
      continue;
    }
    const double published_step = published_step_s(row, s.model);
    const double published_value = std::stod(row.at("value"));
    const double predicted_value = in_published_metric(row, e->step_time_s, published_step, published_value);
    const double error = e->step_time_s / published_step - 1;
    step_errors.push_back(std::abs(error));
    errors_by_source[id.substr(0, id.find('_'))].push_back(error);
    for (const KnownGap& gap : e->known_gaps) ratios_by_gap[gap.id].push_back(published_step / e->step_time_s);
    if (std::abs(error) > 0.20 && e->known_gaps.empty()) beyond_target_without_gap.push_back(id);
    std::string memory;
    // torch.compile fuses the loss (no fp32 logits materialised) and reorders what selective AC
    // saves: not modelled for memory (docs/estimate.md §6), so those rows' memory is not compared.
    const bool compiled = contains(row.at("optimizations"), "torch.compile");
    if (has(row, "memory_gib") && compiled) memory = "; memory not compared (torch.compile's memory is not modelled)";
    if (has(row, "memory_gib") && !compiled) {
      // A published memory figure is PyTorch's max reserved (torchtitan's `memory:`, the MI300X log's
      // "max reserved") unless its metric says allocated (the Megatron-Bridge recipe's "peak
      // allocated"): the budget's framework form predicts both (docs/estimate.md §6).
      const double published_gib = std::stod(row.at("memory_gib"));
      const bool allocated = starts_with(row.at("memory_metric"), "peak allocated");
      const double predicted_gib =
          (allocated ? e->peak_allocated_bytes : e->peak_reserved_bytes) / (1024.0 * 1024 * 1024);
      const double memory_error = predicted_gib / published_gib - 1;
      memory_errors.push_back(std::abs(memory_error));
      char text[128];
      std::snprintf(text, sizeof text, "; memory %.1f GiB, published %.1f, error %+.1f %%", predicted_gib,
                    published_gib, 100 * memory_error);
      memory = text;
    }
    std::printf(
        "[fidelity] validation %-34s %5lld %-13s TP%lld PP%lld v%lld CP%lld EP%lld DP%lld mbs %lld %s %s: predicted "
        "%.4g, published %.4g %s; step %.3f s, published %.3f s, error %+5.1f %%%s%s\n",
        id.c_str(), static_cast<long long>(integer(row, "num_gpus")), row.at("gpu").substr(0, 13).c_str(),
        static_cast<long long>(s.layout.tp), static_cast<long long>(s.layout.pp), static_cast<long long>(s.layout.vpp),
        static_cast<long long>(s.layout.cp), static_cast<long long>(s.layout.ep), static_cast<long long>(s.layout.dp),
        static_cast<long long>(s.layout.micro_batch), std::string(dtype_name(s.workload.compute_dtype)).c_str(),
        std::string(recompute_name(s.workload.recompute)).c_str(), predicted_value, published_value,
        row.at("metric").c_str(), e->step_time_s, published_step, 100 * error, memory.c_str(),
        e->fits_in_memory ? "" : " (predicted not to fit)");
    // MESHSCOPE_VALIDATION_DETAIL=1: where each row's predicted step goes (the busiest stage's parts).
    if (std::getenv("MESHSCOPE_VALIDATION_DETAIL") != nullptr) {
      const StepBreakdown& b = e->breakdown;
      std::string gaps;
      for (const KnownGap& gap : e->known_gaps) gaps += (gaps.empty() ? "; known gaps: " : ", ") + gap.id;
      std::printf(
          "[fidelity] validation %-34s   forward %.3f, backward %.3f, recompute %.3f, TP %.3f, CP %.3f, EP %.3f, "
          "PP %.3f, bubble %.3f, DP %.3f, optimizer %.3f s%s\n",
          id.c_str(), b.forward_s, b.backward_s, b.recompute_s, b.tp_exposed_s, b.cp_exposed_s, b.ep_exposed_s,
          b.pp_p2p_s, b.bubble_s, b.dp_exposed_s, b.optimizer_s, gaps.c_str());
    }
  }
  REQUIRE_FALSE(step_errors.empty());
  const double step_median = median(step_errors);
  const double step_max = *std::max_element(step_errors.begin(), step_errors.end());
  std::printf(
      "[fidelity] validation step time: %zu rows, median |error| %.1f %%, max %.1f %% (target 10 / 20 %%); %d "
      "skipped\n",
      step_errors.size(), 100 * step_median, 100 * step_max, skipped);
  for (const auto& [source, errors] : errors_by_source)
    std::printf("[fidelity] validation %-10s %2zu rows: median error %+5.1f %%, from %+5.1f to %+5.1f %%\n",
                source.c_str(), errors.size(), 100 * median(errors),
                100 * *std::min_element(errors.begin(), errors.end()),
                100 * *std::max_element(errors.begin(), errors.end()));
  for (const auto& [gap, ratios] : ratios_by_gap)
    std::printf("[fidelity] validation known gap %-24s %2zu rows: published / predicted step %.2f .. %.2f\n",
                gap.c_str(), ratios.size(), *std::min_element(ratios.begin(), ratios.end()),
                *std::max_element(ratios.begin(), ratios.end()));
  // What each known gap's text says stays true of its rows: the largest ratio it quotes, the range
  // of the NVFP4 rows, and that the gap still exceeds the 20 % target (a step 1.25× the prediction).
  const auto worst = [&](const std::string& gap) {
    const auto& r = ratios_by_gap[gap];
    return r.empty() ? 0.0 : *std::max_element(r.begin(), r.end());
  };
  CHECK(worst("moe_small_micro_batch") > 2.2);  // "from 0.84× to 2.3×"
  CHECK(worst("moe_small_micro_batch") < 2.3);
  const auto& moe = ratios_by_gap["moe_small_micro_batch"];
  REQUIRE_FALSE(moe.empty());
  CHECK(*std::min_element(moe.begin(), moe.end()) > 0.83);
  CHECK(*std::min_element(moe.begin(), moe.end()) < 0.86);
  CHECK(worst("pytorch_context_parallel") > 1.25);  // "up to 1.3×"
  CHECK(worst("pytorch_context_parallel") < 1.35);
  CHECK(worst("nvfp4") > 1.35);  // "1.2–1.4×"
  CHECK(worst("nvfp4") < 1.45);
  CHECK(*std::min_element(ratios_by_gap["nvfp4"].begin(), ratios_by_gap["nvfp4"].end()) > 1.15);
  CHECK(worst("amd") > 1.55);  // "1.6×"
  CHECK(worst("amd") < 1.7);
  // Rows beyond the target that no gap names: MT-NLG's DeepSpeed pipeline of 2021 (no key tells a
  // DeepSpeed run from a Megatron one) and the 25.09 GB200 Llama 3.1 405B MXFP8 row, whose layout
  // (TP 4, PP 8 × 8, CP 2) on B200 in the same table is predicted within 9.7 %.
  const std::set<std::string> accepted{"mtnlg_530b_280n", "mtnlg_530b_350n", "mb2509_gb200_llama31405b_fp8mx"};
  for (const std::string& id : beyond_target_without_gap) {
    INFO(id);
    CHECK(accepted.count(id) == 1);
  }
  if (!memory_errors.empty())
    std::printf("[fidelity] validation peak memory: %zu rows, median |error| %.1f %%, max %.1f %% (target 10 %%)\n",
                memory_errors.size(), 100 * median(memory_errors),
                100 * *std::max_element(memory_errors.begin(), memory_errors.end()));
  // Regression guards, not the goal: the target is a median of 10 % and a maximum of 20 %
  // on step time, and 10 % on peak memory. With the core of 2026-12-01 18:40 (host dispatch,
  // grouped experts, NVFP4's BF16 attention, torchtitan's op-level SAC and eager kernels) the 47
  // expressible rows give a median of 10.2 % and a maximum of 52 % (Qwen3-30B-A3B at micro-batch
  // 1–2, MI300X; docs/estimate.md §5); the bounds sit above that so that a change which makes the
  // model worse fails here. On 2026-12-04, with the 25.09 table, pipeline layouts (DeepSeek-V3,
  // 126 layers on 128 chunks) and NVL72 jobs in 16-tray segments: 82 rows, median 9.3 %, max 51.7 %.
  // On 2026-12-05 with the B300 (dgx-b300): 84 rows, median 9.8 %, max 51.7 %; with Grand Teton's
  // 500 W H100 (torchtitan's 18 H100 rows) and FlashAttention-2 for every torchtitan row: 102 rows,
  // median 8.6 %, max 51.7 %. On 2026-12-05 with Qwen3-235B-A22B (Megatron-Bridge's provider, its
  // recipes' dispatchers): 111 rows, median 8.9 %, max 51.7 %. With sliding-window attention and
  // GPT-OSS-120B's 9 rows (all predicted faster than they ran, −9 … −48 %): 120 rows, median
  // 10.1 %, max 51.7 %. With the interleaved schedule's asynchronous steady-state sends
  // (overlap_p2p_comm; MegaScale's 2023 baseline without them): 120 rows, median 10.1 %, max 55.8 %.
  // With the sustained clock and the reference head-dim share for GPUs without a measured attention
  // kernel (Blackwell), and one FP8 copy on Blackwell: 120 rows, median 8.9 %, max 55.8 %. With
  // the Megatron-Bridge 64-GPU GB200 Llama 3.1 405B recipe's own measurement: 121 rows, median 8.8 %.
  CHECK(step_errors.size() >= 121);  // no row may fall out silently
  CHECK(step_median <= 0.15);
  CHECK(step_max <= 0.60);
  // The two logs, torchtitan's two eager FSDP rows on H100 (compiled rows are not compared) and the
  // Megatron-Bridge recipe's peak allocated.
  REQUIRE(memory_errors.size() == 5);
  CHECK(*std::max_element(memory_errors.begin(), memory_errors.end()) <= 0.10);
}

// The log prints the model's size; the dimensions recorded for it must reproduce it.
TEST_CASE("validation set: the MI300X log's model has the 28.11 B parameters the log prints", "[validation]") {
  for (const auto& row : read_validation_set()) {
    if (row.at("id") != "log_megatron_mi300x_tp4_pp2") continue;
    auto model = model_of(row);
    REQUIRE(model);
    CHECK(std::abs(count_params(*model).total_params() / 28.11e9 - 1) < 0.0005);
  }
}
