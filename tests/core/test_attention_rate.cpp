// The attention core's kernels (docs/estimate.md, "The attention kernels"): which kernel a
// workload runs (attention_kernel=, and what the frameworks pick by default), the measured rates
// the GPU catalogue holds for it, the head-dim and sustained-clock terms, and the generic shares
// where nothing was measured. Expected values come from the sources the catalogue names:
// FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608) Figures 5-7 on H100 SXM5 for the kernel
// rates, stas00/ml-engineering's MAMF (794.5 TFLOP/s) and MSMF (702.9 TFLOP/s) for the clock.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/estimate/compute.hpp"
#include "core/keys/options.hpp"
#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

// H100/H200 at the power-saturated clock: MSMF 702.9 over MAMF 794.5 TFLOP/s (BF16).
constexpr double kHopperClock = 702.9 / 794.5;

double forward_attention_s(const ComputeContext& c) {
  for (const auto& op : layer_operations(c, 0))
    if (op.name == "attention: core (FlashAttention)") return op.forward_s;
  FAIL("no attention core");
  return 0;
}

}  // namespace

TEST_CASE("attention kernels: Hopper runs cuDNN's fused attention by default, at its measured rate", "[attention]") {
  const GpuSpec h100 = *find_gpu("h100-sxm");
  TrainingWorkload w;
  const ComputeEfficiency e;
  const auto r = attention_core_rates(h100, w, e, 8192, 128, 989.5e12);
  CHECK(r.kernel == "cudnn");
  CHECK(r.measured);
  // FA3 paper, cuDNN at sequence 8k, head dim 128: 529 TFLOP/s forward (causal), 518 backward.
  CHECK_THAT(r.forward_flops_per_s, WithinRel(529e12 * kHopperClock, 1e-9));
  CHECK_THAT(r.backward_flops_per_s, WithinRel(518e12 * kHopperClock, 1e-9));
}

TEST_CASE("attention kernels: attention_kernel= picks the kernel; head dim 64 takes its measured share",
          "[attention]") {
  const GpuSpec h200 = *find_gpu("h200-sxm");
  auto keys = split_key_values("attention_kernel=flash2", "--train");
  REQUIRE(keys);
  auto parsed = training_from_keys(*keys);
  REQUIRE(parsed);
  TrainingWorkload w = *parsed;
  CHECK(w.attention_kernel == AttentionKernel::flash2);
  const ComputeEfficiency e;
  // FlashAttention-2: 333 forward (causal), 318 backward at head dim 128.
  auto at128 = attention_core_rates(h200, w, e, 8192, 128, 989.5e12);
  CHECK_THAT(at128.forward_flops_per_s, WithinRel(333e12 * kHopperClock, 1e-9));
  CHECK_THAT(at128.backward_flops_per_s, WithinRel(318e12 * kHopperClock, 1e-9));
  // Head dim 64 without the mask: 322 against 370 forward (8k), 264 against 291 backward (2k).
  auto at64 = attention_core_rates(h200, w, e, 8192, 64, 989.5e12);
  CHECK_THAT(at64.forward_flops_per_s, WithinRel(333e12 * kHopperClock * 0.870, 1e-9));
  CHECK_THAT(at64.backward_flops_per_s, WithinRel(318e12 * kHopperClock * 0.907, 1e-9));
  CHECK(322.0 / 370.0 == Approx(0.870).epsilon(1e-3));
  CHECK(264.0 / 291.0 == Approx(0.907).epsilon(1e-3));
  // Between 64 and 128 the share is linear; above 128 it stays at the measured one.
  auto at96 = attention_core_rates(h200, w, e, 8192, 96, 989.5e12);
  CHECK_THAT(at96.forward_flops_per_s, WithinRel(333e12 * kHopperClock * (0.870 + 1.0) / 2, 1e-9));
  CHECK(attention_core_rates(h200, w, e, 8192, 256, 989.5e12).forward_flops_per_s == at128.forward_flops_per_s);
  // Shorter calls run slower: FlashAttention-2 at 1k 260 forward, 260 backward; between 1k and 2k
  // linear in log2 of the length (1.5k: 2^0.585 of the way); beyond the measured lengths held.
  auto at1k = attention_core_rates(h200, w, e, 1024, 128, 989.5e12);
  CHECK_THAT(at1k.forward_flops_per_s, WithinRel(260e12 * kHopperClock, 1e-9));
  CHECK_THAT(at1k.backward_flops_per_s, WithinRel(260e12 * kHopperClock, 1e-9));
  const double t = std::log2(1536.0 / 1024.0);
  CHECK_THAT(attention_core_rates(h200, w, e, 1536, 128, 989.5e12).forward_flops_per_s,
             WithinRel((260e12 + t * (298e12 - 260e12)) * kHopperClock, 1e-9));
  CHECK_THAT(attention_core_rates(h200, w, e, 65536, 128, 989.5e12).forward_flops_per_s,
             WithinRel(335e12 * kHopperClock, 1e-9));
  CHECK_THAT(attention_core_rates(h200, w, e, 128, 128, 989.5e12).forward_flops_per_s,
             WithinRel(191e12 * kHopperClock, 1e-9));
  // FlashAttention-3 is the fastest of the three at head dim 128, FlashAttention-2 the slowest.
  w.attention_kernel = AttentionKernel::flash3;
  const auto fa3 = attention_core_rates(h200, w, e, 8192, 128, 989.5e12);
  w.attention_kernel = AttentionKernel::cudnn;
  const auto cudnn = attention_core_rates(h200, w, e, 8192, 128, 989.5e12);
  CHECK(fa3.forward_flops_per_s > cudnn.forward_flops_per_s);
  CHECK(cudnn.forward_flops_per_s > at128.forward_flops_per_s);
  auto bad = split_key_values("attention_kernel=flash4", "--train");
  REQUIRE(bad);
  CHECK_FALSE(training_from_keys(*bad));
}

