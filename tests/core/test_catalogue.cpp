// The built-in presets: every GPU and model loads, with a source.
#include <catch2/catch.hpp>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"

using namespace meshscope;

TEST_CASE("catalogue: every GPU the issue lists is present with its datasheet figures") {
  const char* const ids[] = {
      "a100-40gb-sxm", "a100-80gb-sxm", "h100-sxm", "h100-pcie", "h200-sxm", "h800-sxm", "h100-sxm-96gb-500w",
      "b200",          "gb200",         "gb300",    "b300",      "mi300x",   "mi325x",   "l40s",
      "rtx-4090",      "v100-sxm2-32gb"};
  for (const char* id : ids) {
    INFO(id);
    auto gpu = find_gpu(id);
    REQUIRE(gpu);
    CHECK(gpu->memory_bytes > 0);
    CHECK(gpu->memory_bandwidth_bytes_per_s > 0);
    CHECK((gpu->peak_flops_per_s(DType::bf16) || gpu->peak_flops_per_s(DType::fp16)));
    CHECK_FALSE(gpu->source.empty());
  }
  // NVIDIA H100 datasheet: 80 GB HBM3, 3.35 TB/s, 989.5 dense BF16 TFLOP/s (1979 with sparsity).
  const GpuSpec h100 = *find_gpu("h100-sxm");
  CHECK(h100.memory_bytes == 80.0 * 1024 * 1024 * 1024);
  CHECK(h100.memory_bandwidth_bytes_per_s == 3.35e12);
  CHECK(*h100.peak_flops_per_s(DType::bf16) == 989.5e12);
  // NVIDIA A100 datasheet: 312 dense BF16 TFLOP/s (the SC21/Korthikanti peak).
  CHECK(*find_gpu("a100-80gb-sxm")->peak_flops_per_s(DType::bf16) == 312e12);
  CHECK_FALSE(find_gpu("v100-sxm2-32gb")->peak_flops_per_s(DType::bf16));  // Volta has no bf16
  // NVIDIA's HGX page, HGX B300 board (8 GPUs, "Sparse | Dense"): FP4 108 PFLOPS dense, FP16/BF16
  // 36 PFLOPS sparse (dense is half), 2.3 TB per DGX B300.
  // torchtitan's Grand Teton H100 (96 GB HBM2e, 2.4 TB/s, 500 W): "the actual peak TFLOPs number is
  // between SXM and NVL" (benchmarks/llama3_h100_202412_torchtitan.md, footnote 2); NVIDIA's H100
  // page: BF16 1,979 (SXM) and 1,671 (NVL) sparse TFLOPS, dense half.
  const GpuSpec teton = *find_gpu("h100-sxm-96gb-500w");
  CHECK(*teton.peak_flops_per_s(DType::bf16) > 1671e12 / 2);
  CHECK(*teton.peak_flops_per_s(DType::bf16) < 1979e12 / 2);
  CHECK(teton.memory_bytes == 96.0 * 1024 * 1024 * 1024);
  CHECK(teton.memory_bandwidth_bytes_per_s == 2.4e12);
  const GpuSpec b300 = *find_gpu("b300");
  CHECK(*b300.peak_flops_per_s(DType::fp4) == 108e15 / 8);
  CHECK(*b300.peak_flops_per_s(DType::bf16) == 36e15 / 2 / 8);
  CHECK(b300.memory_bytes == 288.0 * 1024 * 1024 * 1024);
}

TEST_CASE("catalogue: every model preset loads and names its source") {
  const auto names = model_preset_names();
  REQUIRE(names.size() >= 17);
  for (const auto& name : names) {
    INFO(name);
    auto model = model_preset(name);
    REQUIRE(model);
    CHECK_FALSE(model->source.empty());
    CHECK(count_params(*model).total_params() > 0);
  }
}

TEST_CASE("catalogue: SC21 Table 1 presets have the paper's parameter counts") {
  // Narayanan et al. SC21 Table 1 "Number of parameters (billion)", within the 0.1 B printed.
  const std::pair<const char*, double> rows[] = {{"megatron-gpt-1.7b", 1.7},     {"megatron-gpt-3.6b", 3.6},
                                                 {"megatron-gpt-7.5b", 7.5},     {"megatron-gpt-18.4b", 18.4},
                                                 {"megatron-gpt-39.1b", 39.1},   {"megatron-gpt-76.1b", 76.1},
                                                 {"megatron-gpt-145.6b", 145.6}, {"megatron-gpt-310.1b", 310.1},
                                                 {"megatron-gpt-529.6b", 529.6}, {"megatron-gpt-1008b", 1008.0}};
  for (const auto& [name, billions] : rows) {
    INFO(name);
    CHECK(std::abs(count_params(*model_preset(name)).total_params() / 1e9 - billions) < 0.051 + billions * 0.001);
  }
}

TEST_CASE("catalogue: an unknown preset lists the known ones") {
  auto model = model_preset("llama9");
  REQUIRE_FALSE(model);
  CHECK(model.error().message.find("llama3-8b") != std::string::npos);
  CHECK_FALSE(find_gpu("h9000"));
}

TEST_CASE("catalogue: the sample clusters are embedded byte for byte") {
  const auto samples = sample_clusters();
  REQUIRE(samples.size() >= 10);
  for (const SampleCluster& sample : samples) {
    auto text = read_text_file(std::string(MESHSCOPE_SOURCE_DIR) + "/sample_clusters/" + std::string(sample.file));
    REQUIRE(text);
    CHECK(*text == sample.text);
  }
}
