#pragma once
// The unit conversions of the report documents, in one place. The core computes in bytes, seconds and
// bytes/s; the documents and the CLI's tables show GiB, MiB, ms, µs and GB/s (1e9 bytes/s, as nccl-tests
// prints them). Each conversion is one function so that no document writes `* 1e3` or `/ 1e9` inline.
#include <cmath>
#include <string>

namespace meshscope {

inline constexpr double kBytesPerKiB = 1024.0;
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

[[nodiscard]] constexpr double gib_from_bytes(double bytes) {
  return bytes / kBytesPerGiB;
}
[[nodiscard]] constexpr double mib_from_bytes(double bytes) {
  return bytes / kBytesPerMiB;
}
// GB/s: 1e9 bytes per second.
[[nodiscard]] constexpr double gb_per_s(double bytes_per_s) {
  return bytes_per_s / 1e9;
}
// Billions (of parameters).
[[nodiscard]] constexpr double billions(double count) {
  return count / 1e9;
}
[[nodiscard]] constexpr double ms_from_s(double seconds) {
  return seconds * 1e3;
}
[[nodiscard]] constexpr double us_from_s(double seconds) {
  return seconds * 1e6;
}
[[nodiscard]] constexpr double ms_from_us(double microseconds) {
  return microseconds / 1e3;
}
// nccl-tests prints µs with two decimals; rounding to 1e-3 µs removes the noise of the s → µs round trip.
[[nodiscard]] inline double us_from_s_rounded(double seconds) {
  return std::round(seconds * 1e9) / 1e3;
}
// A fraction as a percentage.
[[nodiscard]] constexpr double percent(double fraction) {
  return 100 * fraction;
}

// "12.34 GiB"
[[nodiscard]] std::string gib_text(double bytes);
// "123.4 GB/s"
[[nodiscard]] std::string gbps_text(double bytes_per_s);
// "1.234 B" (billions, for parameter counts)
[[nodiscard]] std::string billions_text(double count);

}  // namespace meshscope