TEST_CASE("attention kernels: no measurement, or shares given, means the generic shares of the peak", "[attention]") {
  TrainingWorkload w;
  const ComputeEfficiency e;
  // MI325X: FlashAttention-2 by default (not NVIDIA Hopper or Blackwell), no kernel measured, no
  // sustained clock: 0.55 / 0.45 of the peak for a call as long as the reference's longest
  // measurement (16k).
  const GpuSpec mi325x = *find_gpu("mi325x");
  const auto r = attention_core_rates(mi325x, w, e, 16384, 128, 1307.4e12);
  CHECK(r.kernel == "flash2");
  CHECK_FALSE(r.measured);
  CHECK_THAT(r.forward_flops_per_s, WithinRel(1307.4e12 * 0.55, 1e-12));
  CHECK_THAT(r.backward_flops_per_s, WithinRel(1307.4e12 * 0.45, 1e-12));
  // --efficiency attention_forward= replaces the measurement (a calibration from a trace).
  auto keys = split_key_values("attention_forward=0.6", "--efficiency");
  REQUIRE(keys);
  auto given = compute_efficiency_from_keys(*keys);
  REQUIRE(given);
  const auto calibrated = attention_core_rates(*find_gpu("h100-sxm"), w, *given, 8192, 128, 989.5e12);
  CHECK_FALSE(calibrated.measured);
  CHECK_THAT(calibrated.forward_flops_per_s, WithinRel(989.5e12 * 0.6, 1e-12));
}

