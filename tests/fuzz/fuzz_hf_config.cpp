// libFuzzer target: Hugging Face config.json and meshscope model files.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/model/model_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = meshscope::parse_json_text(text, "fuzz.json");
  if (!doc) return 0;
  (void)meshscope::model_from_hf_config(*doc, "fuzz.json");
  (void)meshscope::model_from_json(*doc, "fuzz.json");
  return 0;
}
