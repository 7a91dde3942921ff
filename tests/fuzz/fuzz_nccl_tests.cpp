// libFuzzer target: nccl-tests logs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/nccl_tests.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto log = meshscope::parse_nccl_tests(text, "fuzz.log");
  if (log) (void)meshscope::fit_alpha_beta(log->rows);
  return 0;
}
