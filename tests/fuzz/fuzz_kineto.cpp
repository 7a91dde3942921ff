// libFuzzer target: PyTorch profiler (Kineto) traces, parsed and analysed. The reader parses the document in units
// (an event, a top-level member) that it reads again when one runs into the end of its buffer, so the same bytes are
// also handed out in small pieces: the result, or the error and where it is, must not change.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "core/importers/kineto.hpp"

namespace {

// The input in pieces of 1 to 61 bytes, sizes from a fixed linear congruential sequence.
class PiecewiseSource final : public meshscope::KinetoByteSource {
 public:
  explicit PiecewiseSource(const std::string& bytes) : bytes_(bytes) {}
  meshscope::Result<int64_t> read(char* data, int64_t size) override {
    state_ = state_ * 1103515245U + 12345U;
    const size_t piece = 1 + (state_ >> 16) % 61;
    const size_t n = std::min({static_cast<size_t>(size), bytes_.size() - position_, piece});
    std::memcpy(data, bytes_.data() + position_, n);
    position_ += n;
    return static_cast<int64_t>(n);
  }
  [[nodiscard]] int64_t input_bytes_read() const override { return static_cast<int64_t>(position_); }

 private:
  const std::string& bytes_;
  size_t position_ = 0;
  uint32_t state_ = 1;
};

bool same(const meshscope::KinetoTrace& a, const meshscope::KinetoTrace& b) {
  return a.events == b.events && a.json_bytes == b.json_bytes && a.names == b.names && a.threads == b.threads &&
         a.device_events.size() == b.device_events.size() && a.launches.size() == b.launches.size() &&
         a.steps.size() == b.steps.size() && a.cpu_comm_spans.size() == b.cpu_comm_spans.size() &&
         a.events_by_category == b.events_by_category && a.peak_allocated_bytes == b.peak_allocated_bytes &&
         a.warnings.size() == b.warnings.size() && a.devices.size() == b.devices.size() &&
         a.display_time_unit == b.display_time_unit;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::istringstream in(bytes);
  auto trace = meshscope::parse_kineto_trace(in, "fuzz.json");
  PiecewiseSource source(bytes);
  auto pieces = meshscope::parse_kineto_trace(source, "fuzz.json");
  if (trace.has_value() != pieces.has_value()) __builtin_trap();
  if (trace) {
    if (!same(*trace, *pieces)) __builtin_trap();
    (void)meshscope::analyze_kineto_trace(*trace);
  } else if (trace.error().code != pieces.error().code || trace.error().message != pieces.error().message ||
             trace.error().location != pieces.error().location) {
    __builtin_trap();
  }
  return 0;
}