TEST_CASE("attention kernels: without a measurement a short call slows as the kernel does on H100", "[attention]") {
  // FlashAttention-3 paper (Shah et al. 2024) Figs. 5-7, H100 SXM5, head dim 128: FlashAttention-2
  // forward 191 TFLOP/s at 512 tokens, 333 at 8k, 335 at 16k; backward 214, 318, 322. cuDNN
  // forward 518 at 4k and 539 at 16k; backward 499 and 516.
  TrainingWorkload w;
  const ComputeEfficiency e;
  const GpuSpec mi325x = *find_gpu("mi325x");
  const auto r512 = attention_core_rates(mi325x, w, e, 512, 128, 1307.4e12);
  CHECK_FALSE(r512.measured);
  CHECK(r512.length_scaled);
  CHECK_THAT(r512.forward_flops_per_s, WithinRel(1307.4e12 * 0.55 * 191 / 335, 1e-9));
  CHECK_THAT(r512.backward_flops_per_s, WithinRel(1307.4e12 * 0.45 * 214 / 322, 1e-9));
  // Below the shortest measurement the rate is held (a CP chunk of 256 tokens: 2048 over CP 8).
  const auto r256 = attention_core_rates(mi325x, w, e, 256, 128, 1307.4e12);
  CHECK_THAT(r256.forward_flops_per_s, WithinRel(r512.forward_flops_per_s, 1e-12));
  CHECK_THAT(attention_core_rates(mi325x, w, e, 8192, 128, 1307.4e12).forward_flops_per_s,
             WithinRel(1307.4e12 * 0.55 * 333 / 335, 1e-9));
  // Blackwell runs cuDNN's kernel by default; its curve scales the generic shares, at the B200's
  // sustained clock: MSMF 1,455.7 of MAMF 1,745.0 TFLOP/s BF16 (stas00/ml-engineering,
  // benchmarks/README.md "What we measured"; ../shared/fidelity/mamf.csv). The MI325X has no
  // measured sustained rate: its clock stays 1 above.
  const GpuSpec b200 = *find_gpu("b200");
  const double clock = 1455.7 / 1745.0;
  const auto cudnn = attention_core_rates(b200, w, e, 4096, 128, 2250e12);
  CHECK(cudnn.kernel == "cudnn");
  CHECK_FALSE(cudnn.measured);
  CHECK_THAT(cudnn.forward_flops_per_s, WithinRel(2250e12 * 0.55 * 518 / 539 * clock, 1e-9));
  CHECK_THAT(cudnn.backward_flops_per_s, WithinRel(2250e12 * 0.45 * 499 / 516 * clock, 1e-9));
  // Head dim 64 (GPT-OSS): the share cuDNN keeps on H100 at 64 against 128 (the same figures:
  // forward 0.687, backward 0.849), as the length roll-off is borrowed.
  const auto hd64 = attention_core_rates(b200, w, e, 4096, 64, 2250e12);
  CHECK_THAT(hd64.forward_flops_per_s, WithinRel(cudnn.forward_flops_per_s * 0.687, 1e-9));
  CHECK_THAT(hd64.backward_flops_per_s, WithinRel(cudnn.backward_flops_per_s * 0.849, 1e-9));

  // In a layer: GPT-3 175B under ring CP 8 at sequence 2048 attends 256-token chunks, so its
  // attention core runs at the 512-token rate; without CP it runs at the 2048-token rate.
  const ModelSpec gpt3 = *model_preset("gpt3-175b");
  TrainingWorkload seq2k;
  seq2k.seq_len = 2048;
  Layout cp8;
  cp8.cp = 8;
  const auto [chunk, head_dim] = attention_call(gpt3, seq2k, cp8);
  CHECK(chunk == 256);
  const auto chunked = attention_core_rates(mi325x, seq2k, e, chunk, head_dim, 1307.4e12);
  CHECK_THAT(chunked.forward_flops_per_s, WithinRel(1307.4e12 * 0.55 * 191 / 335, 1e-9));
}

TEST_CASE("attention kernels: the layer's attention core takes its time from the kernel's rate", "[attention]") {
  const ModelSpec model = *model_preset("llama3-8b");
  TrainingWorkload w;
  w.seq_len = 8192;
  Layout l;
  l.dp = 8;
  const GpuSpec h200 = *find_gpu("h200-sxm");
  const ComputeEfficiency e;
  const ComputeContext c{model, w, l, h200, e};
  // FLOPs of the core per micro-batch: 2 · tokens · (seq/2, causal) · heads · (d_qk + d_v).
  const double flops = 2.0 * 8192 * 4096 * 32 * 256;
  CHECK_THAT(forward_attention_s(c), WithinRel(flops / (529e12 * kHopperClock), 1e-9));
  TrainingWorkload fa2 = w;
  fa2.attention_kernel = AttentionKernel::flash2;
  const ComputeContext c2{model, fa2, l, h200, e};
  CHECK_THAT(forward_attention_s(c2), WithinRel(flops / (333e12 * kHopperClock), 1e-9));
  // Ring CP over 4 ranks: each call attends a 2k chunk, a quarter of the tokens at 2k's rate.
  Layout cp = l;
  cp.cp = 4;
  cp.dp = 2;
  const ComputeContext c3{model, fa2, cp, h200, e};
  CHECK_THAT(forward_attention_s(c3), WithinRel(flops / 4 / (298e12 * kHopperClock), 1e-9));
}

