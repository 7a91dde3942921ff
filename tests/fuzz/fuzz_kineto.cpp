// libFuzzer target: PyTorch profiler (Kineto) traces, parsed and analysed.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/importers/kineto.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  auto trace = meshscope::parse_kineto_trace(in, "fuzz.json");
  if (trace) (void)meshscope::analyze_kineto_trace(*trace);
  return 0;
}
