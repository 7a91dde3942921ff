// FP8 recipes (fp8_recipe=, docs/estimate.md "FP8 training is not 2× BF16"): the memory-bound
// casts around each FP8 GEMM, per recipe and framework, against the bytes each recipe's kernels
// move (Transformer Engine: cast_transpose reads 2 bytes and writes 1 + 1 per element, with the
// amax inside the kernel for delayed scaling; Float8CurrentScalingQuantizer reads the tensor once
// more for its amax first; get_weight_workspace casts a weight only on the step's first
// micro-batch under Megatron-Core).
#include <catch2/catch.hpp>
#include <string>

#include "core/estimate/compute.hpp"
#include "core/keys/options.hpp"
#include "core/memory/memory.hpp"
#include "core/model/catalogue.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

double cast_bytes(const TrainingWorkload& w, const Layout& l, const char* gpu_id = "h100-sxm") {
  const ModelSpec m = *model_preset("llama3-8b");
  const GpuSpec gpu = *find_gpu(gpu_id);
  const ComputeEfficiency e;
  const ComputeContext c{m, w, l, gpu, e};
  for (const auto& op : layer_operations(c, 0))
    if (op.name.rfind("fp8: casts", 0) == 0 || op.name.rfind("fp4: casts", 0) == 0) return op.bytes;
  FAIL("no FP8 cast operation");
  return 0;
}

// Llama 3 8B's four linears of one layer at 4096 tokens, TP 1: (K, N) of QKV, the output
// projection, the gate and up projections, the down projection.
constexpr double kTokens = 4096;
constexpr double kInputs = kTokens * (4096 + 4096 + 4096 + 14336);                            // Σ M·K
constexpr double kWeights = 4096.0 * 6144 + 4096.0 * 4096 + 4096.0 * 28672 + 14336.0 * 4096;  // Σ K·N

}  // namespace

TEST_CASE("fp8 recipes: on datacenter Blackwell a per-tensor cast writes one copy, a block-scaled one two", "[fp8]") {
  // transformer_engine nvte_is_non_tn_fp8_gemm_supported (compute capability 10.x) and
  // pytorch/csrc/quantizer.cpp (create_transpose = columnwise_usage && !that): no transpose on
  // B200/GB200/B300/GB300 for delayed and current scaling; MXFP8's columnwise copy has its own scales.
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 4;
  w.compute_dtype = DType::fp8;
  w.zero_stage = 1;  // Megatron-LM: Transformer Engine
  Layout l;
  for (const char* gpu : {"b200", "gb200", "b300", "gb300"}) {
    INFO(gpu);
    w.fp8_recipe = Fp8Recipe::delayed;  // read 2, write 1
    CHECK_THAT(cast_bytes(w, l, gpu), WithinRel(3 * kInputs + 3 * kWeights / 4, 1e-12));
    w.fp8_recipe = Fp8Recipe::current;  // + the amax pass's read of 2
    CHECK_THAT(cast_bytes(w, l, gpu), WithinRel(5 * kInputs + 5 * kWeights / 4, 1e-12));
    w.fp8_recipe = Fp8Recipe::mxfp8;  // read 2, write two copies of 1 + 1/32
    const double mx = 2 + 2 * (1 + 1.0 / 32);
    CHECK_THAT(cast_bytes(w, l, gpu), WithinRel(mx * kInputs + mx * kWeights / 4, 1e-12));
  }
  // torchao's float8 under FSDP2 (torch._scaled_mm) transposes on Blackwell as on Hopper: read 2,
  // amax read 2, write 1 + 1, and every forward casts its weights.
  w.zero_stage = 3;
  w.fp8_recipe = Fp8Recipe::current;
  CHECK_THAT(cast_bytes(w, l, "b200"), WithinRel(6 * kInputs + 6 * kWeights, 1e-12));
}

TEST_CASE("fp8 recipes: Transformer Engine's weight workspace is 2 B per GEMM weight on Hopper, 1 B on Blackwell",
          "[fp8]") {
  // module/base.py get_weight_workspace caches each GEMM weight's FP8 copy for the step: rowwise
  // and transposed on Hopper (2 B), one copy used both ways for per-tensor scaling on datacenter
  // Blackwell (1 B), two for MXFP8 there. Llama 3 8B, TP 1: 32 layers of kWeights GEMM weights.
  const ModelSpec m = *model_preset("llama3-8b");
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 1;
  w.zero_stage = 1;
  Layout l;
  const auto parameters = [&](const char* gpu, DType dtype, Fp8Recipe recipe) {
    w.compute_dtype = dtype;
    w.fp8_recipe = recipe;
    return training_memory(m, w, l, *find_gpu(gpu)).ranks.front().bytes(MemoryCategory::parameters);
  };
  const double weights = 32 * kWeights;
  for (const char* gpu : {"h100-sxm", "b200"}) {
    INFO(gpu);
    const double bf16 = parameters(gpu, DType::bf16, Fp8Recipe::automatic);
    const double copies = std::string(gpu) == "b200" ? 1.0 : 2.0;
    CHECK_THAT(parameters(gpu, DType::fp8, Fp8Recipe::delayed) - bf16, WithinRel(copies * weights, 1e-9));
    CHECK_THAT(parameters(gpu, DType::fp8, Fp8Recipe::current) - bf16, WithinRel(copies * weights, 1e-9));
    CHECK_THAT(parameters(gpu, DType::fp8, Fp8Recipe::mxfp8) - bf16, WithinRel(2 * weights, 1e-9));
  }
}

