// The GEMM rate model (core/estimate/gemm_rate.hpp) against measurements: the catalogue's
// achievable rates against mamf.csv, and the roll-off curve against every row of XLA's measured
// GEMM tables. Using mamf.csv to set the per-GPU rate and the bf16 tables to shape the roll-off is
// their intended use (scripts/fit_gemm_rolloff.py fits the four roll-off numbers of each GPU to
// its bf16 × bf16 → bf16 rows); the other dtypes of the same tables are not fitted and check it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/estimate/gemm_rate.hpp"
#include "core/model/catalogue.hpp"
#include "support/csv.hpp"

using namespace meshscope;
using Catch::Matchers::WithinRel;

namespace {

struct Errors {
  std::vector<double> values;  // |predicted / measured − 1|
  double measured_max_flops = 0;
  [[nodiscard]] double median() const {
    std::vector<double> v = values;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  [[nodiscard]] double max() const { return values.empty() ? 0 : *std::max_element(values.begin(), values.end()); }
};

// The dtype meshscope names for XLA's "AxB->C" operand types, with the operand bytes.
struct XlaType {
  DType type;
  double bytes;
};
XlaType xla_type(const std::string& dtype) {
  if (dtype.starts_with("bf16")) return {DType::bf16, 2};
  if (dtype.starts_with("f16")) return {DType::fp16, 2};
  if (dtype.starts_with("f8")) return {DType::fp8, 1};
  return {DType::tf32, 4};  // f32 × f32: XLA's default precision runs TF32 tensor cores
}

}  // namespace

TEST_CASE("gemm rate: the catalogue's achievable rates are mamf.csv's measurements") {
  // Golden values: ../shared/fidelity/mamf.csv (stas00/ml-engineering @ 7bc7c3054eb9).
  const std::map<std::string, std::string> gpu_of = {{"NVIDIA A100 SXM", "a100-80gb-sxm"},
                                                     {"NVIDIA H100 SXM", "h100-sxm"},
                                                     {"NVIDIA H200 SXM", "h200-sxm"},
                                                     {"NVIDIA B200 SXM", "b200"},
                                                     {"NVIDIA GB200 SXM", "gb200"},
                                                     {"AMD MI300X", "mi300x"},
                                                     {"AMD MI325X", "mi325x"}};
  int checked = 0;
  for (const auto& row : test::read_fidelity_csv("mamf.csv")) {
    const auto it = gpu_of.find(row.at("accelerator"));
    if (it == gpu_of.end() || row.at("mamf_tflops").empty()) continue;
    CAPTURE(row.at("accelerator"), row.at("dtype"));
    const auto gpu = find_gpu(it->second);
    REQUIRE(gpu);
    const DType type = row.at("dtype") == "bf16" ? DType::bf16 : DType::fp8;
    CHECK_THAT(achievable_gemm_flops_per_s(*gpu, type), WithinRel(std::stod(row.at("mamf_tflops")) * 1e12, 1e-9));
    ++checked;
  }
  CHECK(checked == 10);  // mamf.csv has no H200 bf16 row (its H100 row says "H200 is the same")
}

TEST_CASE("gemm rate: every catalogue GPU sustains at most its burst rate, and that at most its peak") {
  for (const GpuSpec& gpu : gpu_catalogue()) {
    for (const DType type : {DType::bf16, DType::fp16, DType::fp8}) {
      if (!gpu.peak_flops_per_s(type)) continue;
      CAPTURE(gpu.id, dtype_name(type));
      const double burst = achievable_gemm_flops_per_s(gpu, type), sustained = sustained_gemm_flops_per_s(gpu, type);
      CHECK(sustained > 0);
      CHECK(sustained <= burst * (1 + 1e-12));
      CHECK(burst <= *gpu.peak_flops_per_s(type) * (1 + 1e-12));
    }
  }
  // The H200's sustained bf16 rate is the mamf-finder README's measured MSMF (702.9 TFLOP/s).
  CHECK_THAT(sustained_gemm_flops_per_s(*find_gpu("h200-sxm"), DType::bf16), WithinRel(702.9e12, 1e-9));
}

TEST_CASE("gemm rate: a GEMM slows down when it is too small to fill every SM or its K is short") {
  const GpuSpec gpu = *find_gpu("h100-sxm");
  const double rate = achievable_gemm_flops_per_s(gpu, DType::bf16);
  const auto share = [&](double m, double n, double k) {
    const double t = gemm_time_s(gpu.gemm, rate, gpu.memory_bandwidth_bytes_per_s, {1, m, n, k, 2});
    return 2 * m * n * k / t / rate;
  };
  CHECK(share(8192, 8192, 8192) > 0.95);
  CHECK(share(256, 8192, 8192) < share(2048, 8192, 8192));  // few tokens per rank: the GEMM waits on HBM
  CHECK(share(8192, 8192, 256) < share(8192, 8192, 4096));  // short K: the tile pipeline fills and drains
  CHECK(share(256, 256, 256) < 0.1);                        // a kernel's fixed time dominates
  // One wave too many: 133 tiles of 256×128 on 132 SMs (a 128×128 or 64×64 tiling still helps).
  CHECK(share(256 * 7, 128 * 19, 4096) < share(256 * 12, 128 * 11, 4096));
}

TEST_CASE("gemm rate: the roll-off reproduces XLA's measured GEMMs of every shape, per GPU and dtype") {
  // Measured: ../shared/fidelity/gemm_measured_xla*.csv, 375 shapes (b × m × n × k, 256…4096) per
  // GPU and dtype. Predicted: gemm_time_s at the GPU's burst rate (XLA times short kernels, as
  // MAMF does). MI355X (gfx950) is not in the catalogue (no datasheet at hand for its peaks).
  struct Table {
    std::string file, arch, gpu;
  };
  const std::vector<Table> tables = {{"gemm_measured_xla.csv", "sm_90", "h100-sxm"},
                                     {"gemm_measured_xla_multiarch.csv", "sm_90", "h100-sxm"},
                                     {"gemm_measured_xla_multiarch.csv", "sm_100_B200", "b200"},
                                     {"gemm_measured_xla_multiarch.csv", "gfx950", ""},
                                     {"gemm_measured_xla_gfx942.csv", "gfx942", "mi300x"}};
  for (const Table& table : tables) {
    std::map<std::string, Errors> groups;  // by XLA dtype
    std::optional<GpuSpec> gpu;
    if (!table.gpu.empty()) gpu = *find_gpu(table.gpu);
    for (const auto& row : test::read_fidelity_csv(table.file)) {
      if (row.at("arch") != table.arch) continue;
      Errors& group = groups[row.at("dtype")];
      const double measured = std::stod(row.at("flops_per_s"));
      group.measured_max_flops = std::max(group.measured_max_flops, measured);
      if (!gpu) continue;
      const XlaType t = xla_type(row.at("dtype"));
      const GemmShape shape{std::stod(row.at("b")), std::stod(row.at("m")), std::stod(row.at("n")),
                            std::stod(row.at("k")), t.bytes};
      const double seconds =
          gemm_time_s(gpu->gemm, achievable_gemm_flops_per_s(*gpu, t.type), gpu->memory_bandwidth_bytes_per_s, shape);
      group.values.push_back(2 * shape.batch * shape.m * shape.n * shape.k / seconds / measured - 1);
      group.values.back() = std::abs(group.values.back());
    }
    for (const auto& [dtype, e] : groups) {
      CAPTURE(table.file, table.arch, dtype);
      if (!gpu) {
        std::printf("[fidelity] GEMM roll-off %-34s %-12s %-34s skipped: not in the GPU catalogue\n",
                    table.file.c_str(), table.arch.c_str(), dtype.c_str());
        continue;
      }
      CHECK(e.values.size() == 375);
      const XlaType t = xla_type(dtype);
      const double peak = gpu->peak_flops_per_s(t.type).value_or(0);
      // A table whose best row exceeds the datasheet's dense peak measured something else (the
      // sm_90 fp8 rows reach 2.6 PFLOP/s against H100's 1.98): reported, not bounded.
      const bool above_peak = e.measured_max_flops > peak;
      const bool fitted = dtype == "bf16xbf16->bf16";
      std::printf("[fidelity] GEMM roll-off %-34s %-12s %-34s %3zu rows: median |error| %5.1f %%, max %6.1f %%%s\n",
                  table.file.c_str(), table.arch.c_str(), dtype.c_str(), e.values.size(), 100 * e.median(),
                  100 * e.max(),
                  above_peak ? " (table above the datasheet peak: not bounded)" : (fitted ? " (the fitted rows)" : ""));
      // TF32 (XLA's f32 × f32) is no training dtype here: reported, not bounded.
      if (above_peak || t.type == DType::tf32) continue;
      // Bounds. The fitted NVIDIA rows: 6 % (the curve follows them to a few per cent; the worst
      // rows are the 256-wide ones, where one kernel choice changes the rate by 1.5×). MI300X:
      // hipBLASLt's measured rates are not monotonic in the size (1024×512×1024 runs at 53
      // TFLOP/s, 1024×256×1024 at 73), which no smooth curve follows: 20 %. Rows not fitted
      // (FP8, and MI300X's BF16 with an FP32 result; the curve's k_half scaled by the operand bytes):
      // 35 %.
      const bool amd = table.arch.starts_with("gfx");
      CHECK(e.median() < (fitted ? (amd ? 0.20 : 0.06) : 0.35));
    }
  }
}
