#include "core/report/text.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <vector>

namespace meshscope {

void printf_to(std::ostream& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  char small[512];
  const int size = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (size < 0) {
    va_end(copy);
    return;
  }
  if (static_cast<size_t>(size) < sizeof small) {
    va_end(copy);
    out.write(small, size);
    return;
  }
  std::vector<char> large(static_cast<size_t>(size) + 1);
  std::vsnprintf(large.data(), large.size(), format, copy);
  va_end(copy);
  out.write(large.data(), size);
}

std::string fixed_or_dash(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace meshscope
