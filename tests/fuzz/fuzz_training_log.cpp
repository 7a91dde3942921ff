// libFuzzer target: training logs (Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/importers/training_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto run = meshscope::parse_training_log(text, "fuzz.log");
  if (run) {
    (void)run->layout.layout_keys();
    (void)run->layout.train_keys();
  }
  return 0;
}