TEST_CASE("attention kernels: the catalogue refuses an unknown kernel and rates above the peak", "[attention]") {
  const std::string base = R"({"format": "meshscope-gpu-catalogue", "version": 1, "gpus": [{"id": "x", "name": "X",
    "memory_gib": 80, "memory_bandwidth_gb_per_s": 3350, "peak_dense_tflops": {"bf16": 989.5}, "attention": )";
  auto parse = [&](const std::string& attention) {
    auto doc = parse_json_text(base + attention + "}]}", "test.json");
    REQUIRE(doc);
    return gpus_from_json(*doc, "test.json");
  };
  auto ok = parse(R"({"cudnn": {"forward_tflops": 529, "backward_tflops": 518}})");
  REQUIRE(ok);
  CHECK(ok->front().attention.at("cudnn").forward_flops_per_s == std::vector<double>{529e12});
  auto by_sequence = parse(R"({"cudnn": {"sequence": [1024, 8192], "forward_tflops": [410, 529],
                                          "backward_tflops": [408, 518]}})");
  REQUIRE(by_sequence);
  CHECK(by_sequence->front().attention.at("cudnn").sequence == std::vector<double>{1024, 8192});
  CHECK_FALSE(
      parse(R"({"cudnn": {"sequence": [8192, 1024], "forward_tflops": [410, 529], "backward_tflops": [408, 518]}})"));
  CHECK_FALSE(
      parse(R"({"cudnn": {"sequence": [1024, 8192], "forward_tflops": [410], "backward_tflops": [408, 518]}})"));
  auto unknown = parse(R"({"flash4": {"forward_tflops": 529, "backward_tflops": 518}})");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("flash4") != std::string::npos);
  CHECK(unknown.error().location == "test.json: gpus[0]: attention.flash4");
  CHECK_FALSE(parse(R"({"cudnn": {"forward_tflops": 1200, "backward_tflops": 518}})"));
  CHECK_FALSE(parse(R"({"cudnn": {"forward_tflops": 529, "backward_tflops": 518,
                                   "head_dim_64": {"forward": 0, "backward": 0.8}}})"));
  CHECK_FALSE(parse(R"({"cudnn": {"forward_tflops": "fast", "backward_tflops": 518}})"));
  CHECK_FALSE(parse(R"({"cudnn": {"sequence": [], "forward_tflops": [], "backward_tflops": []}})"));
  CHECK_FALSE(parse(R"({"cudnn": {"backward_tflops": 518}})"));
}

TEST_CASE("attention kernels: the MI300X and the A100 run FlashAttention-2 at Azure's measured rates", "[attention]") {
  // Azure/AI-benchmarking-guide, Azure_Results/ND_MI300X_v5_results.md: FlashAttention-2 (ROCm),
  // head dim 64, batch 2, sequence 8192, 328.6 TFLOP/s forward + backward in flash-attention's
  // benchmark convention (forward F, backward 2.5 F: 3.5 F over the two times). The MI300X has no
  // sustained-clock measurement, so the rate is taken as measured.
  TrainingWorkload w;
  const ComputeEfficiency e;
  const auto r = attention_core_rates(*find_gpu("mi300x"), w, e, 8192, 64, 1307.4e12);
  CHECK(r.kernel == "flash2");
  CHECK(r.measured);
  const double combined = 3.5 / (1 / r.forward_flops_per_s + 2.5 / r.backward_flops_per_s);
  CHECK_THAT(combined, WithinRel(328.6e12, 0.005));
  // Head dim 128 runs faster than 64, as the same kernel does on H100 (0.87 / 0.907 there).
  const auto r128 = attention_core_rates(*find_gpu("mi300x"), w, e, 8192, 128, 1307.4e12);
  CHECK(r128.forward_flops_per_s > r.forward_flops_per_s);
  CHECK(r128.backward_flops_per_s > r.backward_flops_per_s);
  // Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md (A100-SXM4-80GB): 179.5 TFLOP/s
  // at head dim 64, batch 2, sequence 8192, the same benchmark; the A100 has no sustained clock either.
  const auto a100 = attention_core_rates(*find_gpu("a100-80gb-sxm"), w, e, 8192, 64, 312e12);
  CHECK(a100.measured);
  CHECK_THAT(3.5 / (1 / a100.forward_flops_per_s + 2.5 / a100.backward_flops_per_s), WithinRel(179.5e12, 0.005));
  // Azure_Results/ND_GB200_v6_results.md: 373.9 TFLOP/s at head dim 128 (the causal row its script
  // records), batch 2, sequence 8192: FlashAttention-2's Ampere-style kernel on Blackwell. A kernel
  // benchmark runs at the boost clock; the GB200's sustained share of its burst GEMM rate (0.84, the
  // B200's MSMF/MAMF: the same die) applies in a step. cuDNN, Blackwell's default, stays generic.
  const GpuSpec gb200 = *find_gpu("gb200");
  TrainingWorkload flash2;
  flash2.attention_kernel = AttentionKernel::flash2;
  const auto fa2 = attention_core_rates(gb200, flash2, e, 8192, 128, 2500e12);
  CHECK(fa2.measured);
  CHECK_THAT(3.5 / (1 / fa2.forward_flops_per_s + 2.5 / fa2.backward_flops_per_s),
             WithinRel(373.9e12 * gb200.gemm.sustained_share_of_burst, 0.005));
  CHECK_FALSE(attention_core_rates(gb200, w, e, 8192, 128, 2500e12).measured);
}
