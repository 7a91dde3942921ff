// libFuzzer target: user kernel classification rules (a JSON rules file, docs/import.md); every accepted table is put
// in front of the built-in one and classifies a few real kernel names.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/comm_kernel_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rules = meshscope::parse_kernel_rules_json(text, "fuzz.json");
  if (!rules) return 0;
  auto table = meshscope::KernelRuleTable::defaults().with_rules_first(*rules);
  if (!table) return 0;
  for (const std::string_view name :
       {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"})
    (void)table->classify(name);
  return 0;
}
