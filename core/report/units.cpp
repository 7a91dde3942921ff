#include "core/report/units.hpp"

#include <cstdio>

namespace meshscope {

std::string gib_text(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f GiB", gib_from_bytes(bytes));
  return buffer;
}

std::string gbps_text(double bytes_per_s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GB/s", gb_per_s(bytes_per_s));
  return buffer;
}

std::string billions_text(double count) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f B", billions(count));
  return buffer;
}

}  // namespace meshscope