TEST_CASE("fp8 recipes: delayed casts in one pass, current reads each tensor once more for its amax", "[fp8]") {
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 4;  // four micro-batches on one rank
  w.compute_dtype = DType::fp8;
  w.zero_stage = 1;  // Megatron-LM (memory_framework auto)
  Layout l;
  CHECK(fp8_recipe_of(w) == Fp8Recipe::delayed);
  // Delayed: read 2, write 1 + 1 per input element; each weight once per step (a quarter per
  // micro-batch here).
  CHECK_THAT(cast_bytes(w, l), WithinRel(4 * kInputs + 4 * kWeights / 4, 1e-12));
  w.fp8_recipe = Fp8Recipe::current;
  CHECK_THAT(cast_bytes(w, l), WithinRel(6 * kInputs + 6 * kWeights / 4, 1e-12));
  // MXFP8: the block scales come out of the cast itself (no amax pass), but each copy carries one
  // E8M0 scale byte per 32 elements (OCP Microscaling Formats v1.0: block size 32, 8-bit scale).
  w.fp8_recipe = Fp8Recipe::mxfp8;
  const double mx = 2 + 2 * (1 + 1.0 / 32);
  CHECK_THAT(cast_bytes(w, l), WithinRel(mx * kInputs + mx * kWeights / 4, 1e-12));
  // Blockwise FP8 (DeepSeek-V3 §3.3.1; TE Float8BlockScaling): one fp32 scale per 128 elements.
  w.fp8_recipe = Fp8Recipe::blockwise;
  const double blockwise = 2 + 2 * (1 + 4.0 / 128);
  CHECK_THAT(cast_bytes(w, l), WithinRel(blockwise * kInputs + blockwise * kWeights / 4, 1e-12));
  // FSDP2 (torchtitan, torchao's float8): tensorwise by default, every forward casts its weights.
  w.fp8_recipe = Fp8Recipe::automatic;
  w.zero_stage = 3;
  CHECK(fp8_recipe_of(w) == Fp8Recipe::current);
  CHECK_THAT(cast_bytes(w, l), WithinRel(6 * kInputs + 6 * kWeights, 1e-12));
  // The key parses and refuses what it does not know.
  auto keys = split_key_values("precision=fp8,fp8_recipe=mxfp8", "--train");
  REQUIRE(keys);
  auto parsed = training_from_keys(*keys);
  REQUIRE(parsed);
  CHECK(parsed->fp8_recipe == Fp8Recipe::mxfp8);
  auto bad = split_key_values("fp8_recipe=hybrid", "--train");
  REQUIRE(bad);
  CHECK_FALSE(training_from_keys(*bad));
}

// NVFP4 (TE NVFP4BlockScaling; NVIDIA, "Pretraining Large Language Models with NVFP4", 2025, §2):
// half a byte per element plus one E4M3 scale per 16 elements, and an amax pass before each cast.
TEST_CASE("fp8 recipes: precision=nvfp4 casts to 0.5625 bytes after an amax pass; it needs FP4 tensor cores", "[fp8]") {
  auto keys = split_key_values("precision=nvfp4,seq=4096,global_batch=4,zero=1", "--train");
  REQUIRE(keys);
  auto w = training_from_keys(*keys);
  REQUIRE(w);
  CHECK(w->compute_dtype == DType::fp4);
  CHECK(w->param_dtype == DType::bf16);
  bool written = false;  // training_to_keys writes it back as nvfp4 (project files, `assumptions`)
  for (const auto& [key, value] : training_to_keys(*w))
    if (key == "precision") written = value == "nvfp4";
  CHECK(written);
  // Read 2 bytes, an amax read of 2 more, write 0.5625 twice (the operand and its transpose).
  const double per_element = 2 + 2 + 2 * 0.5625;
  CHECK_THAT(cast_bytes(*w, Layout{}), WithinRel(per_element * kInputs + per_element * kWeights / 4, 1e-12));

  // Transformer Engine refuses FP8 below compute capability 8.9 and NVFP4 below 10.0
  // (transformer_engine/pytorch/fp8.py check_fp8_support, check_nvfp4_support).
  const auto refused = [](const char* gpu, DType type) {
    auto r = check_training_precision(*find_gpu(gpu), type);
    return r ? std::string() : r.error().to_string();
  };
  CHECK_THAT(refused("a100-80gb-sxm", DType::fp8), Catch::Matchers::Contains("precision: NVIDIA A100") &&
                                                       Catch::Matchers::Contains("has no fp8 tensor cores"));
  CHECK_THAT(refused("h100-sxm", DType::fp4), Catch::Matchers::Contains("no NVFP4 (FP4) tensor cores") &&
                                                  Catch::Matchers::Contains("it has bf16, fp16, fp8"));
  CHECK(refused("b200", DType::fp4).empty());
  CHECK(refused("h100-sxm", DType::fp8).empty());
  CHECK(refused("mi300x", DType::fp8).empty());
  // 16-bit precisions keep their fallback: PyTorch runs BF16 on a V100 (without tensor cores).
  CHECK(refused("v100-sxm2-32gb", DType::bf16).empty());
}
